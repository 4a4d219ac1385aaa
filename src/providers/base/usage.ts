/**
 * Usage normalization and cost (rule M5). Every provider converts its own counters into `TokenCounts` where
 * `input` already EXCLUDES cached tokens (Anthropic reports it that way; OpenAI and Gemini include cached
 * tokens in their prompt count and the provider subtracts them). Cost comes from the model's per-million
 * prices; a model whose prices are all zero is marked `priceUnknown` with zero cost.
 */
import { computeCost, isPriceUnknown, type TokenCounts } from "../../core/cost.js";
import type { Usage } from "../../core/messages.js";
import type { Model } from "../../core/model.js";

export { computeCost, isPriceUnknown, type TokenCounts } from "../../core/cost.js";

/** Build a full `Usage` (totals and cost) from normalized counts for `model`. */
export function buildUsage(counts: TokenCounts, model: Pick<Model, "cost">): Usage {
	const input = nonNegative(counts.input);
	const output = nonNegative(counts.output);
	const cacheRead = nonNegative(counts.cacheRead);
	const cacheWrite = nonNegative(counts.cacheWrite);
	const usage: Usage = {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: computeCost({ input, output, cacheRead, cacheWrite }, model.cost),
	};
	if (counts.reasoning !== undefined) usage.reasoning = nonNegative(counts.reasoning);
	if (isPriceUnknown(model.cost)) usage.priceUnknown = true;
	return usage;
}

function nonNegative(value: number | undefined): number {
	return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
