/**
 * The Chat Completions stream function: `POST {baseUrl}/chat/completions` with `stream: true`, decoded into
 * SPEC E2 events. Retries, timeouts, abort and the never-throw guarantee come from `runProviderStream`.
 */
import type { AssistantMessageEventStream } from "../../core/events.js";
import type { Context, Model } from "../../core/model.js";
import { DEFAULT_BASE_URLS } from "../models.js";
import { joinUrl, runProviderStream } from "../shared/run-stream.js";
import { resolveCompat } from "./compat.js";
import { ChatCompletionsDecoder, classifyOpenAIErrorBody } from "./decode.js";
import {
	buildOpenAICompletionsRequest,
	OPENAI_COMPLETIONS_API,
	type OpenAICompletionsOptions,
} from "./request.js";

/** The endpoint for `model` (its `baseUrl`, else api.openai.com). */
export function chatCompletionsUrl(model: Model): string {
	return joinUrl(
		model.baseUrl ?? DEFAULT_BASE_URLS[OPENAI_COMPLETIONS_API] ?? "https://api.openai.com/v1",
		"chat/completions",
	);
}

/**
 * Stream one reply from an OpenAI Chat Completions server (api.openai.com or any compatible server; see
 * `OpenAICompletionsCompat`). Never throws (SPEC E3): every failure ends the stream with an `error` event.
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
			const headers: Record<string, string> = ctx.apiKey ? { authorization: `Bearer ${ctx.apiKey}` } : {};
			const decoder = new ChatCompletionsDecoder(builder, model);
			const events = ctx.streamSse({
				url: chatCompletionsUrl(model),
				headers,
				body,
				classifyBody: classifyOpenAIErrorBody,
			});
			for await (const event of events) if (decoder.push(event)) return;
			decoder.end();
		},
		{ requireApiKey: compat.requiresApiKey },
	);
}
