/**
 * Rule T6: which calls of a batch may overlap. A pure decision, tested by table; the batch applies it.
 */
import type { AgentTool, ToolConcurrency } from "./types.js";

/**
 * The scheduling class of one call: `shared` and `exclusive` per rule T6, or `none` for a call that will not
 * run at all (unknown tool, invalid arguments, pre-skipped): it neither waits nor is waited for.
 */
export type ScheduleClass = ToolConcurrency | "none";

/**
 * For each call (in message order), the indices of the calls it must wait for: a shared call waits for the
 * most recent exclusive call; an exclusive call waits for every call scheduled before it. Shared calls
 * overlap with each other. `none` calls are ignored on both sides.
 */
export function scheduleToolBatch(classes: readonly ScheduleClass[]): number[][] {
	const waits: number[][] = [];
	const scheduled: number[] = [];
	let lastExclusive: number | undefined;
	for (let index = 0; index < classes.length; index++) {
		const cls = classes[index];
		if (cls === "none") {
			waits.push([]);
			continue;
		}
		if (cls === "exclusive") {
			waits.push(scheduled.slice());
			lastExclusive = index;
		} else {
			waits.push(lastExclusive === undefined ? [] : [lastExclusive]);
		}
		scheduled.push(index);
	}
	return waits;
}

/**
 * Resolve a tool's concurrency class for validated arguments (rule T6): the declared string, or the resolver's
 * answer; default `shared`. A resolver that throws, or answers something else, means `exclusive` — when in
 * doubt, do not overlap side effects.
 */
export function resolveConcurrency(tool: AgentTool, args: Record<string, unknown>): ToolConcurrency {
	const declared = tool.concurrency;
	if (declared === undefined) return "shared";
	if (typeof declared === "string") return declared === "shared" ? "shared" : "exclusive";
	try {
		return declared(args) === "shared" ? "shared" : "exclusive";
	} catch {
		return "exclusive";
	}
}

/**
 * Whether a queued steering message may abort this call while it runs (rule T10). A resolver that throws means
 * not interruptible: a half-done side effect is worse than a late one.
 */
export function resolveInterruptible(tool: AgentTool, args: Record<string, unknown>): boolean {
	const declared = tool.interruptible;
	if (typeof declared === "function") {
		try {
			return declared(args) === true;
		} catch {
			return false;
		}
	}
	return declared === true;
}
