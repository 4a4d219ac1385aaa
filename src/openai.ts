/** Entry for `capstan/openai`: the OpenAI Chat Completions provider and OpenAI-compatible servers. */
export * from "./providers/openai-completions/index.js";
