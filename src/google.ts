/** Entry for `capstan/google`: the Google Gemini provider (Gemini API and Vertex AI). */
export * from "./providers/google/index.js";
