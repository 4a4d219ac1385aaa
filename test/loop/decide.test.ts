import { describe, expect, it } from "vitest";
import {
	decideAfterReply,
	MAX_PAUSED_TURN_CONTINUATIONS,
	nextPausedCount,
	type ReplyFacts,
} from "../../src/loop/decide.js";

const base: ReplyFacts = {
	stopReason: "stop",
	hasToolCalls: false,
	pausedContinuations: 0,
	deadlinePassed: false,
};

describe("decideAfterReply", () => {
	const table: [string, Partial<ReplyFacts>, ReturnType<typeof decideAfterReply>][] = [
		// SPEC S1: tool calls run whatever the stop reason (toolUse and stop are both runnable)
		["toolUse with calls", { stopReason: "toolUse", hasToolCalls: true }, { type: "runTools" }],
		["stop with calls", { stopReason: "stop", hasToolCalls: true }, { type: "runTools" }],
		["stop without calls", {}, { type: "turnComplete" }],
		// SPEC S2: length with calls → placeholders, ask again; without → ends like stop
		[
			"length with calls",
			{ stopReason: "length", hasToolCalls: true },
			{ type: "placeholders", reason: "length", next: "continue" },
		],
		["length without calls", { stopReason: "length" }, { type: "turnComplete" }],
		// SPEC S3: pause_turn without calls → ask again, bounded
		["pause_turn", { stopDetails: { type: "pause_turn" } }, { type: "continuePaused" }],
		[
			"pause_turn at the bound",
			{ stopDetails: { type: "pause_turn" }, pausedContinuations: MAX_PAUSED_TURN_CONTINUATIONS },
			{ type: "turnComplete" },
		],
		[
			"pause_turn with calls runs them",
			{ stopDetails: { type: "pause_turn" }, hasToolCalls: true },
			{ type: "runTools" },
		],
		// SPEC S4: error/aborted — no tool runs, placeholders, the run ends
		[
			"error with calls",
			{ stopReason: "error", hasToolCalls: true },
			{ type: "placeholders", reason: "error", next: "end" },
		],
		["error without calls", { stopReason: "error" }, { type: "endRun" }],
		[
			"aborted with calls",
			{ stopReason: "aborted", hasToolCalls: true },
			{ type: "placeholders", reason: "aborted", next: "end" },
		],
		["aborted without calls", { stopReason: "aborted" }, { type: "endRun" }],
		// SPEC S5: a refusal is an error turn
		["refusal", { stopReason: "error", stopDetails: { type: "refusal" } }, { type: "endRun" }],
		// SPEC A7: deadline after a reply with tool calls runs none of them
		[
			"deadline after calls",
			{ stopReason: "toolUse", hasToolCalls: true, deadlinePassed: true },
			{ type: "placeholders", reason: "deadline", next: "end" },
		],
		["deadline after text", { deadlinePassed: true }, { type: "endRun" }],
		// SPEC A3/A7: the deadline aborted the request after calls finished streaming
		[
			"aborted by the deadline with calls",
			{ stopReason: "aborted", hasToolCalls: true, deadlinePassed: true },
			{ type: "placeholders", reason: "deadline", next: "end" },
		],
		[
			"provider error after the deadline",
			{ stopReason: "error", hasToolCalls: true, deadlinePassed: true },
			{ type: "placeholders", reason: "error", next: "end" },
		],
	];
	it.each(table)("%s", (_name, facts, expected) => {
		expect(decideAfterReply({ ...base, ...facts })).toEqual(expected);
	});

	it("SPEC S3: the pause counter grows per continuation and resets on a turn with tool calls", () => {
		const pause = decideAfterReply({ ...base, stopDetails: { type: "pause_turn" } });
		expect(nextPausedCount(pause, false, 3)).toBe(4);
		expect(nextPausedCount({ type: "runTools" }, true, 5)).toBe(0);
		expect(nextPausedCount({ type: "turnComplete" }, false, 5)).toBe(0);
	});
});
