import type { AssistantMessage, StopReason } from "../core/messages.js";
import type { RunOutcome } from "../protocol/outcome.js";
import type { PendingApproval } from "../tools/approval.js";

/** The run signal at one moment, classified once (rule A1, A7). Read by `signalFacts`. */
export interface SignalFacts {
	/** The run signal fired (external abort or deadline). */
	aborted: boolean;
	/** The run signal fired because of the deadline. */
	deadlineAbort: boolean;
	/** The abort reason as text (rule A4), when `aborted`. */
	abortReason: string;
}

/** `SignalFacts` plus the injected clock (the clock counts, not only the timer: rule A7). Read by `stopFacts`. */
export interface StopFacts extends SignalFacts {
	/** The deadline passed: its abort fired, or the clock is at or past it. */
	deadlinePassed: boolean;
}

/**
 * What ended a run, as the loop saw it at that moment (rule L12). The loop records an ending where it stops;
 * `decideOutcome` turns the recorded ending into the run's `RunOutcome`, once, at `agent_end`.
 */
export type RunEnding =
	/** rule L8: the deadline/abort check that opens every loop step stopped the run. */
	| { type: "stoppedBeforeTurn"; stop: StopFacts }
	/** rule X6: `beforeModelCall` returned `{stop: true}`. */
	| { type: "gate"; reason: string | undefined }
	/** rule X1: the soft requirement failed after its forced turns. */
	| { type: "softRequirementFailed"; error: string }
	/** A turn ended the run (rule S4, A1, A7): the reply's stop reason and the signal when the turn ended. */
	| { type: "turnEnded"; stopReason: StopReason; errorMessage: string | undefined; stop: StopFacts }
	/** rule L12: something threw inside the loop. */
	| { type: "failure"; error: string }
	/** rule T15: the batch parked calls that need approval; the run ends to wait for the decisions. */
	| { type: "awaitingApproval"; pending: PendingApproval[] }
	/**
	 * The run ran out of work (or a hook was abandoned on abort): only the signal decides. No clock read at
	 * the very end, so a host's clock sees the same calls as before.
	 */
	| { type: "finished"; stop: SignalFacts };

/**
 * The ending a reply that stops the run records (rule S4, A1, A7), with the signal as it is now. A failed
 * reply records it as it is committed, before subscribers see its `message_end`: the run ended there, so an
 * abort from one of them comes after and does not change how it ended (the first ending counts).
 */
export function replyEnding(reply: AssistantMessage, stop: StopFacts): RunEnding {
	return { type: "turnEnded", stopReason: reply.stopReason, errorMessage: reply.errorMessage, stop };
}

/**
 * Which ending counts when a run records more than one: the first, except that a failure closing the run
 * (rule L12) replaces whatever came before it.
 */
export function nextEnding(previous: RunEnding | undefined, ending: RunEnding): RunEnding {
	if (previous === undefined || ending.type === "failure") return ending;
	return previous;
}

/** Record why the run ends, by `nextEnding`'s rule. The only write of the run's ending. */
export function recordEnding(run: { ending: RunEnding | undefined }, ending: RunEnding): void {
	run.ending = nextEnding(run.ending, ending);
}

/** rule L12, A1, A7, X1, X6, T15: how a run ended, as one pure function of its ending. */
export function decideOutcome(ending: RunEnding): RunOutcome {
	switch (ending.type) {
		case "gate":
			return { type: "completed", stoppedBy: ending.reason ?? "beforeModelCall" };
		case "awaitingApproval":
			return { type: "awaiting_approval", pending: ending.pending };
		case "softRequirementFailed":
		case "failure":
			return { type: "error", error: ending.error };
		case "stoppedBeforeTurn": {
			// The clock alone counts here: a deadline that passed between steps stops the run as `deadline`.
			const { stop } = ending;
			if (stop.deadlinePassed) return { type: "deadline" };
			return stop.aborted ? { type: "aborted", reason: stop.abortReason } : { type: "completed" };
		}
		case "turnEnded": {
			const { stop, stopReason } = ending;
			// An errored reply keeps its error unless the deadline's own abort caused it.
			if (stop.deadlineAbort || (stopReason !== "error" && stop.deadlinePassed)) return { type: "deadline" };
			// An aborted reply's error text is the abort's reason (rule A1); any other reply's is not (rule A5).
			if (stopReason === "aborted")
				return { type: "aborted", reason: ending.errorMessage ?? stop.abortReason };
			if (stop.aborted) return { type: "aborted", reason: stop.abortReason };
			return { type: "error", error: ending.errorMessage ?? "the model call failed" };
		}
		case "finished": {
			const { stop } = ending;
			if (stop.deadlineAbort) return { type: "deadline" };
			return stop.aborted ? { type: "aborted", reason: stop.abortReason } : { type: "completed" };
		}
	}
}
