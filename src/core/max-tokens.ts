/**
 * The output-token cap of a request, the same rule on every wire API: `StreamOptions.maxTokens`, else the
 * model's `compat.defaultMaxTokens`, else no cap at all where the API lets the server choose (OpenAI Chat
 * Completions and Responses, Gemini, AI SDK models): the server's default is the model's whole output, within
 * what fits the context window. `Model.maxTokens`, the model's ceiling, is sent only to Anthropic, whose API
 * requires a cap. Sent where it is optional it would buy nothing and cost: OpenAI counts a request's cap
 * against the rate limit, and OpenAI and vLLM refuse a request whose prompt plus cap exceeds the window.
 *
 * Anthropic's ceiling is not clamped to the room the prompt leaves in the window: since Claude Sonnet 4.5
 * (every Claude model in `providers/models.ts`) the API accepts a prompt plus `max_tokens` beyond the window and ends a
 * reply that fills it with `model_context_window_exceeded` (decoded as `length`, rule M4), so the ceiling
 * never costs a refusal and a clamp from an estimate of the prompt could only cut a reply short. Older
 * Claude models refuse such a request (400 `input length and max_tokens exceed context limit`, classified
 * `context_overflow`) unless sent the `model-context-window-exceeded-2025-08-26` beta (the `betas` option)
 * or given a cap (`maxTokens`, `compat.defaultMaxTokens`).
 *
 * The rule lives in core because it is read on both sides of the wire: each provider applies the half its API
 * calls for, and run telemetry reports the cap a request carried (`gen_ai.request.max_tokens`) through
 * {@link requestMaxTokens}, without loading any provider.
 */
import type { KnownApi, Model } from "./model.js";

/** The model's own default cap (`compat.defaultMaxTokens`), when it is a whole number above 0. */
function defaultCap(model: Model): number | undefined {
	const cap = model.compat?.defaultMaxTokens;
	return typeof cap === "number" && Number.isInteger(cap) && cap > 0 ? cap : undefined;
}

/** The cap for an API where it is optional: `undefined` sends none, and the server's default applies. */
export function optionalMaxTokens(model: Model, maxTokens: number | undefined): number | undefined {
	return maxTokens ?? defaultCap(model);
}

/** The cap for an API that requires one (Anthropic): the optional cap, else the model's `maxTokens`. */
export function requiredMaxTokens(model: Model, maxTokens: number | undefined): number {
	return optionalMaxTokens(model, maxTokens) ?? model.maxTokens;
}

/** The wire APIs whose requests must carry a cap, so the model's ceiling goes out when nothing else is set. */
const CAP_REQUIRED: ReadonlySet<string> = new Set<KnownApi>(["anthropic-messages"]);

/**
 * The cap a request to `model` carries when its built-in provider serves it (by `model.api`), `undefined`
 * when it carries none: what telemetry reports as the request's max tokens.
 */
export function requestMaxTokens(model: Model, maxTokens: number | undefined): number | undefined {
	return CAP_REQUIRED.has(model.api)
		? requiredMaxTokens(model, maxTokens)
		: optionalMaxTokens(model, maxTokens);
}
