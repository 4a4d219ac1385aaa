/**
 * Tool approvals in the stateless loop (SPEC T14–T17): a call that needs approval parks, the run ends
 * `awaiting_approval`, and `agentLoopContinue` with decisions resumes it.
 */
import { describe, expect, it } from "vitest";
import {
	type AgentEvent,
	type AgentMessage,
	type AgentTool,
	agentLoop,
	agentLoopContinue,
	type ToolResultMessage,
} from "../../src/index.js";
import { scriptedModel, textReply } from "../../src/testing/index.js";
import { echoTool, runScript, startScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, collect, trace } from "../support/trace.js";

const call = (name: string, text: string) => ({ type: "toolCall" as const, name, text });
const reply = (...calls: ReturnType<typeof call>[]) => ({
	content: calls.map((c) => ({ type: "toolCall" as const, name: c.name, arguments: { text: c.text } })),
});
const guarded = (name = "write", options: Partial<AgentTool> = {}) =>
	echoTool(name, { needsApproval: true, ...options });
const endOf = (events: AgentEvent[]) => events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
const resultText = (m: AgentMessage) =>
	((m as ToolResultMessage).content[0] as { text: string } | undefined)?.text ?? "";

describe("a batch with a call that needs approval", () => {
	it("SPEC T14, T15: the sibling runs, the guarded call parks, the run ends awaiting approval", async () => {
		const { events, messages, scripted } = await runScript([reply(call("write", "a"), call("echo", "b"))], {
			tools: [guarded(), echoTool()],
		});
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:toolUse " +
				"tool_start:echo tool_end:echo:ok ms:toolResult me:toolResult approval_requested turn_end:1 " +
				"agent_end:awaiting_approval",
		);
		assertBalanced(events);
		expect(scripted.calls).toHaveLength(1); // no model call follows a pause
		const requested = events.filter((e) => e.type === "approval_requested");
		expect(requested).toEqual([
			{ type: "approval_requested", toolCallId: "call_1", toolName: "write", args: { text: "a" } },
		]);
		expect(endOf(events).outcome).toEqual({
			type: "awaiting_approval",
			pending: [{ toolCallId: "call_1", toolName: "write", args: { text: "a" } }],
		});
		expect(messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant", "toolResult"]);
		expect((messages[2] as ToolResultMessage).toolCallId).toBe("call_2");
	});

	it("SPEC T14: a needsApproval function sees the validated arguments; one that throws means ask", async () => {
		const seen: unknown[] = [];
		const tools = [
			echoTool("maybe", {
				needsApproval: (args: { text: string }) => {
					seen.push(args);
					return args.text === "rm";
				},
			}),
			echoTool("broken", {
				needsApproval: () => {
					throw new Error("policy unavailable");
				},
			}),
		];
		const { events } = await runScript(
			[reply(call("maybe", "ls"), call("maybe", "rm"), call("broken", "x"))],
			{
				tools,
			},
		);
		expect(seen).toEqual([{ text: "ls" }, { text: "rm" }]);
		const outcome = endOf(events).outcome;
		expect(outcome.type === "awaiting_approval" && outcome.pending.map((p) => p.toolCallId)).toEqual([
			"call_2",
			"call_3",
		]);
	});

	it("SPEC T14, T3: invalid arguments are rejected before approval is asked", async () => {
		const script = [
			{ content: [{ type: "toolCall" as const, name: "write", arguments: { text: 7 } }] },
			textReply("ok"),
		];
		const { events } = await runScript(script, { tools: [guarded()] });
		expect(events.some((e) => e.type === "approval_requested")).toBe(false);
		expect(endOf(events).outcome.type).toBe("completed");
	});

	it("SPEC T14, T6: shared siblings of a parked call still overlap", async () => {
		let started = 0;
		let release!: () => void;
		const both = new Promise<void>((resolve) => (release = resolve));
		const meeting = (name: string): AgentTool => ({
			name,
			description: name,
			parameters: { type: "object", properties: { text: { type: "string" } } },
			async execute() {
				if (++started === 2) release();
				await both; // deadlocks unless both siblings run at the same time
				return { content: [{ type: "text", text: name }] };
			},
		});
		const { events } = await runScript([reply(call("a", "1"), call("write", "2"), call("b", "3"))], {
			tools: [meeting("a"), guarded(), meeting("b")],
		});
		expect(started).toBe(2);
		expect(endOf(events).outcome.type).toBe("awaiting_approval");
	});
});

