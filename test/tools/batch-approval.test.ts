/**
 * SPEC T14, T16 at the batch: which plan a call gets from `needsApproval` and a decision, as a table over the
 * real `runToolBatch` — parked calls come back in `awaitingApproval` with no events and no result.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalDecision } from "../../src/tools/approval.js";
import type { AgentTool } from "../../src/tools/types.js";
import { batchHarness } from "./harness.js";

const ran: string[] = [];
const tool = (name: string, needsApproval: AgentTool["needsApproval"]): AgentTool => ({
	name,
	description: name,
	parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
	needsApproval,
	execute: async (id) => {
		ran.push(id);
		return { content: [{ type: "text", text: "ran" }] };
	},
});

type Row = [
	what: string,
	needsApproval: AgentTool["needsApproval"],
	args: Record<string, unknown>,
	decision: ApprovalDecision | undefined,
	expected: "parked" | "ok" | "blocked" | "error",
];

const table: Row[] = [
	["no declaration runs", undefined, { n: 1 }, undefined, "ok"],
	["false runs", false, { n: 1 }, undefined, "ok"],
	["true parks", true, { n: 1 }, undefined, "parked"],
	["a function answering false runs", (a: { n: number }) => a.n > 5, { n: 1 }, undefined, "ok"],
	["a function answering true parks", (a: { n: number }) => a.n > 5, { n: 9 }, undefined, "parked"],
	[
		"a throwing function parks",
		() => {
			throw new Error("x");
		},
		{ n: 1 },
		undefined,
		"parked",
	],
	["a non-boolean answer parks", () => "yes" as unknown as boolean, { n: 1 }, undefined, "parked"],
	["approved runs", true, { n: 1 }, { approved: true }, "ok"],
	["denied is blocked", true, { n: 1 }, { approved: false, reason: "no" }, "blocked"],
	["invalid arguments are rejected, never parked", true, { n: "one" }, undefined, "error"],
];

describe("needsApproval and decisions at the batch (table)", () => {
	it.each(table)("SPEC T14, T16: %s", async (_what, needsApproval, args, decision, expected) => {
		ran.length = 0;
		const { run, events } = batchHarness([["c1", "t", args]], [tool("t", needsApproval)], {
			...(decision ? { decisions: { c1: decision } } : {}),
		});
		const batch = await run();
		if (expected === "parked") {
			expect(batch.awaitingApproval).toEqual([{ toolCallId: "c1", toolName: "t", args }]);
			expect(batch.results).toEqual([]);
			expect(events).toEqual([]);
			expect(ran).toEqual([]);
			return;
		}
		expect(batch.awaitingApproval).toEqual([]);
		expect(batch.statuses).toEqual([expected]);
		expect(ran).toEqual(expected === "ok" ? ["c1"] : []);
	});

	it("SPEC T14, A1: an aborted batch settles a parked call with the abort placeholder", async () => {
		const { run, controller } = batchHarness([["c1", "t", { n: 1 }]], [tool("t", true)]);
		controller.abort("stop");
		const batch = await run();
		expect(batch.awaitingApproval).toEqual([]);
		expect(batch.statuses).toEqual(["aborted"]);
		expect(batch.results[0]?.details).toEqual({ synthetic: true, reason: "aborted", executed: false });
	});
});

describe("pending approvals are plain JSON (SPEC T15)", () => {
	it("a schema's transforms do not put a BigInt or a Date into the pending arguments", async () => {
		const pay: AgentTool = {
			name: "pay",
			description: "pay",
			parameters: z.object({ cents: z.string().transform((text) => BigInt(text)), at: z.coerce.date() }),
			needsApproval: true,
			execute: async () => ({ content: [{ type: "text", text: "paid" }] }),
		};
		const { run } = batchHarness([["c1", "pay", { cents: "1250", at: "2026-01-02T00:00:00.000Z" }]], [pay]);
		const batch = await run();
		const pending = [
			{ toolCallId: "c1", toolName: "pay", args: { cents: "1250", at: "2026-01-02T00:00:00.000Z" } },
		];
		expect(batch.awaitingApproval).toStrictEqual(pending);
		expect(JSON.parse(JSON.stringify(batch.awaitingApproval))).toStrictEqual(pending);
	});
});
