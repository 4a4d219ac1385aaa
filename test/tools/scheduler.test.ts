import { describe, expect, it } from "vitest";
import {
	resolveConcurrency,
	resolveInterruptible,
	type ScheduleClass,
	scheduleToolBatch,
} from "../../src/tools/scheduler.js";
import type { AgentTool } from "../../src/tools/types.js";

const S = "shared";
const X = "exclusive";
const N = "none";

describe("scheduleToolBatch", () => {
	// SPEC T6: a shared call waits for the most recent exclusive; an exclusive waits for everything before it.
	const table: [string, ScheduleClass[], number[][]][] = [
		["empty batch", [], []],
		["shared calls overlap", [S, S, S], [[], [], []]],
		["[slow shared A, fast shared B, exclusive C]", [S, S, X], [[], [], [0, 1]]],
		["exclusive first, then shared", [X, S, S], [[], [0], [0]]],
		["exclusives chain", [X, X, X], [[], [0], [0, 1]]],
		["shared waits only for the most recent exclusive", [S, X, S, X, S], [[], [0], [1], [0, 1, 2], [3]]],
		["none neither waits nor is waited for", [N, S, N, X, N, S], [[], [], [], [1], [], [3]]],
		["only none", [N, N], [[], []]],
	];
	it.each(table)("%s", (_name, classes, expected) => {
		expect(scheduleToolBatch(classes)).toEqual(expected);
	});
});

function tool(extra: Partial<AgentTool>): AgentTool {
	return {
		name: "t",
		description: "t",
		parameters: { type: "object" },
		execute: async () => ({ content: [] }),
		...extra,
	};
}

describe("resolveConcurrency", () => {
	// SPEC T6: string, resolver of args, default shared, a throwing resolver means exclusive.
	const table: [string, Partial<AgentTool>, ToolArgs, "shared" | "exclusive"][] = [
		["default", {}, {}, "shared"],
		["declared shared", { concurrency: "shared" }, {}, "shared"],
		["declared exclusive", { concurrency: "exclusive" }, {}, "exclusive"],
		[
			"resolver of args (write)",
			{ concurrency: (args: ToolArgs) => (args.write ? "exclusive" : "shared") },
			{ write: true },
			"exclusive",
		],
		[
			"resolver of args (read)",
			{ concurrency: (args: ToolArgs) => (args.write ? "exclusive" : "shared") },
			{ write: false },
			"shared",
		],
		[
			"resolver throws",
			{
				concurrency: () => {
					throw new Error("boom");
				},
			},
			{},
			"exclusive",
		],
	];
	it.each(table)("%s", (_name, extra, args, expected) => {
		expect(resolveConcurrency(tool(extra), args)).toBe(expected);
	});
});

type ToolArgs = Record<string, unknown>;

describe("resolveInterruptible", () => {
	// SPEC T10: boolean or function of args; default false; a throwing resolver means not interruptible.
	const table: [string, Partial<AgentTool>, boolean][] = [
		["default", {}, false],
		["true", { interruptible: true }, true],
		["false", { interruptible: false }, false],
		["function", { interruptible: (args: ToolArgs) => args.long === true }, true],
		[
			"throwing function",
			{
				interruptible: () => {
					throw new Error("x");
				},
			},
			false,
		],
	];
	it.each(table)("%s", (_name, extra, expected) => {
		expect(resolveInterruptible(tool(extra), { long: true })).toBe(expected);
	});
});
