// How a run ends (SPEC L12, A1, A7, X1, X6) is one pure decision of what ended it: this is its table.
import { describe, expect, it } from "vitest";
import type { RunOutcome } from "../../src/index.js";
import { decideOutcome, nextEnding, type RunEnding, type StopFacts } from "../../src/loop/outcome.js";

const calm: StopFacts = { aborted: false, deadlineAbort: false, deadlinePassed: false, abortReason: "" };
const aborted: StopFacts = { ...calm, aborted: true, abortReason: "user cancelled" };
const deadlineFired: StopFacts = {
	aborted: true,
	deadlineAbort: true,
	deadlinePassed: true,
	abortReason: "Deadline exceeded",
};
const clockPast: StopFacts = { ...calm, deadlinePassed: true };
const turn = (stopReason: "stop" | "error" | "aborted" | "toolUse", stop: StopFacts, errorMessage?: string) =>
	({ type: "turnEnded", stopReason, errorMessage, stop }) as const;

describe("decideOutcome (SPEC L12)", () => {
	const table: [string, RunEnding, RunOutcome][] = [
		// SPEC X6 / X1 / L12: the ending names the outcome.
		["gate with a reason", { type: "gate", reason: "budget" }, { type: "completed", stoppedBy: "budget" }],
		[
			"gate without a reason",
			{ type: "gate", reason: undefined },
			{ type: "completed", stoppedBy: "beforeModelCall" },
		],
		[
			"soft requirement failed",
			{ type: "softRequirementFailed", error: "no plan" },
			{ type: "error", error: "no plan" },
		],
		["thrown inside the loop", { type: "failure", error: "boom" }, { type: "error", error: "boom" }],
		// SPEC L8/A7: the check before a turn — the clock counts.
		[
			"before a turn: deadline by the clock",
			{ type: "stoppedBeforeTurn", stop: clockPast },
			{ type: "deadline" },
		],
		[
			"before a turn: deadline abort",
			{ type: "stoppedBeforeTurn", stop: deadlineFired },
			{ type: "deadline" },
		],
		[
			"before a turn: abort",
			{ type: "stoppedBeforeTurn", stop: aborted },
			{ type: "aborted", reason: "user cancelled" },
		],
		[
			"before a turn: clock past and aborted → deadline wins",
			{ type: "stoppedBeforeTurn", stop: { ...aborted, deadlinePassed: true } },
			{ type: "deadline" },
		],
		// SPEC S4/A1/A7: a turn ended the run.
		["turn: error reply", turn("error", calm, "503"), { type: "error", error: "503" }],
		[
			"turn: error reply without text",
			turn("error", calm),
			{ type: "error", error: "the model call failed" },
		],
		[
			"turn: error reply, clock past → still error",
			turn("error", clockPast, "503"),
			{ type: "error", error: "503" },
		],
		[
			"turn: error reply caused by the deadline abort",
			turn("error", deadlineFired, "x"),
			{ type: "deadline" },
		],
		// SPEC A1, A5: an error reply the abort came before ends aborted, with the abort's reason, not the error's.
		[
			"turn: error reply, signal aborted",
			turn("error", aborted, "rate limited"),
			{ type: "aborted", reason: "user cancelled" },
		],
		["turn: aborted reply", turn("aborted", aborted, "stopped"), { type: "aborted", reason: "stopped" }],
		[
			"turn: aborted reply without text",
			turn("aborted", aborted),
			{ type: "aborted", reason: "user cancelled" },
		],
		[
			"turn: aborted during the batch",
			turn("toolUse", aborted),
			{ type: "aborted", reason: "user cancelled" },
		],
		["turn: clean reply, clock past", turn("stop", clockPast), { type: "deadline" }],
		[
			"turn: aborted reply, deadline fired",
			turn("aborted", deadlineFired, "Deadline exceeded"),
			{ type: "deadline" },
		],
		// The run ran out of work: only the signal decides, never the clock.
		["finished", { type: "finished", stop: calm }, { type: "completed" }],
		[
			"finished after an abort",
			{ type: "finished", stop: aborted },
			{ type: "aborted", reason: "user cancelled" },
		],
		["finished after the deadline fired", { type: "finished", stop: deadlineFired }, { type: "deadline" }],
	];
	it.each(table)("%s", (_name, ending, outcome) => {
		expect(decideOutcome(ending)).toEqual(outcome);
	});
});

describe("nextEnding: which ending counts", () => {
	const gate: RunEnding = { type: "gate", reason: "x" };
	const failure: RunEnding = { type: "failure", error: "boom" };
	const finished: RunEnding = { type: "finished", stop: calm };

	it.each([
		["the first ending is kept", gate, finished, gate],
		["a failure replaces an earlier ending (SPEC L12 closes the run)", gate, failure, failure],
		["nothing before: the new ending", undefined, finished, finished],
	] as const)("%s", (_name, previous, ending, expected) => {
		expect(nextEnding(previous, ending)).toBe(expected);
	});
});
