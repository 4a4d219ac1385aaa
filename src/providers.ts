/**
 * Entry for `capstan/providers`: `stream` over the provider registry, the model catalog (`getModel`, `MODELS`),
 * `openaiCompatible` for any OpenAI-compatible server, and what writing a provider of your own needs.
 */
export * from "./providers/index.js";
