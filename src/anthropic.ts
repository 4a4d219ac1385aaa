/** Entry for `capstan/anthropic`: the Anthropic Messages provider. */
export * from "./providers/anthropic/index.js";