describe("resuming a paused batch", () => {
	async function paused(tools: AgentTool[], ...calls: ReturnType<typeof call>[]) {
		const { messages, context, events } = await runScript([reply(...calls)], { tools });
		return { transcript: [...context.messages, ...messages], events };
	}

	it("SPEC T16: continuing without decisions asks again, once per call, and calls no model", async () => {
		const tools = [guarded(), echoTool()];
		const { transcript } = await paused(tools, call("write", "a"), call("echo", "b"));
		const { events, messages, scripted } = await runScript([textReply("done")], {
			continue: true,
			messages: transcript,
			tools,
		});
		expect(trace(events)).toBe(
			"agent_start turn_start approval_requested turn_end:0 agent_end:awaiting_approval",
		);
		expect(scripted.calls).toHaveLength(0);
		expect(messages).toEqual([]);
	});

	it("SPEC T16: an approved call runs, and the model is asked again with every call paired", async () => {
		const tools = [guarded(), echoTool()];
		const { transcript } = await paused(tools, call("write", "a"), call("echo", "b"));
		const model = scriptedModel([textReply("done")], { now: () => 0 });
		const stream = agentLoopContinue(
			{ messages: transcript, tools },
			{ model: model.model, streamFn: model.stream, now: () => 0 },
			undefined,
			{ approvals: { call_1: { approved: true } } },
		);
		const resumed = await collect(stream);
		expect(trace(resumed.events)).toBe(
			"agent_start turn_start tool_start:write tool_end:write:ok ms:toolResult me:toolResult turn_end:1 " +
				"turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		const sent = model.calls[0]?.context.messages ?? [];
		assertPaired(sent);
		expect(resultText(sent.at(-1) as AgentMessage)).toBe("write:a");
		assertPaired([...transcript, ...resumed.result]);
	});

	it("SPEC T16: a denial is a model-readable result with the reason; the tool never runs", async () => {
		const log: string[] = [];
		const tools = [echoTool("write", { needsApproval: true, log })];
		const { transcript } = await paused(tools, call("write", "a"));
		const model = scriptedModel([textReply("understood")], { now: () => 0 });
		const { events } = await collect(
			agentLoopContinue(
				{ messages: transcript, tools },
				{ model: model.model, streamFn: model.stream },
				undefined,
				{
					approvals: { call_1: { approved: false, reason: "not on main" } },
				},
			),
		);
		expect(log).toEqual([]);
		const end = events.find((e) => e.type === "tool_execution_end");
		expect(end?.type === "tool_execution_end" && end.status).toBe("blocked");
		const seen = model.calls[0]?.context.messages.at(-1) as ToolResultMessage;
		expect(seen.isError).toBe(true);
		expect(resultText(seen)).toBe(
			"Not executed: approval for this tool call was denied: not on main Do not retry it unchanged; take the reason into account or ask the user how to proceed.",
		);
		expect(seen.details).toEqual({ synthetic: true, reason: "denied", executed: false });
	});

	it("SPEC T16: deciding one of two asks again for the other, once, and runs nothing twice", async () => {
		const log: string[] = [];
		const tools = [echoTool("write", { needsApproval: true, log })];
		const { transcript } = await paused(tools, call("write", "a"), call("write", "b"));
		const model = scriptedModel([textReply("x")], { now: () => 0 });
		const first = await collect(
			agentLoopContinue(
				{ messages: transcript, tools },
				{ model: model.model, streamFn: model.stream },
				undefined,
				{
					approvals: { call_2: { approved: true } },
				},
			),
		);
		expect(log).toEqual(["start:write:b", "end:write:b"]);
		expect(
			first.events
				.filter((e) => e.type === "approval_requested")
				.map((e) => (e as { toolCallId: string }).toolCallId),
		).toEqual(["call_1"]);
		expect(model.calls).toHaveLength(0);
		const next = [...transcript, ...first.result];
		const second = await collect(
			agentLoopContinue(
				{ messages: next, tools },
				{ model: model.model, streamFn: model.stream },
				undefined,
				{
					approvals: { call_1: { approved: false } },
				},
			),
		);
		expect(endOf(second.events).outcome.type).toBe("completed");
		expect(log).toEqual(["start:write:b", "end:write:b"]);
		assertPaired([...next, ...second.result]);
	});

	it("SPEC T16: an unknown id or a malformed decision throws before the run starts", async () => {
		const tools = [guarded()];
		const { transcript } = await paused(tools, call("write", "a"));
		const model = scriptedModel([]);
		const config = { model: model.model, streamFn: model.stream };
		expect(() =>
			agentLoopContinue({ messages: transcript, tools }, config, undefined, {
				approvals: { nope: { approved: true } },
			}),
		).toThrow(/no unanswered tool call "nope".*awaiting: call_1/);
		const bad = JSON.parse('{"call_1":{"approved":"yes"}}');
		expect(() =>
			agentLoopContinue({ messages: transcript, tools }, config, undefined, { approvals: bad }),
		).toThrow(/decision for "call_1" must be/);
		expect(model.calls).toHaveLength(0);
	});

	it("SPEC T17: a prompt over unanswered calls throws a clear error instead of an unpaired request", async () => {
		const tools = [guarded()];
		const { transcript } = await paused(tools, call("write", "a"));
		const model = scriptedModel([textReply("never")]);
		expect(() =>
			agentLoop(
				[user("again")],
				{ messages: transcript, tools },
				{ model: model.model, streamFn: model.stream },
			),
		).toThrow(/tool calls that have no results \(call_1\).*agentLoopContinue/);
		expect(model.calls).toHaveLength(0);
	});

	it("SPEC T17: continuing unanswered calls that a user message already follows throws instead of sending results after it", async () => {
		const tools = [guarded()];
		const { transcript } = await paused(tools, call("write", "a"));
		const model = scriptedModel([textReply("never")]);
		expect(() =>
			agentLoopContinue(
				{ messages: [...transcript, user("hello?")], tools },
				{ model: model.model, streamFn: model.stream },
				undefined,
				{ approvals: { call_1: { approved: true } } },
			),
		).toThrow(/no results \(call_1\) but a user message follows them/);
		expect(model.calls).toHaveLength(0);
	});

	it("SPEC T16, A7: a resume after the deadline writes deadline placeholders for approved calls; denials stay", async () => {
		const log: string[] = [];
		const tools = [echoTool("write", { needsApproval: true, log })];
		const { transcript } = await paused(tools, call("write", "a"), call("write", "b"));
		const model = scriptedModel([textReply("late")]);
		const { events, result } = await collect(
			agentLoopContinue(
				{ messages: transcript, tools },
				{ model: model.model, streamFn: model.stream, deadline: 1_000, now: () => 2_000 },
				undefined,
				{ approvals: { call_1: { approved: true }, call_2: { approved: false, reason: "no" } } },
			),
		);
		expect(log).toEqual([]);
		expect(endOf(events).outcome.type).toBe("deadline");
		expect(result.map((m) => (m as ToolResultMessage).details)).toEqual([
			{ synthetic: true, reason: "deadline", executed: false }, // SPEC T7: call order
			{ synthetic: true, reason: "denied", executed: false },
		]);
		assertPaired([...transcript, ...result]);
	});
});

describe("abort and steering around a pause", () => {
	it("SPEC T15, A1: an abort while a sibling runs settles the parked call too; no request, outcome aborted", async () => {
		const controller = new AbortController();
		let started!: () => void;
		const running = new Promise<void>((resolve) => (started = resolve));
		const slow: AgentTool = {
			name: "slow",
			description: "slow",
			parameters: { type: "object", properties: {} },
			execute: (_id, _args, signal) =>
				new Promise((_, reject) => {
					started();
					signal.addEventListener("abort", () => reject(new Error("aborted")));
				}),
		};
		const { done } = startScript([reply(call("write", "a"), call("slow", "b"))], {
			tools: [guarded(), slow],
			signal: controller.signal,
		});
		await running;
		controller.abort("user pressed escape");
		const { events, result } = await done;
		assertBalanced(events);
		expect(events.some((e) => e.type === "approval_requested")).toBe(false);
		expect(endOf(events).outcome).toEqual({ type: "aborted", reason: "user pressed escape" });
		const write = result.find((m) => (m as ToolResultMessage).toolCallId === "call_1") as ToolResultMessage;
		expect(write.details).toEqual({ synthetic: true, reason: "aborted", executed: false });
		assertPaired(result.slice(1));
	});

	it("SPEC T15, T10: a steer queued during the batch skips the parked call; the run goes on to the model", async () => {
		const queue: AgentMessage[] = [user("stop, do something else")];
		const { events, messages, scripted } = await runScript([reply(call("write", "a")), textReply("ok")], {
			tools: [guarded()],
			config: {
				hasSteeringMessages: () => queue.length > 0,
				getSteeringMessages: () => queue.splice(0),
			},
		});
		expect(events.some((e) => e.type === "approval_requested")).toBe(false);
		expect(endOf(events).outcome.type).toBe("completed");
		expect(scripted.calls).toHaveLength(2);
		assertPaired(messages);
	});
});
