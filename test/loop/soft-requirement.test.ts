import { describe, expect, it } from "vitest";
import type { SoftToolRequirement, ToolCall, ToolResultMessage } from "../../src/index.js";
import {
	applySoftJudgement,
	judgeSoftTurn,
	MAX_SOFT_TOOL_ESCALATIONS,
	planSoftGate,
	type SoftRequirementState,
} from "../../src/loop/soft-requirement.js";
import { echoTool, runScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, trace } from "../support/trace.js";

/** Judge a turn and write the judgement, as the loop does. */
function judge(requirement: SoftToolRequirement, calls: ToolCall[], state: SoftRequirementState) {
	const judgement = judgeSoftTurn(requirement, calls, state);
	applySoftJudgement(state, judgement);
	return judgement.verdict;
}

const text = (t: string) => ({ type: "text" as const, text: t });
const call = (name: string) => ({ type: "toolCall" as const, name, arguments: { text: name } });
const requirement: SoftToolRequirement = {
	soft: true,
	id: "plan-first",
	toolName: "plan",
	reminder: [user("Reminder: call `plan` before anything else.")],
};
const tools = () => [echoTool("plan"), echoTool("edit")];

describe("SPEC X1 soft tool requirement — the gate as pure functions", () => {
	const fresh = (): SoftRequirementState => ({
		reminded: new Set(),
		satisfied: new Set(),
		forcing: undefined,
	});
	const asCall = (name: string): ToolCall => ({ type: "toolCall", id: name, name, arguments: {} });

	it("first sight injects the reminder once and keeps tool_choice auto", () => {
		const state = fresh();
		const plan = planSoftGate(requirement, undefined, state);
		expect(plan.toolChoice).toBeUndefined();
		expect(plan.remind).toBe(requirement.reminder);
		state.reminded.add("plan-first");
		expect(planSoftGate(requirement, undefined, state).remind).toEqual([]);
	});

	it("a hard choice is used as is", () => {
		expect(planSoftGate("required", undefined, fresh()).toolChoice).toBe("required");
	});

	it.each([["none" as const], [{ type: "tool" as const, name: "edit" }]])(
		"stands down when the static choice %j conflicts",
		(staticChoice) => {
			const plan = planSoftGate(requirement, staticChoice, fresh());
			expect(plan.requirement).toBeUndefined();
			expect(plan.toolChoice).toEqual(staticChoice);
			expect(plan.remind).toEqual([]);
		},
	);

	it("complies only with ≥1 call and every call satisfying; escalates, then fails after the bound", () => {
		expect(judge(requirement, [asCall("plan")], fresh())).toEqual({ type: "complied" });
		const state = fresh();
		expect(judge(requirement, [asCall("plan"), asCall("edit")], state).type).toBe("escalate");
		expect(planSoftGate(requirement, undefined, state).toolChoice).toEqual({ type: "tool", name: "plan" });
		for (let i = 1; i < MAX_SOFT_TOOL_ESCALATIONS; i++)
			expect(judge(requirement, [], state).type).toBe("escalate");
		expect(judge(requirement, [], state).type).toBe("fail");
	});

	it("judging is pure: the gate memory changes only when the judgement is applied", () => {
		const state = fresh();
		const before = structuredClone(state);
		const judgement = judgeSoftTurn(requirement, [asCall("edit")], state);
		expect(state).toEqual(before);
		expect(judgement).toMatchObject({
			verdict: { type: "escalate" },
			forcing: { id: requirement.id, failedForcedTurns: 0 },
		});
		applySoftJudgement(state, judgement);
		expect(state.forcing).toEqual({ id: requirement.id, failedForcedTurns: 0 });
	});

	it("a requirement is met once: after compliance the same id no longer gates", () => {
		const state = fresh();
		judge(requirement, [asCall("plan")], state);
		expect(planSoftGate(requirement, undefined, state).requirement).toBeUndefined();
	});

	it("a custom satisfies() decides compliance; a throwing one means non-compliant", () => {
		const custom = { ...requirement, satisfies: (c: ToolCall) => c.name === "edit" };
		expect(judge(custom, [asCall("edit")], fresh())).toEqual({ type: "complied" });
		const throwing = {
			...requirement,
			satisfies: () => {
				throw new Error("x");
			},
		};
		expect(judge(throwing, [asCall("plan")], fresh()).type).toBe("escalate");
	});
});

