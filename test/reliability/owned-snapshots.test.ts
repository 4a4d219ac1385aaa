/**
 * Hardening item 1 — SPEC L5: the loop owns what it emits and commits. A stream function that keeps one
 * message object and mutates it in place (pi-ai's style) must not be able to change an emitted snapshot or
 * a committed message afterwards, and nothing it does after the loop stopped reading reaches the transcript.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	type AgentEvent,
	type AssistantMessage,
	type AssistantMessageEvent,
	type AssistantMessageEventStream,
	agentLoop,
	emptyUsage,
	type StreamFunction,
	type ToolCall,
} from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { mutateInPlace } from "../support/mutating-stream.js";
import { echoTool, user } from "../support/run.js";
import { assertBalanced, assertPaired, collect } from "../support/trace.js";

afterEach(() => {
	vi.useRealTimers();
});

describe("item 1: a stream function that updates its message in place", () => {
	it("SPEC L5: a kept message_update payload never changes afterwards (text and tool arguments)", async () => {
		const scripted = scriptedModel(
			[
				{
					content: [
						{ type: "text", text: "abcd" },
						{ type: "toolCall", id: "c1", name: "echo", arguments: { text: "hello world" } },
					],
					chunkSize: 1,
				},
				{ content: [{ type: "text", text: "done" }] },
			],
			{ now: () => 0 },
		);
		const stream = agentLoop(
			[user("hi")],
			{ messages: [], tools: [echoTool()] },
			{ model: scripted.model, streamFn: mutateInPlace(scripted.stream), now: () => 0 },
		);
		const seen: { event: AgentEvent; json: string }[] = [];
		for await (const event of stream) seen.push({ event, json: JSON.stringify(event) });
		const transcript = await stream.result();
		const updates = seen.filter((s) => s.event.type === "message_update");
		expect(updates.length).toBeGreaterThan(10);
		for (const { event, json } of seen) expect(JSON.stringify(event)).toBe(json);
		// The first text delta still reads "a", the first argument delta still carries partial arguments.
		const first = updates[1]?.event;
		expect(first?.type === "message_update" && first.message.content[0]).toEqual({ type: "text", text: "a" });
		assertPaired(transcript);
	});

	it("SPEC L5, I2: a stalled provider that ignores the abort and keeps streaming cannot touch the committed reply", async () => {
		vi.useFakeTimers();
		const live: AssistantMessage = {
			role: "assistant",
			content: [],
			api: "x",
			provider: "x",
			model: "x",
			usage: emptyUsage(),
			stopReason: "stop",
			timestamp: 0,
		};
		const queue: AssistantMessageEvent[] = [];
		let wake: (() => void) | undefined;
		const push = (event: AssistantMessageEvent) => {
			queue.push(event);
			wake?.();
		};
		const streamFn: StreamFunction = () => {
			// Push-based and deaf to the abort signal: it streams "a", stalls, then goes on regardless.
			push({ type: "start", partial: live });
			live.content.push({ type: "text", text: "" });
			push({ type: "text_start", contentIndex: 0, partial: live });
			(live.content[0] as { text: string }).text += "a";
			push({ type: "text_delta", contentIndex: 0, delta: "a", partial: live });
			setTimeout(() => {
				(live.content[0] as { text: string }).text += "bcd";
				push({ type: "text_delta", contentIndex: 0, delta: "bcd", partial: live });
				const call: ToolCall = { type: "toolCall", id: "late", name: "echo", arguments: {} };
				live.content.push(call);
				push({ type: "toolcall_start", contentIndex: 1, id: "late", name: "echo", partial: live });
				call.arguments.text = "x";
				push({ type: "toolcall_end", contentIndex: 1, toolCall: call, partial: live });
				live.stopReason = "toolUse";
				push({ type: "done", reason: "toolUse", message: live });
			}, 20);
			// A foreign iterable (pi-ai has its own stream class); the type says EventStream, the loop accepts any.
			const foreign = {
				async *[Symbol.asyncIterator]() {
					for (;;) {
						const event = queue.shift();
						if (event) {
							yield event;
							if (event.type === "done") return;
						} else await new Promise<void>((resolve) => (wake = resolve));
					}
				},
			};
			return foreign as unknown as AssistantMessageEventStream;
		};
		const controller = new AbortController();
		const stream = agentLoop(
			[user("hi")],
			{ messages: [], tools: [echoTool()] },
			{ model: scriptedModel([]).model, streamFn, now: () => 0 },
			controller.signal,
		);
		const done = collect(stream);
		await vi.advanceTimersByTimeAsync(5);
		controller.abort();
		const { events, result } = await done;
		const committed = JSON.stringify(result);
		await vi.advanceTimersByTimeAsync(50);
		expect(JSON.stringify(result)).toBe(committed);
		const reply = result[1] as AssistantMessage;
		expect(reply.stopReason).toBe("aborted");
		expect(reply.content).toEqual([{ type: "text", text: "a" }]);
		assertBalanced(events);
		assertPaired(result);
		// Every snapshot is what its event said when pushed ("" at text_start, "a" after the delta), never later.
		const texts = events.flatMap((e) =>
			(e.type === "message_update" || e.type === "message_end") && e.message.role === "assistant"
				? [JSON.stringify(e.message.content)]
				: [],
		);
		expect(texts).toEqual([
			'[{"type":"text","text":""}]',
			'[{"type":"text","text":"a"}]',
			'[{"type":"text","text":"a"}]',
		]);
	});
});

describe("item 1: the fast path is only for capstan's builder-driven streams", () => {
	it("SPEC L5: the scripted model and the provider runner are marked; a bare EventStream is not", async () => {
		const { hasImmutableSnapshots } = await import("../../src/core/snapshot-brand.js");
		const { EventStream } = await import("../../src/index.js");
		const { runProviderStream } = await import("../../src/providers/base/index.js");
		const scripted = scriptedModel([{ content: [{ type: "text", text: "x" }] }]);
		expect(hasImmutableSnapshots(scripted.stream(scripted.model, { messages: [] }))).toBe(true);
		const provider = runProviderStream(scripted.model, {}, async (builder) => void builder.done("stop"));
		expect(hasImmutableSnapshots(provider)).toBe(true);
		expect(hasImmutableSnapshots(new EventStream())).toBe(false);
	});
});
