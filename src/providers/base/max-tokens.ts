/**
 * The output-token cap of a request, the same rule on every wire API: `StreamOptions.maxTokens`, else the
 * model's `compat.defaultMaxTokens`, else no cap at all where the API lets the server choose (OpenAI Chat
 * Completions and Responses, Gemini, AI SDK models): the server's default is the model's whole output, within
 * what fits the context window. `Model.maxTokens`, the model's ceiling, is sent only to Anthropic, whose API
 * requires a cap. Sent where it is optional it would buy nothing and cost: OpenAI counts a request's cap
 * against the rate limit, and OpenAI and vLLM refuse a request whose prompt plus cap exceeds the window.
 */
import type { Model } from "../../core/model.js";

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
