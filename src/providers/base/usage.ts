/**
 * Usage normalization and cost (rule M5). Every provider converts its own counters into `TokenCounts` where
 * `input` already EXCLUDES cached tokens (Anthropic reports it that way; OpenAI and Gemini include cached
 * tokens in their prompt count and the provider subtracts them). Cost comes from the model's per-million
 * prices; a model whose prices are all zero is marked `priceUnknown` with zero cost.
 */
import type { Usage, UsageCost } from "../../core/messages.js";
import type { Model, ModelCost } from "../../core/model.js";

/** Raw token counts, already normalized: `input` excludes `cacheRead` and `cacheWrite`. */
export interface TokenCounts {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
	/** Reasoning tokens, when reported; informational (already part of `output`). */
	reasoning?: number;
}

/** True when the model has no usable price table (all prices zero). */
export function isPriceUnknown(cost: ModelCost): boolean {
	return cost.input === 0 && cost.output === 0 && cost.cacheRead === 0 && cost.cacheWrite === 0;
}

/** Cost of normalized counts under per-million prices. */
export function computeCost(counts: TokenCounts, cost: ModelCost): UsageCost {
	const perToken = (tokens: number | undefined, price: number): number => ((tokens ?? 0) * price) / 1_000_000;
	const input = perToken(counts.input, cost.input);
	const output = perToken(counts.output, cost.output);
	const cacheRead = perToken(counts.cacheRead, cost.cacheRead);
	const cacheWrite = perToken(counts.cacheWrite, cost.cacheWrite);
	return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

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
