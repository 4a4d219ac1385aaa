/**
 * The Anthropic Messages provider (`anthropic-messages`): `POST {baseUrl}/v1/messages` with `stream: true`,
 * over platform `fetch`, on the shared never-throw runner (retries, timeouts, abort, classification).
 * `model.baseUrl` is the origin without `/v1` (as in the vendor SDK), default `https://api.anthropic.com`.
 * `compat.authHeader: "bearer"` sends `Authorization: Bearer` instead of `x-api-key` (some compatible servers).
 */
import type { AssistantMessageEventStream } from "../../core/events.js";
import type { Context, Model } from "../../core/model.js";
import { joinUrl, runProviderStream } from "../base/run-stream.js";
import { DEFAULT_BASE_URLS } from "../models.js";
import { AnthropicStreamDecoder, classifyAnthropicError } from "./decode.js";
import { ANTHROPIC_API, type AnthropicOptions, buildAnthropicRequest } from "./request.js";

/** The `anthropic-version` header value this provider speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Stream one Anthropic Messages reply. Never throws (rule E3). */
export function streamAnthropic(
	model: Model,
	context: Context,
	options?: AnthropicOptions,
): AssistantMessageEventStream {
	return runProviderStream(model, options, async (builder, ctx) => {
		const opts = ctx.options as AnthropicOptions;
		const body = JSON.stringify(buildAnthropicRequest(model, context, opts));
		const decoder = new AnthropicStreamDecoder(builder, model);
		const events = ctx.streamSse({
			url: joinUrl(model.baseUrl ?? DEFAULT_BASE_URLS[ANTHROPIC_API] ?? "", "/v1/messages"),
			headers: anthropicHeaders(model, ctx.apiKey, opts),
			body,
			classifyBody: classifyAnthropicError,
		});
		for await (const event of events) {
			if (decoder.handle(event)) break;
		}
		decoder.finish();
	});
}

function anthropicHeaders(
	model: Model,
	apiKey: string | undefined,
	options: AnthropicOptions,
): Record<string, string> {
	const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
	if (apiKey) {
		if (model.compat?.authHeader === "bearer") headers.authorization = `Bearer ${apiKey}`;
		else headers["x-api-key"] = apiKey;
	}
	if (options.betas && options.betas.length > 0) headers["anthropic-beta"] = options.betas.join(",");
	return headers;
}

export { ANTHROPIC_STOP_REASONS, AnthropicStreamDecoder, classifyAnthropicError } from "./decode.js";
export {
	ANTHROPIC_API,
	type AnthropicOptions,
	type AnthropicRequestBody,
	buildAnthropicRequest,
	convertMessages,
	type MessageBreakpoints,
	reasoningConfig,
	THINKING_BUDGETS,
	toAnthropicToolChoice,
} from "./request.js";
export { anthropicToolCallId } from "./tool-ids.js";
