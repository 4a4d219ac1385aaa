import { emptyUsage, type Usage } from "../core/messages.js";
import type { ModelCallRecord, RunCoverage, RunSummary, ToolCallRecord } from "../protocol/telemetry.js";
import type { ToolCallStatus } from "../tools/types.js";

/** The totals of a run from its records (rule X3). Pure: the collector calls it once, at `agent_end`. */
export function summarizeRun(
	records: { modelCalls: ModelCallRecord[]; toolCalls: ToolCallRecord[] },
	turns: number,
	wallTimeMs: number,
): RunSummary {
	const usage = emptyUsage();
	let failedModelCalls = 0;
	let modelTimeMs = 0;
	for (const call of records.modelCalls) {
		addUsage(usage, call.usage);
		modelTimeMs += call.latencyMs;
		if (call.stopReason === "error" || call.stopReason === "aborted") failedModelCalls++;
	}
	const toolCallsByStatus: Record<ToolCallStatus, number> = {
		ok: 0,
		error: 0,
		skipped: 0,
		blocked: 0,
		aborted: 0,
		interrupted: 0,
	};
	let toolTimeMs = 0;
	for (const call of records.toolCalls) {
		toolCallsByStatus[call.status]++;
		toolTimeMs += call.latencyMs;
	}
	return {
		wallTimeMs,
		turns,
		modelCalls: records.modelCalls.length,
		failedModelCalls,
		modelTimeMs,
		toolCalls: records.toolCalls.length,
		toolCallsByStatus,
		toolTimeMs,
		usage,
		cost: usage.cost.total,
		records,
	};
}

/** What the run used of what it was offered (rule X3). */
export function coverageOf(
	toolsOffered: readonly string[],
	records: { modelCalls: ModelCallRecord[]; toolCalls: ToolCallRecord[] },
): RunCoverage {
	const offered = unique(toolsOffered);
	const offeredSet = new Set(offered);
	const called = new Set(records.toolCalls.map((call) => call.name));
	// Offered order, not completion order: concurrent calls settle in whatever order they finish.
	const unknown = [...called].filter((name) => !offeredSet.has(name));
	return {
		toolsOffered: offered,
		toolsInvoked: [...offered.filter((name) => called.has(name)), ...unknown],
		toolsNeverUsed: offered.filter((name) => !called.has(name)),
		unknownToolsCalled: unknown,
		models: unique(records.modelCalls.map((call) => call.model)),
		providers: unique(records.modelCalls.map((call) => call.provider)),
	};
}

/**
 * Add `next` into `total` in place; `reasoning`, `priceUnknown` and `unknown` appear once any call reports
 * them (an unknown call adds its placeholder zeros, and the total says it is a lower bound).
 */
function addUsage(total: Usage, next: Usage): void {
	total.input += next.input;
	total.output += next.output;
	total.cacheRead += next.cacheRead;
	total.cacheWrite += next.cacheWrite;
	total.totalTokens += next.totalTokens;
	if (next.reasoning !== undefined) total.reasoning = (total.reasoning ?? 0) + next.reasoning;
	if (next.priceUnknown) total.priceUnknown = true;
	// One call whose usage never arrived makes the total a lower bound, not an exact figure.
	if (next.unknown) total.unknown = true;
	if (next.unknown || next.cost.unknown) total.cost.unknown = true;
	total.cost.input += next.cost.input;
	total.cost.output += next.cost.output;
	total.cost.cacheRead += next.cost.cacheRead;
	total.cost.cacheWrite += next.cost.cacheWrite;
	total.cost.total += next.cost.total;
}

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}
