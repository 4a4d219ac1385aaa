import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentTool, ToolResultMessage } from "../../src/index.js";
import { echoTool, runScript, startScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, trace } from "../support/trace.js";

const call = (text: string, name = "echo") => ({ type: "toolCall" as const, name, arguments: { text } });
const text = (t: string) => ({ type: "text" as const, text: t });

afterEach(() => {
	vi.useRealTimers();
});

describe("golden traces", () => {
	it("plain turn — SPEC L2", async () => {
		const { events, messages } = await runScript([{ content: [text("hello there")] }]);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		assertBalanced(events);
		expect(messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
	});

	it("tool turn — SPEC L3: the next call sees [user, assistant, toolResult]", async () => {
		const { events, scripted } = await runScript([{ content: [call("a")] }, { content: [text("done")] }], {
			tools: [echoTool()],
		});
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:toolUse tool_start:echo tool_end:echo:ok ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		expect(scripted.calls[1]?.context.messages.map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
		]);
	});

	it("every event is a plain object with its documented keys, in order", async () => {
		const { events } = await runScript([{ content: [call("a")] }, { content: [text("done")] }], {
			tools: [echoTool()],
		});
		const shapes = new Map<string, string>();
		for (const e of events) {
			expect(Object.getPrototypeOf(e)).toBe(Object.prototype);
			shapes.set(e.type, Object.keys(e).join(","));
		}
		expect(Object.fromEntries(shapes)).toEqual({
			agent_start: "type",
			turn_start: "type",
			message_start: "type,message",
			message_update: "type,message,assistantMessageEvent",
			message_end: "type,message",
			tool_execution_start: "type,toolCallId,toolName,args",
			tool_execution_end: "type,toolCallId,toolName,result,isError,status",
			turn_end: "type,message,toolResults",
			agent_end: "type,messages,outcome",
		});
	});

	it("parallel shared + exclusive batch — SPEC T6, T7: results in call order", async () => {
		vi.useFakeTimers();
		const log: string[] = [];
		const tools: AgentTool[] = [
			echoTool("slow", { ms: 50, log }),
			echoTool("fast", { ms: 10, log }),
			echoTool("excl", { ms: 5, log, concurrency: "exclusive" }),
		];
		const { done } = startScript(
			[{ content: [call("1", "slow"), call("2", "fast"), call("3", "excl")] }, { content: [text("ok")] }],
			{
				tools,
			},
		);
		await vi.runAllTimersAsync();
		const { events, result } = await done;
		expect(log).toEqual([
			"start:slow:1",
			"start:fast:2",
			"end:fast:2",
			"end:slow:1",
			"start:excl:3",
			"end:excl:3",
		]);
		expect(trace(events)).toContain(
			"tool_start:slow tool_start:fast tool_end:fast:ok tool_end:slow:ok tool_start:excl tool_end:excl:ok ms:toolResult me:toolResult ms:toolResult me:toolResult ms:toolResult me:toolResult turn_end:3",
		);
		const results = result.filter(
			(m): m is ToolResultMessage => (m as { role: string }).role === "toolResult",
		);
		expect(results.map((r) => r.toolName)).toEqual(["slow", "fast", "excl"]);
	});

	it("pause_turn ×9 — SPEC S3: 1 + 8 calls, then the run ends", async () => {
		const paused = { content: [text("…")], stopDetails: { type: "pause_turn" } };
		const { events, scripted } = await runScript(Array.from({ length: 12 }, () => paused));
		expect(scripted.calls).toHaveLength(9);
		expect(trace(events).match(/turn_start/g)).toHaveLength(9);
		assertBalanced(events);
	});

	it("length with tool calls — SPEC S2: no call runs, placeholders, the model is asked again", async () => {
		const tool = echoTool();
		const execute = vi.spyOn(tool, "execute");
		const { events, messages } = await runScript(
			[{ content: [call("big")], stopReason: "length" }, { content: [text("split")] }],
			{ tools: [tool] },
		);
		expect(execute).not.toHaveBeenCalled();
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:length ms:toolResult me:toolResult turn_end:1 turn_start ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		const placeholder = messages[2] as ToolResultMessage;
		expect(placeholder.isError).toBe(true);
		expect(placeholder.details).toEqual({ synthetic: true, reason: "length", executed: false });
		expect(JSON.stringify(placeholder.content)).toMatch(/smaller/);
	});

	it("error stop — SPEC S4, A3, A8: placeholders for completed calls, the run ends with outcome error", async () => {
		const { events, messages } = await runScript(
			[{ content: [call("x"), text("and then")], error: { message: "overloaded", kind: "overloaded" } }],
			{ tools: [echoTool()] },
		);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:error ms:toolResult me:toolResult turn_end:1 agent_end:error",
		);
		const result = messages[2] as ToolResultMessage;
		expect(JSON.stringify(result.content)).toMatch(
			/provider stream failed before the tool could run: overloaded/,
		);
		assertPaired(messages);
		const end = events[events.length - 1];
		expect(end?.type === "agent_end" && end.outcome).toEqual({ type: "error", error: "overloaded" });
	});

	it("stream that throws — SPEC L12: committed as an error message, the run ends cleanly", async () => {
		const { events, messages } = await runScript([{ content: [text("partial")], throws: "async" }]);
		assertBalanced(events);
		const last = messages[messages.length - 1] as { stopReason: string; errorMessage: string };
		expect(last.stopReason).toBe("error");
		expect(last.errorMessage.length).toBeGreaterThan(0);
		expect(trace(events)).toMatch(/me:assistant:error turn_end:0 agent_end:error$/);
	});

	it("stream function that throws synchronously — SPEC L12", async () => {
		const { events } = await runScript([{ throws: "sync" }]);
		assertBalanced(events);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant me:assistant:error turn_end:0 agent_end:error",
		);
	});

	it("stream that ends without a terminal event — SPEC L12, E3", async () => {
		const { events, messages } = await runScript([{ content: [text("cut")], endWithoutTerminal: true }]);
		assertBalanced(events);
		expect((messages[1] as { errorMessage: string }).errorMessage).toMatch(/without a terminal event/);
	});

	it("follow-up revival — SPEC L7, L9: exactly one more turn after the model stops", async () => {
		let queued = [user("one more thing")];
		const { events, scripted } = await runScript(
			[{ content: [text("first")] }, { content: [text("second")] }],
			{
				config: {
					getFollowUpMessages: () => {
						const out = queued;
						queued = [];
						return out;
					},
				},
			},
		);
		expect(scripted.calls).toHaveLength(2);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:stop turn_end:0 turn_start ms:user me:user ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
	});

	it("aside — SPEC L10: injected at the outer drain; an empty aside source adds no turn", async () => {
		let asides = [user("background job finished")];
		const { scripted, messages } = await runScript([{ content: [text("a")] }, { content: [text("b")] }], {
			config: {
				getAsideMessages: () => {
					const out = asides;
					asides = [];
					return out;
				},
			},
		});
		expect(scripted.calls).toHaveLength(2);
		expect((messages[2] as { content: string }).content).toBe("background job finished");

		const quiet = await runScript([{ content: [text("a")] }], { config: { getAsideMessages: () => [] } });
		expect(quiet.scripted.calls).toHaveLength(1);
	});
});
