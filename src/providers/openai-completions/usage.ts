/**
 * Chat Completions usage → `TokenCounts` (rule M5). Servers report the same facts in different places:
 * `prompt_tokens` includes cached tokens (`prompt_tokens_details.cached_tokens`, DeepSeek's
 * `prompt_cache_hit_tokens`) and cache writes (OpenRouter's `cache_write_tokens`), which are subtracted so
 * `input` excludes them; reasoning tokens come from `completion_tokens_details`.
 */
import type { TokenCounts } from "../base/usage.js";
import type { CompletionUsage } from "./wire.js";

/** A usage object as compatible servers send it: OpenAI's shape plus vendor extras, all optional. */
export type WireUsage = Partial<
	Omit<CompletionUsage, "prompt_tokens_details" | "completion_tokens_details">
> & {
	prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
	completion_tokens_details?: { reasoning_tokens?: number | null } | null;
	/** DeepSeek. */
	prompt_cache_hit_tokens?: number | null;
};

function count(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Normalized counts. xAI leaves reasoning tokens out of `completion_tokens` (its `total_tokens` is prompt +
 * completion + reasoning); where the totals show that, reasoning is added to `output` so `output` means the
 * same thing on every server (all generated tokens, reasoning included).
 */
export function normalizeUsage(usage: WireUsage): TokenCounts {
	const prompt = count(usage.prompt_tokens) ?? 0;
	const completion = count(usage.completion_tokens) ?? 0;
	const cacheRead =
		count(usage.prompt_tokens_details?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens) ?? 0;
	const cacheWrite = count(usage.prompt_tokens_details?.cache_write_tokens) ?? 0;
	const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
	const total = count(usage.total_tokens);
	const reasoningOutsideCompletion =
		reasoning !== undefined &&
		reasoning > 0 &&
		total === prompt + completion + reasoning &&
		total !== prompt + completion;
	const counts: TokenCounts = {
		input: Math.max(0, prompt - cacheRead - cacheWrite),
		output: reasoningOutsideCompletion ? completion + reasoning : completion,
		cacheRead,
		cacheWrite,
	};
	if (reasoning !== undefined) counts.reasoning = reasoning;
	return counts;
}

/** True when `value` looks like a usage object (a later `"usage": null` is not one and erases nothing). */
export function isWireUsage(value: unknown): value is WireUsage {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
	const record = value as Record<string, unknown>;
	return typeof record.prompt_tokens === "number" || typeof record.completion_tokens === "number";
}
