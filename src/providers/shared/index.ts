/**
 * Shared provider scaffolding (STYLE 4), written once and used by every wire API: the never-throw stream
 * runner with retries and timeouts, SSE reading, error classification, usage and cost, stop-reason mapping,
 * API keys from the environment.
 */
export * from "./env.js";
export * from "./errors.js";
export * from "./retry.js";
export * from "./run-stream.js";
export * from "./sse.js";
export * from "./stop-reason.js";
export * from "./usage.js";
