/**
 * Shared provider scaffolding, written once and used by every wire API: the never-throw stream
 * runner with retries and timeouts, SSE reading, error classification, usage and cost, stop-reason mapping,
 * API keys from the environment.
 *
 * A provider is one function on `runProviderStream`:
 *
 * ```ts
 * export function streamAcme(model: Model, context: Context, options?: ProviderStreamOptions) {
 *   return runProviderStream(model, options, async (builder, ctx) => {
 *     const events = ctx.streamSse({
 *       url: joinUrl(model.baseUrl ?? "https://api.acme.dev", "/v1/chat"),
 *       headers: { authorization: `Bearer ${ctx.apiKey}` },
 *       body: JSON.stringify(buildAcmeRequest(model, context, options)), // exact bytes on the wire
 *       classifyBody: classifyAcmeError, // optional per-API error-body knowledge
 *     });
 *     for await (const event of events) {
 *       const chunk = parseEventJson(event.data); // malformed JSON → malformed_response
 *       // feed builder.startText()/appendText()/…; throw classifyStreamError(...) on an in-stream error
 *       // builder.setUsage(buildUsage({ input, output, cacheRead, cacheWrite }, model))
 *     }
 *     finishWithStop(builder, mapStopReason(rawStop, ACME_STOP_REASONS)); // or throw: stream ended early
 *   });
 * }
 * ```
 *
 * The runner calls `builder.start()`, resolves the key (`options.apiKey`, then the environment), retries
 * transient failures before any content (rule A8, `onRetry`), enforces the first-byte and idle timeouts,
 * cancels the request on abort (one listener per stream) and turns every failure into an `error` message
 * with a classified `errorKind` (rule E3). Tests replay recordings through `test/providers/support/`.
 */
export * from "./advice.js";
export * from "./base-url.js";
export * from "./env.js";
export * from "./errors.js";
export { REDACTED, redactSecrets } from "./redact.js";
export * from "./retry.js";
export * from "./run-stream.js";
export * from "./sse.js";
export * from "./stop-reason.js";
export * from "./usage.js";
