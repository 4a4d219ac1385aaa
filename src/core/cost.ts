/**
 * Cost from token counts (rule M5): per-million prices of the model's price table. Shared by the providers'
 * usage normalization and the scripted model, which prices a script's counts the way a provider would.
 */
import type { UsageCost } from "./messages.js";
import type { ModelCost } from "./model.js";

/** Raw token counts, already normalized: `input` excludes `cacheRead` and `cacheWrite`. */
export interface TokenCounts {
	/** Uncached input tokens. */
	input?: number;
	/** Output tokens, reasoning included. */
	output?: number;
	/** Input tokens read from the prompt cache. */
	cacheRead?: number;
	/** Input tokens written to the prompt cache. */
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
