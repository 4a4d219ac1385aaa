/**
 * The Chat Completions stream function: `POST {baseUrl}/chat/completions` with `stream: true`, decoded into
 * Rule E2 events. Retries, timeouts, abort and the never-throw guarantee come from `runProviderStream`.
 */
import type { AssistantMessageEventStream } from "../../core/events.js";
import type { Context, Model } from "../../core/model.js";
import { strayLineCollector, trailingErrorBody } from "../base/errors.js";
import { joinUrl, runProviderStream } from "../base/run-stream.js";
import { DEFAULT_BASE_URLS } from "../models.js";
import { resolveCompat } from "./compat.js";
import { ChatCompletionsDecoder, classifyOpenAIErrorBody } from "./decode.js";
import {
	buildOpenAICompletionsRequest,
	OPENAI_COMPLETIONS_API,
	type OpenAICompletionsOptions,
} from "./request.js";

/**
 * The endpoint for `model`: `{baseUrl}/chat/completions` (api.openai.com when there is no base URL). A query
 * in the base URL (Azure's `?api-version=`) stays at the end.
 */
export function chatCompletionsUrl(model: Model): string {
	const base = model.baseUrl ?? DEFAULT_BASE_URLS[OPENAI_COMPLETIONS_API] ?? "https://api.openai.com/v1";
	const query = base.indexOf("?");
	if (query < 0) return joinUrl(base, "chat/completions");
	return `${joinUrl(base.slice(0, query), "chat/completions")}${base.slice(query)}`;
}

/**
 * Stream one reply from an OpenAI Chat Completions server (api.openai.com or any compatible server; see
 * `OpenAICompletionsCompat`). Never throws (rule E3): every failure ends the stream with an `error` event.
 */
export function streamOpenAICompletions(
	model: Model,
	context: Context,
	options?: OpenAICompletionsOptions,
): AssistantMessageEventStream {
	const compat = { ...resolveCompat(model), ...options?.compat };
	return runProviderStream(
		model,
		options,
		async (builder, ctx) => {
			const body = JSON.stringify(buildOpenAICompletionsRequest(model, context, options));
			const headers: Record<string, string> = {};
			if (ctx.apiKey && compat.apiKeyHeader === "api-key") headers["api-key"] = ctx.apiKey;
			else if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
			const decoder = new ChatCompletionsDecoder(builder, model);
			const stray = strayLineCollector();
			const events = ctx.streamSse({
				url: chatCompletionsUrl(model),
				headers,
				body,
				classifyBody: classifyOpenAIErrorBody,
				onInvalidLine: stray.add,
			});
			for await (const event of events) if (decoder.push(event)) return;
			// A server that fails mid-stream may write its JSON error body without `data:`.
			const trailing = trailingErrorBody(stray.lines, classifyOpenAIErrorBody);
			if (trailing) throw trailing;
			decoder.end();
		},
		{ requireApiKey: compat.requiresApiKey },
	);
}
