/**
 * The OpenAI Responses provider (`POST {baseUrl}/responses`, `stream: true`), also for servers speaking the
 * Responses dialect (OpenRouter, xAI, DeepSeek, LM Studio). Part of the `capstan/openai` entry.
 */

import type { AssistantMessageEventStream } from "../../core/events.js";
import type { Context, Model } from "../../core/model.js";
import { resolveBaseUrl } from "../base/base-url.js";
import { joinUrl, parseEventJson, runProviderStream } from "../base/run-stream.js";
import { ResponsesStreamDecoder } from "./decode.js";
import { classifyOpenAIErrorBody } from "./errors.js";
import { buildResponsesRequest, OPENAI_RESPONSES_API, type OpenAIResponsesOptions } from "./request.js";
import type { ResponseStreamEvent } from "./wire.js";

export { ResponsesStreamDecoder } from "./decode.js";
export { classifyOpenAIErrorBody as classifyResponsesErrorBody } from "./errors.js";
export { decodeItemRef, encodeItemRef, type ItemRef, responsesCallId } from "./item-refs.js";
export {
	buildResponsesRequest,
	convertMessages as convertResponsesMessages,
	OPENAI_RESPONSES_API,
	type OpenAIResponsesOptions,
	reasoningConfig as responsesReasoningConfig,
	toResponsesToolChoice,
} from "./request.js";

/**
 * Stream one reply from the OpenAI Responses API. Never throws (rule E3): every failure ends the stream
 * with an `error` message carrying a classified `errorKind`; transient failures before any content are
 * retried (rule A8).
 */
export function streamOpenAIResponses(
	model: Model,
	context: Context,
	options?: OpenAIResponsesOptions,
): AssistantMessageEventStream {
	return runProviderStream(model, options, async (builder, ctx) => {
		const body = JSON.stringify(buildResponsesRequest(model, context, ctx.options));
		const headers: Record<string, string> = {};
		if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
		const decoder = new ResponsesStreamDecoder(builder, model);
		const events = ctx.streamSse({
			url: joinUrl(resolveBaseUrl(model, OPENAI_RESPONSES_API), "responses"),
			headers,
			body,
			classifyBody: classifyOpenAIErrorBody,
		});
		for await (const event of events) {
			// OpenRouter's dialect ends with the Chat Completions sentinel; the terminal event came before it.
			if (event.data === "[DONE]") continue;
			const parsed = parseEventJson(event.data) as ResponseStreamEvent;
			if (decoder.handle(parsed) === "finished") return;
		}
	});
}
