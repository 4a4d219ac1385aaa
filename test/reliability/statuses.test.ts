/**
 * Hardening item 12 — SPEC A3, T10: statuses and texts that say what happened. A call that never started
 * says it was not executed; a running tool cut short by a steer has its own status, `interrupted`, and a
 * text saying the user's message interrupted it — distinct from a user abort.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent, AgentMessage, ToolResultMessage } from "../../src/index.js";
import { echoTool, startScript, user } from "../support/run.js";
import { assertPaired } from "../support/trace.js";

const call = (t: string, name: string) => ({ type: "toolCall" as const, name, arguments: { text: t } });

afterEach(() => {
	vi.useRealTimers();
});

const results = (messages: AgentMessage[]) =>
	messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const statuses = (events: AgentEvent[]) =>
	events.flatMap((e) => (e.type === "tool_execution_end" ? [[e.toolName, e.status]] : []));

describe("item 12: statuses and texts", () => {
	it("SPEC A3, A1: an aborted call that never started says it was not executed; a started one that it did not complete", async () => {
		vi.useFakeTimers();
		const controller = new AbortController();
		const { done } = startScript([{ content: [call("1", "slow"), call("2", "after")] }], {
			tools: [echoTool("slow", { ms: 1000 }), echoTool("after", { ms: 10, concurrency: "exclusive" })],
			signal: controller.signal,
		});
		await vi.advanceTimersByTimeAsync(5);
		controller.abort("user pressed Esc");
		const { events, result } = await done;
		assertPaired(result);
		const [started, never] = results(result);
		expect(started?.content).toEqual([
			{ type: "text", text: "Tool execution was aborted: user pressed Esc. The tool did not complete." },
		]);
		expect(never?.content).toEqual([
			{
				type: "text",
				text: "Not executed: the run was aborted before this tool call started (user pressed Esc).",
			},
		]);
		expect(statuses(events)).toEqual([
			["slow", "aborted"],
			["after", "aborted"],
		]);
	});

	it("SPEC T10: a running tool cut short by a steer ends `interrupted`, with a text naming the user's message", async () => {
		vi.useFakeTimers();
		const queue: AgentMessage[] = [];
		const { done } = startScript(
			[{ content: [call("1", "slowi")] }, { content: [{ type: "text", text: "ok" }] }],
			{
				tools: [echoTool("slowi", { ms: 10_000, interruptible: true })],
				config: {
					getSteeringMessages: () => queue.splice(0, 1),
					hasSteeringMessages: () => queue.length > 0,
				},
			},
		);
		await vi.advanceTimersByTimeAsync(5);
		queue.push(user("do X instead"));
		await vi.runAllTimersAsync();
		const { events, result } = await done;
		assertPaired(result);
		expect(statuses(events)).toEqual([["slowi", "interrupted"]]);
		const [cut] = results(result);
		expect(cut?.details).toEqual({ synthetic: true, reason: "interrupted", executed: false, started: true });
		expect(JSON.stringify(cut?.content)).toMatch(/interrupted by a new message from the user/i);
		const end = events.find((e) => e.type === "tool_execution_end");
		expect(end?.type === "tool_execution_end" && end.isError).toBe(true);
	});
});