describe("SPEC X1 soft tool requirement — golden traces", () => {
	const config = { getToolChoice: () => requirement };

	it("compliant first time: reminder injected once, tool_choice stays auto, nothing else changes", async () => {
		const { events, scripted } = await runScript([{ content: [call("plan")] }, { content: [text("done")] }], {
			tools: tools(),
			config,
		});
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:user me:user ms:assistant mu+ me:assistant:toolUse tool_start:plan tool_end:plan:ok ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		expect(scripted.calls.map((c) => c.options.toolChoice)).toEqual([undefined, undefined]);
	});

	it("one detour then compliance: the detour runs nothing, the next call is forced to the tool for exactly one call", async () => {
		const { events, scripted, messages } = await runScript(
			[{ content: [call("edit")] }, { content: [call("plan")] }, { content: [text("done")] }],
			{ tools: tools(), config },
		);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:user me:user ms:assistant mu+ me:assistant:toolUse tool_start:edit tool_end:edit:skipped ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:toolUse tool_start:plan tool_end:plan:ok ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		expect(scripted.calls.map((c) => c.options.toolChoice)).toEqual([
			undefined,
			{ type: "tool", name: "plan" },
			undefined,
		]);
		const skipped = messages[3] as ToolResultMessage;
		expect(skipped.details).toEqual({ synthetic: true, reason: "soft_requirement", executed: false });
		expect(JSON.stringify(skipped.content)).toContain("`plan`");
		assertPaired(messages);
	});

	it("text only then compliance: a text-only turn does not end the run; the next call is forced", async () => {
		const { events, scripted } = await runScript(
			[{ content: [text("I'll just answer")] }, { content: [call("plan")] }, { content: [text("done")] }],
			{ tools: tools(), config },
		);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:user me:user ms:assistant mu+ me:assistant:stop turn_end:0 turn_start ms:assistant mu+ me:assistant:toolUse tool_start:plan tool_end:plan:ok ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		expect(scripted.calls[1]?.options.toolChoice).toEqual({ type: "tool", name: "plan" });
	});

	it("SPEC S3: paused turns are not judged; the continuation that answers is, with nothing forced before it", async () => {
		const paused = { content: [text("searching…")], stopDetails: { type: "pause_turn" as const } };
		const { events, scripted } = await runScript(
			[paused, paused, paused, paused, { content: [call("plan")] }, { content: [text("done")] }],
			{ tools: tools(), config },
		);
		expect(events.at(-1)).toMatchObject({ type: "agent_end", outcome: { type: "completed" } });
		expect(scripted.calls.map((c) => c.options.toolChoice)).toEqual(Array(6).fill(undefined));
	});

	it("SPEC S3: a backend that pauses forever still costs 1 + 8 calls, the requirement forcing none", async () => {
		const paused = { content: [text("searching…")], stopDetails: { type: "pause_turn" as const } };
		const { events, scripted } = await runScript(Array(12).fill(paused), { tools: tools(), config });
		expect(scripted.calls).toHaveLength(9);
		expect(scripted.calls.every((c) => c.options.toolChoice === undefined)).toBe(true);
		expect(events.at(-1)).toMatchObject({ type: "agent_end" });
	});

	it("four failures: after 3 forced turns without compliance the run fails with a clear error", async () => {
		const { events, scripted, messages } = await runScript(
			[
				{ content: [call("edit")] },
				{ content: [text("no")] },
				{ content: [call("edit")] },
				{ content: [text("still no")] },
				{ content: [text("never asked")] },
			],
			{ tools: tools(), config },
		);
		expect(scripted.calls).toHaveLength(4);
		assertBalanced(events);
		assertPaired(messages);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:user me:user ms:assistant mu+ me:assistant:toolUse tool_start:edit tool_end:edit:skipped ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 turn_start ms:assistant mu+ me:assistant:toolUse tool_start:edit tool_end:edit:skipped ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:error",
		);
		const end = events.at(-1);
		expect(end?.type === "agent_end" && end.outcome.type === "error" && end.outcome.error).toMatch(
			/did not call the required tool `plan`.*3 turns/,
		);
	});

	it("stands down when a static hard choice conflicts", async () => {
		const { scripted, events } = await runScript([{ content: [text("fine")] }], {
			tools: tools(),
			config: { ...config, toolChoice: "none" },
		});
		expect(scripted.calls).toHaveLength(1);
		expect(scripted.calls[0]?.options.toolChoice).toBe("none");
		expect(trace(events)).not.toContain("ms:user me:user ms:user");
	});
});
