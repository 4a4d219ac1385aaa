/**
 * SPEC T14–T16, I1: over random batches that mix calls needing approval with normal ones (shared and
 * exclusive), a pause parks exactly the calls that need approval, everything else settles, and a resume with
 * random decisions runs each approved call once, never a denied one, and leaves every call paired.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	type AgentEvent,
	type AgentTool,
	type ApprovalDecision,
	agentLoopContinue,
	type ToolResultMessage,
} from "../../src/index.js";
import { scriptedModel, textReply } from "../../src/testing/index.js";
import { echoTool, runScript } from "../support/run.js";
import { assertBalanced, assertPaired, collect } from "../support/trace.js";

interface PlannedCall {
	needsApproval: boolean;
	exclusive: boolean;
	approve: boolean;
}

const plannedCall: fc.Arbitrary<PlannedCall> = fc.record({
	needsApproval: fc.boolean(),
	exclusive: fc.boolean(),
	approve: fc.boolean(),
});

function toolsFor(log: string[]): AgentTool[] {
	const shape = (needsApproval: boolean, exclusive: boolean) =>
		echoTool(`${needsApproval ? "ask" : "free"}_${exclusive ? "x" : "s"}`, {
			needsApproval,
			concurrency: exclusive ? "exclusive" : "shared",
			log,
		});
	return [shape(true, true), shape(true, false), shape(false, true), shape(false, false)];
}

const executionIds = (events: AgentEvent[]) =>
	events
		.filter((e) => e.type === "tool_execution_start")
		.map((e) => (e as { toolCallId: string }).toolCallId);

describe("approval batches (property)", () => {
	it("SPEC T14, T15, T16, I1: pause parks exactly the guarded calls; resume pairs every call", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(plannedCall, { minLength: 1, maxLength: 6 }), async (plan) => {
				const log: string[] = [];
				const tools = toolsFor(log);
				const content = plan.map((c, i) => ({
					type: "toolCall" as const,
					name: `${c.needsApproval ? "ask" : "free"}_${c.exclusive ? "x" : "s"}`,
					arguments: { text: String(i) },
				}));
				const first = await runScript([{ content }, textReply("after")], { tools });
				assertBalanced(first.events);
				const ids = plan.map((_, i) => `call_${i + 1}`);
				const guarded = ids.filter((_, i) => plan[i]?.needsApproval);
				const free = ids.filter((_, i) => !plan[i]?.needsApproval);
				const end = first.events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
				if (guarded.length === 0) {
					expect(end.outcome.type).toBe("completed");
					return;
				}
				expect(
					end.outcome.type === "awaiting_approval" && end.outcome.pending.map((p) => p.toolCallId),
				).toEqual(guarded);
				expect(first.events.filter((e) => e.type === "approval_requested")).toHaveLength(guarded.length);
				expect(executionIds(first.events)).toEqual(expect.arrayContaining(free));
				expect(executionIds(first.events).filter((id) => guarded.includes(id))).toEqual([]);
				const settled = first.messages.filter((m) => (m as { role: string }).role === "toolResult");
				expect(settled.map((m) => (m as ToolResultMessage).toolCallId)).toEqual(free); // SPEC T7

				const approvals: Record<string, ApprovalDecision> = {};
				for (const id of guarded) {
					const approve = plan[ids.indexOf(id)]?.approve === true;
					approvals[id] = approve ? { approved: true } : { approved: false, reason: "no" };
				}
				const transcript = [...first.context.messages, ...first.messages];
				const model = scriptedModel([textReply("done")]);
				const resumed = await collect(
					agentLoopContinue(
						{ messages: transcript, tools },
						{ model: model.model, streamFn: model.stream },
						undefined,
						{
							approvals,
						},
					),
				);
				assertBalanced(resumed.events);
				assertPaired([...transcript, ...resumed.result]);
				const ran = log.filter((line) => line.startsWith("start:")).map((line) => Number(line.split(":")[2]));
				const expected = plan.flatMap((c, i) => (!c.needsApproval || c.approve ? [i] : []));
				expect([...ran].sort((a, b) => a - b)).toEqual(expected);
				expect(model.calls).toHaveLength(1);
			}),
			{ numRuns: 60 },
		);
	});
});
