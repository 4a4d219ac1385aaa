// Tool approvals inside durable runs (SPEC T15, T16): a run pauses with its pending calls in the result, and a
// new durable run whose input carries the decisions resumes the batch — replay-stable, the tool run once.
import { describe, expect, it } from "vitest";
import {
	DurableInputError,
	type DurableRunInput,
	type DurableRunResult,
	MemoryJournal,
	runDurableAgent,
} from "../../src/durable/index.js";
import { user } from "../support/run.js";
import { counter, countingAgent, toolResult } from "./support/agent.js";

const input: DurableRunInput = { prompts: [user("pay the bill")] };

/** The first durable run, paused before `charge`; its result crosses a process boundary as JSON. */
async function pausedRun(count: (key: string) => void): Promise<DurableRunResult> {
	const agent = countingAgent({ count, chargeNeedsApproval: true });
	const result = await runDurableAgent(agent, input, new MemoryJournal().attempt());
	return JSON.parse(JSON.stringify(result)) as DurableRunResult;
}

describe("durable core: tool approvals", () => {
	it("SPEC T15: a paused run's result carries the pending calls as JSON, and the charge has not run", async () => {
		const { counts, count } = counter();
		const paused = await pausedRun(count);
		expect(paused.outcome).toEqual({
			type: "awaiting_approval",
			pending: [{ toolCallId: "t2", toolName: "charge", args: { amount: 5 } }],
		});
		expect(counts.get("tool:t2")).toBeUndefined();
		expect(paused.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "toolUse" });
	});

	it("SPEC T16: decisions in the input resume the batch; a crash after the approval replays without re-running it", async () => {
		const { counts, count } = counter();
		const paused = await pausedRun(count);
		const resume: DurableRunInput = {
			messages: paused.messages,
			prompts: [],
			approvals: { t2: { approved: true } },
		};
		const journal = new MemoryJournal();
		let reached!: () => void;
		const atReceipt = new Promise<void>((resolve) => (reached = resolve));
		// The resumed run dies after the approved charge and the next model call, inside the last lookup.
		const first = journal.attempt((name) => name === "t3");
		const agent = (inside?: boolean) =>
			countingAgent({
				count,
				chargeNeedsApproval: true,
				...(inside ? { insideLookup: async (id) => (id === "t3" ? reached() : undefined) } : {}),
			});
		void runDurableAgent(agent(true), resume, first);
		await atReceipt;
		const second = journal.attempt();
		const result = await runDurableAgent(agent(), resume, second);

		expect(result.outcome).toEqual({ type: "completed" });
		expect(counts.get("tool:t2")).toBe(1); // approved once, run once, across the crash
		expect(first.executed).toContain("t2");
		expect(second.executed).not.toContain("t2");
		expect(toolResult(result, "t2")).toMatchObject({ isError: false, content: [{ text: "charged 5" }] });
		expect(result.messages.slice(0, paused.messages.length)).toEqual(paused.messages);
		expect(result.added.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "All done." }] });
	});

	it("SPEC T16: a denied call is not run and the model reads why", async () => {
		const { counts, count } = counter();
		const paused = await pausedRun(count);
		const result = await runDurableAgent(
			countingAgent({ count, chargeNeedsApproval: true }),
			{
				messages: paused.messages,
				prompts: [],
				approvals: { t2: { approved: false, reason: "over budget" } },
			},
			new MemoryJournal().attempt(),
		);
		expect(counts.get("tool:t2")).toBeUndefined();
		const denied = toolResult(result, "t2");
		expect(denied?.isError).toBe(true);
		expect(denied?.content).toEqual([{ type: "text", text: expect.stringContaining("over budget") }]);
		expect(denied?.details).toEqual({ synthetic: true, reason: "denied", executed: false });
		expect(result.outcome).toEqual({ type: "completed" });
	});

	it("SPEC T16: undecided calls pause again, with the same pending list", async () => {
		const { count } = counter();
		const paused = await pausedRun(count);
		const again = await runDurableAgent(
			countingAgent({ count, chargeNeedsApproval: true }),
			{ messages: paused.messages, prompts: [] },
			new MemoryJournal().attempt(),
		);
		expect(again.outcome).toEqual(paused.outcome);
	});

	it("SPEC T16, T17: input no attempt can run fails with DurableInputError before any step is journaled", async () => {
		const { count } = counter();
		const paused = await pausedRun(count);
		const agent = countingAgent({ count, chargeNeedsApproval: true });
		const bad: [DurableRunInput, RegExp][] = [
			[
				{ messages: paused.messages, prompts: [], approvals: { nope: { approved: true } } },
				/no unanswered tool call "nope".*awaiting: t2/,
			],
			[
				{ messages: paused.messages, prompts: [], approvals: { t2: { approved: "yes" } as never } },
				/decision for "t2"/,
			],
			[{ messages: paused.messages, prompts: [user("and?")] }, /tool calls that have no results \(t2\)/],
			[
				{ messages: paused.messages, prompts: [user("and?")], approvals: { t2: { approved: true } } },
				/no `prompts`/,
			],
			[{ messages: [], prompts: [], approvals: {} }, /context is empty/],
			[
				{ messages: paused.messages.slice(0, 1), prompts: [], approvals: { t2: { approved: true } } },
				/no call awaits approval \(decisions on t2\)/,
			],
		];
		for (const [badInput, message] of bad) {
			const journal = new MemoryJournal();
			const run = runDurableAgent(agent, badInput, journal.attempt());
			await expect(run).rejects.toThrow(DurableInputError);
			await expect(run).rejects.toThrow(message);
			expect(journal.recorded).toEqual([]);
		}
	});
});
