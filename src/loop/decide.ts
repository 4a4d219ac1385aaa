import type { StopDetails, StopReason } from "../core/messages.js";

/** rule S3: an endlessly pausing backend costs 1 + 8 calls, then the run ends. */
export const MAX_PAUSED_TURN_CONTINUATIONS = 8;

/** What the loop does with a committed assistant reply (rule S1–S5, A7). */
export type ReplyDecision =
	/** S1: run the batch, then ask the model again. */
	| { type: "runTools" }
	/** S2/S4/A7: pair every call with a placeholder; `next` says whether the model is asked again. */
	| { type: "placeholders"; reason: "length"; next: "continue" }
	| { type: "placeholders"; reason: "error" | "aborted" | "deadline"; next: "end" }
	/** S3: ask again without injecting anything. */
	| { type: "continuePaused" }
	/** No tool calls and nothing to resume: the inner loop may end (unless Pending revives it). */
	| { type: "turnComplete" }
	/** S4: error/abort without tool calls — the run ends. */
	| { type: "endRun" };

/** Everything `decideAfterReply` looks at. */
export interface ReplyFacts {
	stopReason: StopReason;
	stopDetails?: StopDetails;
	hasToolCalls: boolean;
	/** Consecutive pause_turn continuations so far (before this reply). */
	pausedContinuations: number;
	/** rule A7: the deadline passed after the reply was received. */
	deadlinePassed: boolean;
}

/** rule S1–S5 and A7 as one pure function of the reply's facts. */
export function decideAfterReply(facts: ReplyFacts): ReplyDecision {
	const { stopReason, hasToolCalls } = facts;
	if (stopReason === "error" || stopReason === "aborted") {
		if (!hasToolCalls) return { type: "endRun" };
		// Rule A3/A7: a request the deadline aborted pairs its calls with the deadline placeholder, as a batch
		// the deadline cuts off does.
		const reason = stopReason === "aborted" && facts.deadlinePassed ? "deadline" : stopReason;
		return { type: "placeholders", reason, next: "end" };
	}
	if (facts.deadlinePassed) {
		return hasToolCalls ? { type: "placeholders", reason: "deadline", next: "end" } : { type: "endRun" };
	}
	if (stopReason === "length") {
		return hasToolCalls
			? { type: "placeholders", reason: "length", next: "continue" }
			: { type: "turnComplete" };
	}
	if (hasToolCalls) return { type: "runTools" };
	if (facts.stopDetails?.type === "pause_turn" && facts.pausedContinuations < MAX_PAUSED_TURN_CONTINUATIONS) {
		return { type: "continuePaused" };
	}
	return { type: "turnComplete" };
}

/** rule S3: the pause counter resets whenever a turn carries tool calls and grows on each continuation. */
export function nextPausedCount(decision: ReplyDecision, hasToolCalls: boolean, current: number): number {
	if (hasToolCalls) return 0;
	return decision.type === "continuePaused" ? current + 1 : 0;
}
