import { afterEach, describe, expect, it, vi } from "vitest";
import {
	Agent,
	type AgentEvent,
	type AgentMessage,
	type AgentTool,
	type ModelCallRecord,
	type StepRunner,
	type ToolCallRecord,
	type Usage,
} from "../../src/index.js";
import { scriptedModel, textReply } from "../../src/testing/index.js";
import { echoTool, runScript, startScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, trace } from "../support/trace.js";

afterEach(() => {
	vi.useRealTimers();
});

const call = (name: string, args: Record<string, unknown> = {}) => ({
	type: "toolCall" as const,
	name,
	arguments: args,
});
const text = (t: string) => ({ type: "text" as const, text: t });

function usage(input: number, output: number, cacheRead: number, costTotal: number): Partial<Usage> {
	return {
		input,
		output,
		cacheRead,
		cost: { input: costTotal / 2, output: costTotal / 2, cacheRead: 0, cacheWrite: 0, total: costTotal },
	};
}

function failingTool(name: string): AgentTool {
	return {
		name,
		description: `always fails (${name})`,
		parameters: { type: "object", properties: {} },
		execute: async () => {
			throw new Error("disk on fire");
		},
	};
}

function steeringQueue() {
	const queue: AgentMessage[] = [];
	const listeners = new Set<() => void>();
	return {
		push(message: AgentMessage) {
			queue.push(message);
			for (const listener of listeners) listener();
		},
		config: {
			getSteeringMessages: () => queue.splice(0, 1),
			hasSteeringMessages: () => queue.length > 0,
			onSteeringQueued: (listener: () => void) => {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
		},
	};
}

function agentEnd(events: readonly AgentEvent[]) {
	const end = events.at(-1);
	if (end?.type !== "agent_end") throw new Error("the last event is not agent_end");
	return end;
}

describe("run telemetry — SPEC X3", () => {
	it("summary and coverage on agent_end: every tool status, latency and TTFT on the injected clock, usage and cost summed — SPEC X3, C5", async () => {
		vi.useFakeTimers();
		vi.setSystemTime(0);
		const steer = steeringQueue();
		const modelCalls: ModelCallRecord[] = [];
		const toolCalls: ToolCallRecord[] = [];
		const tools = [
			echoTool("read", { ms: 100 }),
			failingTool("fail"),
			echoTool("guarded"),
			echoTool("slowi", { ms: 1000, interruptible: true }),
			echoTool("later", { concurrency: "exclusive" }),
			echoTool("unused"),
		];
		const { done } = startScript(
			[
				{
					content: [
						call("read", { text: "a", i: "look up a" }),
						call("fail"),
						call("guarded", { text: "c" }),
					],
					usage: usage(100, 10, 50, 0.3),
					responseId: "resp_1",
				},
				{
					content: [call("slowi", { text: "s" }), call("later", { text: "l" })],
					usage: usage(200, 20, 0, 0.5),
				},
				{ ...textReply("done"), delayMs: 10, usage: usage(300, 5, 100, 0.25) },
			],
			{
				tools,
				config: {
					...steer.config,
					now: () => Date.now(),
					intentTracing: true,
					beforeToolCall: ({ toolCall }) =>
						toolCall.name === "guarded" ? { block: true, reason: "policy" } : undefined,
					telemetry: {
						onModelCall: (record) => modelCalls.push(record),
						onToolCall: (record) => toolCalls.push(record),
					},
				},
			},
		);
		await vi.advanceTimersByTimeAsync(150); // turn 2's batch is running since t=100
		steer.push(user("change of plan"));
		await vi.runAllTimersAsync();
		const { events, result } = await done;
		assertBalanced(events);
		assertPaired(result);

		const { summary, coverage } = agentEnd(events);
		expect(summary).toBeDefined();
		expect(coverage).toBeDefined();
		if (!summary || !coverage) return;

		// Per tool call: status and latency (SPEC X3), intent (SPEC C5).
		const byName = Object.fromEntries(summary.records.toolCalls.map((r) => [r.name, r]));
		expect(byName.read).toMatchObject({ status: "ok", latencyMs: 100, intent: "look up a", startedAt: 0 });
		expect(byName.fail).toMatchObject({ status: "error", isError: true, latencyMs: 0 });
		expect(byName.guarded).toMatchObject({ status: "blocked", latencyMs: 0 });
		expect(byName.slowi).toMatchObject({ status: "interrupted", startedAt: 100, latencyMs: 50 });
		expect(byName.later).toMatchObject({ status: "skipped", latencyMs: 0 });
		expect(byName.read?.intent).toBe("look up a");
		expect(byName.fail?.intent).toBeUndefined();

		// Per model call: stop reason, latency and time to first token measured from the call's start.
		expect(summary.records.modelCalls.map((r) => [r.stopReason, r.startedAt])).toEqual([
			["toolUse", 0],
			["toolUse", 100],
			["stop", 150],
		]);
		const last = summary.records.modelCalls[2];
		// delayMs 10 before each event: start @10, text_start @20, text_delta @30, text_end @40, done @50.
		expect(last).toMatchObject({ latencyMs: 50, timeToFirstTokenMs: 30, cost: 0.25 });
		expect(summary.records.modelCalls[0]).toMatchObject({
			model: "scripted-model",
			provider: "scripted",
			api: "scripted",
			responseId: "resp_1",
			latencyMs: 0,
		});

		expect(summary).toMatchObject({
			wallTimeMs: 200,
			turns: 3,
			modelCalls: 3,
			failedModelCalls: 0,
			modelTimeMs: 50,
			toolCalls: 5,
			toolCallsByStatus: { ok: 1, error: 1, blocked: 1, aborted: 0, interrupted: 1, skipped: 1 },
			toolTimeMs: 150,
		});
		expect(summary.usage).toMatchObject({
			input: 600,
			output: 35,
			cacheRead: 150,
			cacheWrite: 0,
			totalTokens: 785,
		});
		expect(summary.cost).toBeCloseTo(1.05, 10);
		expect(summary.usage.cost.total).toBeCloseTo(1.05, 10);

		expect(coverage).toEqual({
			toolsOffered: ["read", "fail", "guarded", "slowi", "later", "unused"],
			toolsInvoked: ["read", "fail", "guarded", "slowi", "later"],
			toolsNeverUsed: ["unused"],
			unknownToolsCalled: [],
			models: ["scripted-model"],
			providers: ["scripted"],
		});

		// The host sees the same records as they happen.
		expect(modelCalls).toEqual(summary.records.modelCalls);
		expect(toolCalls).toEqual(summary.records.toolCalls);
	});

	it("a failed model call and an unknown tool name are recorded — SPEC X3", async () => {
		const { done } = startScript(
			[{ content: [text("hm"), call("nope")] }, { error: { message: "overloaded", kind: "overloaded" } }],
			{ tools: [echoTool("echo")], config: { telemetry: {} } },
		);
		const { events } = await done;
		const { summary, coverage, outcome } = agentEnd(events);
		expect(outcome.type).toBe("error");
		expect(summary?.failedModelCalls).toBe(1);
		expect(summary?.records.modelCalls[1]).toMatchObject({
			stopReason: "error",
			errorKind: "overloaded",
			errorMessage: "overloaded",
		});
		expect(summary?.records.modelCalls[1]?.timeToFirstTokenMs).toBeUndefined();
		expect(coverage).toMatchObject({ toolsInvoked: ["nope"], unknownToolsCalled: ["nope"] });
		expect(coverage?.toolsNeverUsed).toEqual(["echo"]);
	});

	it("telemetry only observes: the same run with it on has the same events and transcript — SPEC X3", async () => {
		const script = [
			{ content: [text("looking"), call("echo", { text: "a" }), call("nope")], usage: usage(10, 2, 0, 0.1) },
			{ error: { message: "overloaded", kind: "overloaded" as const } },
		];
		const options = { tools: [echoTool(), echoTool("other")], systemPrompt: "be brief" };
		const off = await runScript(script, options);
		const on = await runScript(script, {
			...options,
			config: { telemetry: { onModelCall: () => {}, onToolCall: () => {}, recordContent: true } },
		});
		expect(trace(on.events)).toBe(trace(off.events));
		expect(on.messages).toEqual(off.messages);
		const { summary: _summary, coverage: _coverage, ...end } = agentEnd(on.events);
		expect(end).toEqual(agentEnd(off.events));
	});

	it("telemetry off: agent_end carries no summary or coverage — SPEC X3", async () => {
		const { done } = startScript([{ content: [call("echo", { text: "x" })] }, textReply("ok")], {
			tools: [echoTool()],
		});
		const { events } = await done;
		const end = agentEnd(events);
		expect("summary" in end).toBe(false);
		expect("coverage" in end).toBe(false);
	});

	it("a throwing host callback is reported and never breaks the run — SPEC X3, Q5", async () => {
		const errors: unknown[] = [];
		const { done } = startScript([{ content: [call("echo", { text: "x" })] }, textReply("ok")], {
			tools: [echoTool()],
			config: {
				telemetry: {
					onModelCall: () => {
						throw new Error("collector bug");
					},
					onToolCall: () => {
						throw new Error("collector bug");
					},
					onError: (error) => errors.push(error),
				},
			},
		});
		const { events } = await done;
		assertBalanced(events);
		expect(agentEnd(events)).toMatchObject({ outcome: { type: "completed" }, summary: { modelCalls: 2 } });
		expect(errors).toHaveLength(3);
	});

	it("a malformed replayed reply (no usage) costs its record, never the run — SPEC X3, L13", async () => {
		const errors: unknown[] = [];
		const replayed = { role: "assistant", content: [text("from the journal")], stopReason: "stop" };
		const runStep = (async (step: { kind: string }, fn: () => Promise<unknown>) =>
			step.kind === "model"
				? { ...replayed, api: "x", provider: "x", model: "m", timestamp: 0 }
				: fn()) as StepRunner;
		const { events } = await runScript([], {
			config: { runStep, telemetry: { onError: (error) => errors.push(error) } },
		});
		assertBalanced(events);
		expect(agentEnd(events).outcome).toEqual({ type: "completed" });
		expect(errors.length).toBeGreaterThan(0);
	});

	it("the Agent passes telemetry through to every run — SPEC X3, Q1", async () => {
		const scripted = scriptedModel([textReply("one"), textReply("two")], { now: () => 0 });
		const records: ModelCallRecord[] = [];
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool("a"), echoTool("b")],
			telemetry: { onModelCall: (record) => records.push(record) },
		});
		const ends: AgentEvent[] = [];
		agent.subscribe((event) => {
			if (event.type === "agent_end") ends.push(event);
		});
		await agent.prompt("hi");
		await agent.prompt("again");
		expect(records).toHaveLength(2);
		expect(ends.map((e) => e.type === "agent_end" && e.coverage?.toolsNeverUsed)).toEqual([
			["a", "b"],
			["a", "b"],
		]);
	});
});
