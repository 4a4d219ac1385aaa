/**
 * Finish reasons and usage of both specifications, normalized (rule M4, M5). V2 reports a bare reason and flat
 * token counts whose input includes cached tokens; V3 a `{ unified, raw }` reason and nested counts.
 */
import type {
	LanguageModelV2FinishReason,
	LanguageModelV2Usage,
	LanguageModelV3FinishReason,
	LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { type MappedStop, mapStopReason, type StopReasonTable } from "../providers/base/stop-reason.js";
import type { TokenCounts } from "../providers/base/usage.js";

/** Rule M4: the AI SDK's unified finish reasons; `other`, `unknown` and anything new map to `error`. */
export const AI_SDK_FINISH_REASONS: StopReasonTable = {
	stop: { reason: "stop" },
	length: { reason: "length" },
	"tool-calls": { reason: "toolUse" },
	"content-filter": {
		reason: "error",
		details: { type: "content_filter" },
		errorMessage: "the provider's content filter blocked the response",
	},
	error: {
		reason: "error",
		details: { type: "provider_error" },
		errorMessage: "the provider ended the reply with an error",
		errorKind: "server",
	},
};

/**
 * The stop for a finish reason of either version. V3's `raw` (the provider's own value, e.g. `end_turn`) is
 * kept in `stopDetails.raw` when it differs from the unified one, so nothing the provider said is lost.
 */
export function mapFinishReason(
	reason: LanguageModelV2FinishReason | LanguageModelV3FinishReason,
): MappedStop {
	const unified = typeof reason === "string" ? reason : reason.unified;
	const raw = typeof reason === "string" ? undefined : reason.raw;
	const stop = mapStopReason(unified, AI_SDK_FINISH_REASONS);
	if (raw === undefined || raw === unified) return stop;
	if (stop.details) return { ...stop, details: { ...stop.details, raw } };
	return stop;
}

/** True when a finish part's usage has any count: a server that reports none leaves every field undefined. */
export function reportsTokens(usage: LanguageModelV2Usage | LanguageModelV3Usage | undefined): boolean {
	if (!usage) return false;
	if (typeof usage.inputTokens === "object" && usage.inputTokens !== null) {
		const { inputTokens, outputTokens } = usage as LanguageModelV3Usage;
		return [...Object.values(inputTokens), ...Object.values(outputTokens ?? {})].some(
			(count) => typeof count === "number",
		);
	}
	const v2 = usage as LanguageModelV2Usage;
	return [v2.inputTokens, v2.outputTokens, v2.totalTokens].some((count) => typeof count === "number");
}

/** Rule M5: token counts with `input` excluding cached tokens, from V2 or V3 usage. */
export function normalizeUsage(usage: LanguageModelV2Usage | LanguageModelV3Usage): TokenCounts {
	if (typeof usage.inputTokens === "object" && usage.inputTokens !== null) {
		const v3 = usage as LanguageModelV3Usage;
		const cacheRead = v3.inputTokens.cacheRead ?? 0;
		const cacheWrite = v3.inputTokens.cacheWrite ?? 0;
		const input = v3.inputTokens.noCache ?? (v3.inputTokens.total ?? 0) - cacheRead - cacheWrite;
		const counts: TokenCounts = { input, output: v3.outputTokens.total ?? 0, cacheRead, cacheWrite };
		if (v3.outputTokens.reasoning !== undefined) counts.reasoning = v3.outputTokens.reasoning;
		return counts;
	}
	const v2 = usage as LanguageModelV2Usage;
	// V2's `inputTokens` includes the cached ones (`cachedInputTokens`), like OpenAI's prompt count.
	const cacheRead = v2.cachedInputTokens ?? 0;
	const counts: TokenCounts = {
		input: (v2.inputTokens ?? 0) - cacheRead,
		output: v2.outputTokens ?? 0,
		cacheRead,
	};
	if (v2.reasoningTokens !== undefined) counts.reasoning = v2.reasoningTokens;
	return counts;
}
