import { describe, expect, it, vi } from "vitest";
import {
	type AgentEvent,
	type AgentMessage,
	type AssistantMessage,
	agentLoop,
	agentLoopContinue,
	type Step,
	type ToolResultMessage,
} from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { assistant, echoTool, runScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, collect, trace } from "../support/trace.js";

const text = (t: string) => ({ type: "text" as const, text: t });
const call = (t: string, id = "call_x") => ({
	type: "toolCall" as const,
	name: "echo",
	arguments: { text: t },
	id,
});

describe("run lifecycle", () => {
	it("SPEC L1: returns the stream synchronously, does no work before returning, never mutates context.messages", async () => {
		const scripted = scriptedModel([{ content: [text("a")] }]);
		const messages: AgentMessage[] = [user("earlier")];
		const stream = agentLoop(
			[user("hi")],
			{ messages },
			{ model: scripted.model, streamFn: scripted.stream },
		);
		expect(scripted.calls).toHaveLength(0);
		const { result } = await collect(stream);
		expect(messages).toHaveLength(1);
		expect(result.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
	});

	it("SPEC L4: agent_end is the last event exactly once, scopes balance on a tool turn", async () => {
		const { events } = await runScript([{ content: [call("x")] }, { content: [text("ok")] }], {
			tools: [echoTool()],
		});
		assertBalanced(events);
	});

	it("SPEC L5: a kept message_update is a snapshot; unchanged blocks are shared, not copied", async () => {
		const scripted = scriptedModel([
			{ content: [text("abcdefghijklmnop"), call("x")] },
			{ content: [text("ok")] },
		]);
		const stream = agentLoop(
			[user("hi")],
			{ messages: [], tools: [echoTool()] },
			{ model: scripted.model, streamFn: scripted.stream },
		);
		const updates: Extract<AgentEvent, { type: "message_update" }>[] = [];
		const frozen: string[] = [];
		for await (const e of stream) {
			if (e.type !== "message_update") continue;
			updates.push(e);
			frozen.push(JSON.stringify(e.message)); // as it was when received
		}
		for (const [i, u] of updates.entries()) expect(JSON.stringify(u.message)).toBe(frozen[i]);
		const firstText = updates.findIndex((u) => u.assistantMessageEvent.type === "text_end");
		const firstReplyEnd = updates.findIndex((u) => u.assistantMessageEvent.type === "toolcall_end");
		const later = updates.slice(firstText + 1, firstReplyEnd + 1);
		expect(later.length).toBeGreaterThan(1);
		for (const u of later) expect(u.message.content[0]).toBe(updates[firstText]?.message.content[0]);
	});

	it("SPEC L6: agentLoopContinue refuses an empty context and a finished assistant reply synchronously", () => {
		const scripted = scriptedModel([]);
		const config = { model: scripted.model, streamFn: scripted.stream };
		expect(() => agentLoopContinue({ messages: [] }, config)).toThrow(/empty/);
		const done: AssistantMessage = assistant([text("bye")], "stop");
		expect(() => agentLoopContinue({ messages: [user("hi"), done] }, config)).toThrow(/assistant/);
	});

	it("SPEC L6, T13: continuing after a crash between reply and results runs the unanswered calls first", async () => {
		const crashed: AssistantMessage = assistant([call("a", "c1"), call("b", "c2")], "toolUse");
		const answered: ToolResultMessage = {
			role: "toolResult",
			toolCallId: "c1",
			toolName: "echo",
			content: [text("echo:a")],
			isError: false,
			timestamp: 0,
		};
		const log: string[] = [];
		const { events, messages, scripted } = await runScript([{ content: [text("resumed")] }], {
			continue: true,
			messages: [user("go"), crashed, answered],
			tools: [echoTool("echo", { log })],
		});
		expect(log).toEqual(["start:echo:b", "end:echo:b"]);
		expect(trace(events)).toBe(
			"agent_start turn_start tool_start:echo tool_end:echo:ok ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		assertPaired([user("go"), crashed, answered, ...messages]);
		expect(scripted.calls[0]?.context.messages.map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"toolResult",
		]);
	});

	it("SPEC L12: a throwing hook ends the run cleanly with an error message and outcome", async () => {
		const { events, messages } = await runScript([{ content: [call("x")] }, { content: [text("never")] }], {
			tools: [echoTool()],
			config: {
				onTurnEnd: () => {
					throw new Error("hook exploded");
				},
			},
		});
		assertBalanced(events);
		assertPaired(messages);
		const last = messages[messages.length - 1] as AssistantMessage;
		expect(last.stopReason).toBe("error");
		expect(last.errorMessage).toBe("hook exploded");
		const end = events[events.length - 1];
		expect(end?.type === "agent_end" && end.outcome).toEqual({ type: "error", error: "hook exploded" });
	});

	it("SPEC L12: a throwing transformContext still commits the prompt and an error reply", async () => {
		const { events, messages } = await runScript([{ content: [text("never")] }], {
			config: {
				transformContext: () => {
					throw new Error("transform failed");
				},
			},
		});
		assertBalanced(events);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant me:assistant:error turn_end:0 agent_end:error",
		);
		expect(messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
	});

	it("SPEC L13: every model call and tool execution goes through runStep; replaying recorded steps reproduces the transcript", async () => {
		const recorded = new Map<string, unknown>();
		const steps: Step[] = [];
		const record = async <T>(step: Step, fn: () => Promise<T>): Promise<T> => {
			steps.push(step);
			const value = await fn();
			recorded.set(step.id, value);
			return value;
		};
		const script = [{ content: [call("x")] }, { content: [text("done")] }];
		const first = await runScript(script, { tools: [echoTool()], config: { runStep: record } });
		expect(steps.map((s) => `${s.kind}:${s.name}`)).toEqual([
			"model:scripted-model",
			"tool:echo",
			"model:scripted-model",
		]);

		const tool = echoTool();
		const execute = vi.spyOn(tool, "execute");
		const replay = async <T>(step: Step, _fn: () => Promise<T>): Promise<T> => recorded.get(step.id) as T;
		const second = await runScript([], { tools: [tool], config: { runStep: replay } });
		expect(execute).not.toHaveBeenCalled();
		expect(second.scripted.calls).toHaveLength(0);
		expect(second.messages).toEqual(first.messages);
	});

	it("SPEC I1: a reply that repeats a tool call id still gets exactly one result per call", async () => {
		const { messages, events } = await runScript(
			[{ content: [call("a", "dup"), call("b", "dup")] }, { content: [text("ok")] }],
			{ tools: [echoTool()] },
		);
		assertPaired(messages);
		assertBalanced(events);
		const reply = messages[1] as AssistantMessage;
		expect(reply.content.map((b) => (b.type === "toolCall" ? b.id : ""))).toEqual(["dup", "dup_2"]);
		expect(messages.slice(2, 4).map((m) => (m as ToolResultMessage).toolCallId)).toEqual(["dup", "dup_2"]);
	});

	it("SPEC A4, I1: an interrupted reply that repeats an id keeps the call that finished, not the one cut off", async () => {
		// `chunkSize: 8` streams the second call's arguments in two deltas; the error lands after the first.
		const { messages, events } = await runScript(
			[
				{
					content: [call("a", "dup"), call("0123456789", "dup")],
					chunkSize: 8,
					error: { message: "connection reset", afterEvents: 6 },
				},
			],
			{ tools: [echoTool()] },
		);
		assertPaired(messages);
		assertBalanced(events);
		const reply = messages[1] as AssistantMessage;
		expect(reply.stopReason).toBe("error");
		expect(reply.content).toEqual([{ ...call("a", "dup") }]);
		expect(messages.slice(2).map((m) => (m as ToolResultMessage).toolCallId)).toEqual(["dup"]);
	});
});
