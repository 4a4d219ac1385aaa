/**
 * `capstan/providers`: one `stream(model, context, options)` dispatching on `model.api` through the explicit
 * registry, the model catalog, `openaiCompatible(...)` for any OpenAI-compatible server, the options every
 * built-in provider understands, and what writing a provider of your own needs — the never-throw runner
 * (`runProviderStream`) and the pieces a decoder uses with it. The rest of the shared scaffolding
 * (`src/providers/base/`) stays internal.
 *
 * @packageDocumentation
 */

export type {
	AssistantBuilderInit,
	AssistantEventSink,
	AssistantMessageBuilder,
} from "../core/assistant-builder.js";
export {
	type BodyClassification,
	type BodyClassifier,
	classifyStreamError,
	isProviderError,
	ProviderError,
} from "./base/errors.js";
export {
	DEFAULT_MAX_RETRIES,
	DEFAULT_RETRY_BASE_DELAY_MS,
	DEFAULT_RETRY_MAX_DELAY_MS,
	type RetryPolicy,
} from "./base/retry.js";
export {
	DEFAULT_FIRST_BYTE_TIMEOUT_MS,
	DEFAULT_HEADERS_TIMEOUT_MS,
	DEFAULT_IDLE_TIMEOUT_MS,
	DEFAULT_MAX_ERROR_BODY_BYTES,
	DEFAULT_MAX_EVENT_BYTES,
	joinUrl,
	type ProviderCallContext,
	type ProviderRun,
	type ProviderRunSpec,
	type ProviderStreamOptions,
	parseEventJson,
	runProviderStream,
	type SseRequest,
} from "./base/run-stream.js";
export type { SseEvent } from "./base/sse.js";
export {
	finishWithStop,
	type MappedStop,
	mapStopReason,
	type StopReasonTable,
} from "./base/stop-reason.js";
export { buildUsage, type TokenCounts } from "./base/usage.js";
export { DEFAULT_BASE_URLS, getModel, listModels, MODELS } from "./models.js";
export {
	LOCAL_SERVER_BASE_URLS,
	type LocalServerPreset,
	type OpenAICompatibleCompat,
	type OpenAICompatibleConfig,
	type OpenAICompatibleOptions,
	openaiCompatible,
} from "./openai-completions/compatible.js";
export {
	builtinProviders,
	createProviderRegistry,
	getDefaultRegistry,
	type ProviderRegistry,
	stream,
} from "./registry.js";
