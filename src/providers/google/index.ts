/**
 * The Google Gemini provider (`POST {baseUrl}/models/{id}:streamGenerateContent?alt=sse`, key in
 * `x-goog-api-key`), for the Gemini API and Vertex AI endpoints. The `capstan/google` entry.
 *
 * Compat flag read here: `authHeader: "bearer"` sends the key as `Authorization: Bearer …` (Vertex AI
 * access tokens) instead of `x-goog-api-key`.
 */
import type { AssistantMessageEventStream } from "../../core/events.js";
import type { Context, Model } from "../../core/model.js";
import { resolveBaseUrl } from "../base/base-url.js";
import { ProviderError, strayLineCollector, trailingErrorBody } from "../base/errors.js";
import { joinUrl, parseEventJson, runProviderStream } from "../base/run-stream.js";
import { type GeminiChunk, GeminiStreamDecoder } from "./decode.js";
import { classifyGeminiErrorBody } from "./errors.js";
import { buildGeminiRequest, GOOGLE_API, type GoogleOptions } from "./request.js";

export { GEMINI_FINISH_REASONS, type GeminiChunk, GeminiStreamDecoder } from "./decode.js";
export { classifyGeminiErrorBody } from "./errors.js";
export {
	applyPartialArg,
	PartialArgsJsonWriter,
	type PartialArgsState,
	parseJsonPath,
	partialArgsState,
} from "./partial-args.js";
export {
	buildGeminiRequest,
	convertMessages as convertGeminiMessages,
	GEMINI_THINKING_BUDGETS,
	type GeminiRequestBody,
	GOOGLE_API,
	type GoogleOptions,
	thinkingConfig as geminiThinkingConfig,
	toFunctionCallingConfig,
	type WireThinkingConfig,
	type WireToolConfig,
} from "./request.js";

/** The streaming URL for `model` (`{baseUrl}/models/{id}:streamGenerateContent?alt=sse`). */
export function geminiStreamUrl(model: Model): string {
	const base = resolveBaseUrl(model, GOOGLE_API);
	// Ids are accepted with or without the resource prefix (`models/gemini-2.5-flash`).
	const id = model.id.replace(/^models\//, "");
	return joinUrl(base, `models/${id}:streamGenerateContent?alt=sse`);
}

/**
 * Stream one reply from Gemini. Never throws (rule E3): every failure ends the stream with an `error`
 * message carrying a classified `errorKind`; transient failures before any content are retried (rule A8).
 */
export function streamGoogle(
	model: Model,
	context: Context,
	options?: GoogleOptions,
): AssistantMessageEventStream {
	return runProviderStream(model, options, async (builder, ctx) => {
		const body = JSON.stringify(buildGeminiRequest(model, context, ctx.options));
		const headers: Record<string, string> = {};
		if (ctx.apiKey && model.compat?.authHeader === "bearer") headers.authorization = `Bearer ${ctx.apiKey}`;
		else if (ctx.apiKey) headers["x-goog-api-key"] = ctx.apiKey;
		const decoder = new GeminiStreamDecoder(builder, model);
		const stray = strayLineCollector();
		const events = ctx.streamSse({
			url: geminiStreamUrl(model),
			headers,
			body,
			classifyBody: classifyGeminiErrorBody,
			onInvalidLine: stray.add,
		});
		for await (const event of events) decoder.handle(parseEventJson(event.data) as GeminiChunk);
		const trailing = trailingErrorBody(stray.lines, classifyGeminiErrorBody);
		if (trailing) throw trailing;
		if (!decoder.finish())
			throw new ProviderError("network", "stream ended unexpectedly", { retryable: false });
	});
}
