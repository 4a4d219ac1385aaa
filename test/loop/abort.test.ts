import { afterEach, describe, expect, it, vi } from "vitest";
import type { AssistantMessage, ToolResultMessage } from "../../src/index.js";
import { echoTool, startScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, trace } from "../support/trace.js";

const call = (t: string, name = "echo") => ({ type: "toolCall" as const, name, arguments: { text: t } });
const text = (t: string) => ({ type: "text" as const, text: t });

afterEach(() => {
	vi.useRealTimers();
});

describe("abort and deadline", () => {
	it("abort during stream — SPEC A1, A2, A5: committed as aborted with the text so far and the reason", async () => {
		vi.useFakeTimers();
		const controller = new AbortController();
		const { done, scripted } = startScript(
			[{ content: [text("one two three four five six")], delayMs: 10 }],
			{
				signal: controller.signal,
			},
		);
		await vi.advanceTimersByTimeAsync(35);
		controller.abort("user cancelled");
		const { events, result } = await done;
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:aborted turn_end:0 agent_end:aborted",
		);
		const reply = result[1] as AssistantMessage;
		expect(reply.errorMessage).toBe("user cancelled");
		const streamed = reply.content[0];
		expect(streamed?.type === "text" && streamed.text.length).toBeGreaterThan(0);
		expect(streamed?.type === "text" && streamed.text.length).toBeLessThan(27);
		expect(scripted.calls).toHaveLength(1);
		const end = events[events.length - 1];
		expect(end?.type === "agent_end" && end.outcome).toEqual({ type: "aborted", reason: "user cancelled" });
	});

	it("SPEC A2: a provider that ignores the abort cannot hang the loop", async () => {
		vi.useFakeTimers();
		const controller = new AbortController();
		const { done } = startScript([{ content: [text("hi")], hang: true, ignoreAbort: true }], {
			signal: controller.signal,
		});
		await vi.advanceTimersByTimeAsync(5);
		controller.abort();
		const { events, result } = await done;
		assertBalanced(events);
		expect((result[1] as AssistantMessage).errorMessage).toBe("Request was aborted");
	});

	it("abort during tools — SPEC A1: running tools see their signal, results pair every call, no further model call", async () => {
		vi.useFakeTimers();
		const controller = new AbortController();
		const { done, scripted } = startScript([{ content: [call("a")] }, { content: [text("never")] }], {
			signal: controller.signal,
			tools: [echoTool("echo", { ms: 100 })],
		});
		await vi.advanceTimersByTimeAsync(50);
		controller.abort(new Error("stop now"));
		const { events, result } = await done;
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:toolUse tool_start:echo tool_end:echo:aborted ms:toolResult me:toolResult turn_end:1 agent_end:aborted",
		);
		expect(scripted.calls).toHaveLength(1);
		const placeholder = result[2] as ToolResultMessage;
		expect(JSON.stringify(placeholder.content)).toMatch(/aborted: stop now/);
		assertPaired(result);
	});

	it("deadline during stream — SPEC A7: the request is aborted and committed with 'Deadline exceeded'", async () => {
		vi.useFakeTimers();
		const { done } = startScript([{ content: [text("a long answer that takes time")], delayMs: 10 }], {
			config: { deadline: Date.now() + 30, now: Date.now },
		});
		await vi.runAllTimersAsync();
		const { events, result } = await done;
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:aborted turn_end:0 agent_end:deadline",
		);
		expect((result[1] as AssistantMessage).errorMessage).toBe("Deadline exceeded");
	});

	it("deadline after reply — SPEC A7: none of the tool calls runs; placeholders say deadline exceeded", async () => {
		let clock = 0;
		const tool = echoTool();
		const execute = vi.spyOn(tool, "execute");
		const { done } = startScript(
			() => {
				clock = 100;
				return { content: [call("a"), call("b")] };
			},
			{ tools: [tool], config: { deadline: 50, now: () => clock } },
		);
		const { events, result } = await done;
		expect(execute).not.toHaveBeenCalled();
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:toolUse ms:toolResult me:toolResult ms:toolResult me:toolResult turn_end:2 agent_end:deadline",
		);
		const placeholder = result[2] as ToolResultMessage;
		expect(placeholder.details).toEqual({ synthetic: true, reason: "deadline", executed: false });
		expect(JSON.stringify(placeholder.content)).toMatch(/deadline exceeded/);
	});

	it("SPEC A7: follow-ups are not dequeued after the deadline", async () => {
		let clock = 0;
		const getFollowUpMessages = vi.fn(() => [user("more")]);
		const { done } = startScript(
			() => {
				clock = 100;
				return { content: [text("answer")] };
			},
			{ config: { deadline: 50, now: () => clock, getFollowUpMessages } },
		);
		const { events } = await done;
		expect(getFollowUpMessages).not.toHaveBeenCalled();
		expect(trace(events)).toMatch(/agent_end:deadline$/);
	});

	it("SPEC A6: abort never drains the steering or follow-up queues", async () => {
		vi.useFakeTimers();
		const steering = [user("steer")];
		const followUps = [user("follow")];
		const controller = new AbortController();
		const { done } = startScript([{ content: [call("a")] }, { content: [text("x")] }], {
			signal: controller.signal,
			tools: [echoTool("echo", { ms: 100 })],
			config: {
				getSteeringMessages: () => steering.splice(0, 1),
				hasSteeringMessages: () => steering.length > 0,
				getFollowUpMessages: () => followUps.splice(0, 1),
				interruptMode: "wait",
			},
		});
		await vi.advanceTimersByTimeAsync(10);
		controller.abort();
		await done;
		expect(steering).toHaveLength(1);
		expect(followUps).toHaveLength(1);
	});

	it("SPEC A5: abort reason texts", async () => {
		const { abortReasonText } = await import("../../src/core/abort.js");
		expect(abortReasonText("because")).toBe("because");
		expect(abortReasonText(new Error("boom"))).toBe("boom");
		const abortError = new Error("x");
		abortError.name = "AbortError";
		expect(abortReasonText(abortError)).toBe("Request was aborted");
		expect(abortReasonText(undefined)).toBe("Request was aborted");
		expect(abortReasonText("")).toBe("Request was aborted");
	});

	it.each([
		["onTurnEnd", { onTurnEnd: () => new Promise<void>(() => {}) }],
		["onBeforeYield", { onBeforeYield: () => new Promise<void>(() => {}) }],
		["beforeModelCall", { beforeModelCall: () => new Promise<undefined>(() => {}) }],
		["transformContext", { transformContext: () => new Promise<never>(() => {}) }],
		["getApiKey", { getApiKey: () => new Promise<string>(() => {}) }],
	])(
		"SPEC I4: a %s hook that never settles cannot hold the run open after an abort",
		async (_name, hooks) => {
			vi.useFakeTimers();
			const controller = new AbortController();
			const { done } = startScript([{ content: [text("a")] }, { content: [text("b")] }], {
				signal: controller.signal,
				config: { ...hooks, getFollowUpMessages: () => [user("again")] },
			});
			await vi.advanceTimersByTimeAsync(5);
			controller.abort("stop");
			const { events } = await done;
			assertBalanced(events);
			const end = events.at(-1);
			expect(end?.type === "agent_end" && end.outcome).toEqual({ type: "aborted", reason: "stop" });
		},
	);
});
