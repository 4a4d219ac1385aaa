/** Entry for `capstan/openai`: the OpenAI Chat Completions and Responses providers and OpenAI-compatible servers. */
export * from "./providers/openai-completions/index.js";
export * from "./providers/openai-responses/index.js";
