import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AssistantMessageEvent, AssistantMessageEventStream } from "../../src/core/events.js";
import type { AssistantMessage, Message, ToolCall } from "../../src/core/messages.js";
import type { Context, StreamOptions } from "../../src/core/model.js";
import {
	errorReply,
	type ScriptedBlock,
	type ScriptedReply,
	scriptedModel,
	textReply,
	toolReply,
} from "../../src/testing/index.js";

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });
const context = (...messages: Message[]): Context => ({ systemPrompt: "be brief", messages });

async function drain(
	stream: AssistantMessageEventStream,
): Promise<{ events: AssistantMessageEvent[]; thrown?: unknown }> {
	const events: AssistantMessageEvent[] = [];
	try {
		for await (const event of stream) events.push(event);
	} catch (thrown) {
		return { events, thrown };
	}
	return { events };
}

function trace(events: AssistantMessageEvent[]): string {
	return events.map((e) => e.type).join(" ");
}

function terminal(events: AssistantMessageEvent[]): AssistantMessage {
	const last = events[events.length - 1];
	if (last?.type === "done") return last.message;
	if (last?.type === "error") return last.error;
	throw new Error(`no terminal event, last was ${last?.type}`);
}

async function play(reply: ScriptedReply, options: StreamOptions = {}) {
	const scripted = scriptedModel([reply], { now: () => 42 });
	const stream = scripted.stream(scripted.model, context(user("hi")), options);
	const { events, thrown } = await drain(stream);
	return { events, thrown, stream, scripted };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
	vi.useRealTimers();
});

describe("scriptedModel replies (SPEC E2)", () => {
	it("streams text in several deltas and ends with done:stop", async () => {
		const { events, stream } = await play(textReply("Hello, world"));
		expect(trace(events)).toBe("start text_start text_delta text_delta text_delta text_end done");
		const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
		expect(deltas).toEqual(["Hell", "o, w", "orld"]);
		const message = await stream.result();
		expect(message).toMatchObject({
			role: "assistant",
			content: [{ type: "text", text: "Hello, world" }],
			stopReason: "stop",
			api: "scripted",
			provider: "scripted",
			model: "scripted-model",
			timestamp: 42,
		});
		expect(terminal(events)).toBe(message);
	});

	it("streams tool arguments in small pieces with partial arguments, then toolUse", async () => {
		const { events, stream } = await play(toolReply("write", { path: "notes.md", body: "line one" }));
		const deltas = events.filter((e) => e.type === "toolcall_delta");
		expect(deltas.length).toBeGreaterThan(3);
		expect(deltas.map((e) => e.delta).join("")).toBe('{"path":"notes.md","body":"line one"}');
		expect(deltas.some((e) => e.arguments.body !== undefined && e.arguments.body !== "line one")).toBe(true);
		const message = await stream.result();
		expect(message.stopReason).toBe("toolUse");
		expect(message.content).toEqual([
			{ type: "toolCall", id: "call_1", name: "write", arguments: { path: "notes.md", body: "line one" } },
		]);
	});

	it("numbers tool call ids deterministically across calls (SPEC L13), keeping explicit ids", async () => {
		const scripted = scriptedModel([
			{
				content: [
					{ type: "toolCall", name: "a" },
					{ type: "toolCall", name: "b", id: "mine" },
				],
			},
			toolReply("c", {}, { text: "again" }),
		]);
		const first = await scripted.stream(scripted.model, context()).result();
		const second = await scripted.stream(scripted.model, context()).result();
		const ids = [...first.content, ...second.content].flatMap((b) => (b.type === "toolCall" ? [b.id] : []));
		expect(ids).toEqual(["call_1", "mine", "call_2"]);
		expect(second.content[0]).toEqual({ type: "text", text: "again" });
	});

	it("plays thinking with its signature, and text signatures", async () => {
		const { stream, events } = await play({
			content: [
				{ type: "thinking", thinking: "Let me think", signature: "sig-abc" },
				{ type: "text", text: "ok", signature: "t-sig" },
			],
		});
		expect(trace(events)).toBe(
			"start thinking_start thinking_delta thinking_delta thinking_delta thinking_end text_start text_delta text_end done",
		);
		expect((await stream.result()).content).toEqual([
			{ type: "thinking", thinking: "Let me think", signature: "sig-abc" },
			{ type: "text", text: "ok", signature: "t-sig" },
		]);
	});

	it("passes raw, invalid argument JSON through to an argumentsError (SPEC E4)", async () => {
		const { stream } = await play(toolReply("edit", '{"path": "a.ts", '));
		const call = (await stream.result()).content[0] as ToolCall;
		expect(call.arguments).toEqual({});
		expect(call.argumentsError).toMatch(/Invalid JSON in tool arguments: Unexpected end of JSON input/);
	});

	it("carries stop reason, stop details, usage and response id", async () => {
		const { stream } = await play({
			...textReply("partial"),
			stopReason: "length",
			stopDetails: { type: "pause_turn" },
			usage: { input: 12, output: 3 },
			responseId: "resp_7",
		});
		const message = await stream.result();
		expect(message.stopReason).toBe("length");
		expect(message.stopDetails).toEqual({ type: "pause_turn" });
		expect(message.usage).toMatchObject({ input: 12, output: 3, totalTokens: 15 });
		expect(message.responseId).toBe("resp_7");
	});

	it("prices usage by the model's price table unless the script gives the cost (SPEC M5)", async () => {
		const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
		const scripted = scriptedModel(
			[
				{ ...textReply("a"), usage: { input: 1_000_000, output: 1_000_000 } },
				{
					...textReply("b"),
					usage: {
						input: 1,
						output: 1,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
					},
				},
			],
			{ model: { cost: prices } },
		);
		const first = await scripted.stream(scripted.model, context(user("hi"))).result();
		expect(first.usage.cost).toEqual({ input: 3, output: 15, cacheRead: 0, cacheWrite: 0, total: 18 });
		const second = await scripted.stream(scripted.model, context(user("hi"))).result();
		expect(second.usage.cost.total).toBe(0.5);
		// The default scripted model has no prices: its replies cost what the script says.
		const { stream } = await play({ ...textReply("c"), usage: { input: 5, output: 5 } });
		expect((await stream.result()).usage.cost.total).toBe(0);
	});

	it("keeps a failing reply's usage: its tokens were generated (and billed)", async () => {
		const { stream } = await play({
			...textReply("partial"),
			usage: { input: 7, output: 2 },
			error: { message: "connection reset" },
		});
		const message = await stream.result();
		expect(message.stopReason).toBe("error");
		expect(message.usage).toMatchObject({ input: 7, output: 2 });
	});

	it("keeps the response id on a reply that fails or is aborted after it started, as a provider's", async () => {
		const failed = await play({ ...textReply("partial"), responseId: "resp_1", error: { message: "reset" } });
		expect(await failed.stream.result()).toMatchObject({ stopReason: "error", responseId: "resp_1" });
		const controller = new AbortController();
		const scripted = scriptedModel([{ ...textReply("partial"), responseId: "resp_2", hang: true }]);
		const stream = scripted.stream(scripted.model, context(), { signal: controller.signal });
		await settle();
		controller.abort();
		expect(await stream.result()).toMatchObject({ stopReason: "aborted", responseId: "resp_2" });
	});

	it("ends a refusal as an error message that keeps the refusal details (SPEC S5)", async () => {
		const { events } = await play({ ...textReply("I can't"), stopDetails: { type: "refusal" } });
		const message = terminal(events);
		expect(events[events.length - 1]?.type).toBe("error");
		expect(message).toMatchObject({ stopReason: "error", stopDetails: { type: "refusal" } });
		expect(message.errorMessage).toBe("The model refused to respond");
		expect(message.content).toEqual([{ type: "text", text: "I can't" }]);
	});

	it("ends an unknown stop reason as an error message, as a provider does (SPEC M4)", async () => {
		const { events } = await play({
			...textReply("ok"),
			stopDetails: { type: "unknown_stop_reason", raw: "odd" },
		});
		expect(events[events.length - 1]?.type).toBe("error");
		expect(terminal(events)).toMatchObject({
			stopReason: "error",
			stopDetails: { type: "unknown_stop_reason", raw: "odd" },
			errorMessage: "provider returned an unknown stop reason: odd",
			errorKind: "malformed_response",
			content: [{ type: "text", text: "ok" }],
		});
	});

	it("keeps slices of astral characters whole", async () => {
		const { events } = await play({ content: [{ type: "text", text: "a😀b😀" }], chunkSize: 2 });
		const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
		expect(deltas).toEqual(["a😀", "b😀"]);
	});

	it("uses the call's model for message metadata and the model overrides for `model`", async () => {
		const scripted = scriptedModel([textReply("x")], { model: { id: "fake-1", provider: "acme" } });
		expect(scripted.model).toMatchObject({ id: "fake-1", provider: "acme", api: "scripted" });
		const other = { ...scripted.model, id: "fake-2", api: "other-api" };
		expect(await scripted.stream(other, context()).result()).toMatchObject({
			model: "fake-2",
			api: "other-api",
		});
	});
});

describe("scriptedModel errors (SPEC E3, A4)", () => {
	it("fails mid-stream after N content events, keeping the content so far", async () => {
		const { events } = await play({
			content: [
				{ type: "text", text: "abcdefgh" },
				{ type: "toolCall", name: "t", arguments: { a: 1 } },
			],
			error: { message: "connection reset", kind: "network", afterEvents: 6 },
		});
		expect(trace(events)).toBe(
			"start text_start text_delta text_delta text_end toolcall_start toolcall_delta error",
		);
		const message = terminal(events);
		expect(message).toMatchObject({
			stopReason: "error",
			errorMessage: "connection reset",
			errorKind: "network",
		});
		expect(message.content).toEqual([{ type: "text", text: "abcdefgh" }]); // unfinished call dropped (A4)
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
	});

	it("errorReply fails before any content", async () => {
		const { events } = await play(errorReply("HTTP 529 overloaded", "overloaded"));
		expect(trace(events)).toBe("start error");
		expect(terminal(events)).toMatchObject({ stopReason: "error", errorKind: "overloaded", content: [] });
	});

	it("answers an exhausted script with an error message, never a throw", async () => {
		const scripted = scriptedModel([textReply("only one")]);
		await scripted.stream(scripted.model, context()).result();
		const message = await scripted.stream(scripted.model, context()).result();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toMatch(/script has 1 replies, but call #2 was made/);
	});

	it("repeats the last reply when asked to", async () => {
		const scripted = scriptedModel([textReply("a"), textReply("b")], { onExhausted: "repeat-last" });
		const texts: unknown[] = [];
		for (let i = 0; i < 4; i++)
			texts.push((await scripted.stream(scripted.model, context()).result()).content[0]);
		expect(texts.map((b) => (b as { text: string }).text)).toEqual(["a", "b", "b", "b"]);
	});

	it("answers a script function that returns no reply with an error message, never a throw (SPEC E3)", async () => {
		const replies: ScriptedReply[] = [textReply("only one")];
		const scripted = scriptedModel((call) => replies[call.index] as ScriptedReply);
		await scripted.stream(scripted.model, context()).result();
		const message = await scripted.stream(scripted.model, context()).result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "internal" });
		expect(message.errorMessage).toMatch(/script function returned no reply for call #2/);
	});

	it("turns a throwing script function into an error message", async () => {
		const scripted = scriptedModel(() => {
			throw new Error("bad script");
		});
		const message = await scripted.stream(scripted.model, context()).result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "internal" });
		expect(message.errorMessage).toMatch(/bad script/);
	});
});

describe("scriptedModel misbehaving streams (SPEC L12)", () => {
	it("throws: sync makes the stream function itself throw", () => {
		const scripted = scriptedModel([{ throws: "sync", error: { message: "kaboom" } }]);
		expect(() => scripted.stream(scripted.model, context())).toThrow("kaboom");
		expect(scripted.calls).toHaveLength(1);
	});

	it("throws: async makes the iterator throw after the content, with no terminal event", async () => {
		const { events, thrown, stream } = await play({ ...textReply("abc"), throws: "async" });
		expect(trace(events)).toBe("start text_start text_delta text_end");
		expect(thrown).toEqual(new Error("scripted stream threw"));
		await expect(stream.result()).rejects.toThrow("scripted stream threw");
	});

	it("endWithoutTerminal ends the iteration with no done/error and no result", async () => {
		const { events, thrown, stream } = await play({ ...textReply("abc"), endWithoutTerminal: true });
		expect(thrown).toBeUndefined();
		expect(trace(events)).toBe("start text_start text_delta text_end");
		await expect(stream.result()).rejects.toThrow(/without a result/);
	});
});

describe("scriptedModel calls", () => {
	it("records each call's model, context and options; later mutation does not change the record", async () => {
		const scripted = scriptedModel([textReply("a"), textReply("b")]);
		const ctx = context(user("first"));
		await scripted.stream(scripted.model, ctx, { temperature: 0.2 }).result();
		ctx.messages.push(user("second"));
		await scripted.stream(scripted.model, ctx).result();
		expect(scripted.calls.map((c) => c.context.messages.length)).toEqual([1, 2]);
		expect(scripted.calls[0]?.options).toEqual({ temperature: 0.2 });
		expect(scripted.calls[0]?.context.systemPrompt).toBe("be brief");
		expect(scripted.calls[1]?.index).toBe(1);
	});

	it("record: false keeps no calls but still advances through the script", async () => {
		const scripted = scriptedModel([textReply("a"), textReply("b")], { record: false });
		const first = await scripted.stream(scripted.model, context()).result();
		const second = await scripted.stream(scripted.model, context()).result();
		expect([first.content[0], second.content[0]]).toEqual([
			{ type: "text", text: "a" },
			{ type: "text", text: "b" },
		]);
		expect(scripted.calls).toEqual([]);
	});

	it("lets a script function react to the context", async () => {
		const scripted = scriptedModel(({ index, context: ctx }) =>
			textReply(`call ${index} saw ${ctx.messages.length} messages`),
		);
		const message = await scripted.stream(scripted.model, context(user("a"), user("b"))).result();
		expect(message.content).toEqual([{ type: "text", text: "call 0 saw 2 messages" }]);
	});
});

describe("scriptedModel abort (SPEC A1, A2, A5)", () => {
	it("ends at once with an aborted error carrying the reason, keeping streamed text", async () => {
		vi.useFakeTimers();
		const controller = new AbortController();
		const scripted = scriptedModel([{ ...textReply("a long answer"), delayMs: 10 }]);
		const stream = scripted.stream(scripted.model, context(), { signal: controller.signal });
		const drained = drain(stream);
		await vi.advanceTimersByTimeAsync(30); // start, text_start, first delta
		controller.abort("user pressed stop");
		const { events } = await drained;
		expect(trace(events)).toBe("start text_start text_delta error");
		const message = terminal(events);
		expect(message).toMatchObject({
			stopReason: "aborted",
			errorMessage: "user pressed stop",
			errorKind: "aborted",
		});
		expect(message.content).toEqual([{ type: "text", text: "a lo" }]);
		expect(vi.getTimerCount()).toBe(0); // the pending delay was cleared, not left to fire
	});

	it.each([
		[undefined, "Request was aborted"],
		[new Error("deadline hit"), "deadline hit"],
		[new DOMException("stop", "AbortError"), "Request was aborted"],
	])("abort reason %s reads %j (SPEC A5)", async (reason, text) => {
		const controller = new AbortController();
		controller.abort(reason);
		const { events } = await play(textReply("never"), { signal: controller.signal });
		expect(trace(events)).toBe("start error");
		expect(terminal(events).errorMessage).toBe(text);
	});

	it("hang: never finishes until aborted, then aborts promptly", async () => {
		const controller = new AbortController();
		const scripted = scriptedModel([{ ...textReply("thinking..."), hang: true }]);
		const stream = scripted.stream(scripted.model, context(), { signal: controller.signal });
		const drained = drain(stream);
		await settle();
		expect(stream.done).toBe(false);
		controller.abort();
		const { events } = await drained;
		expect(events[events.length - 1]?.type).toBe("error");
		expect(terminal(events).content).toEqual([{ type: "text", text: "thinking..." }]);
	});

	it("ignoreAbort + hang: keeps hanging after the signal fires (a provider that ignores abort)", async () => {
		const controller = new AbortController();
		const scripted = scriptedModel([{ ...textReply("x"), hang: true, ignoreAbort: true }]);
		const stream = scripted.stream(scripted.model, context(), { signal: controller.signal });
		await settle();
		controller.abort();
		await settle();
		expect(stream.done).toBe(false);
	});

	it("ignoreAbort: keeps streaming to done after the signal fires", async () => {
		const controller = new AbortController();
		const scripted = scriptedModel([{ ...textReply("abcdefgh"), ignoreAbort: true }]);
		const stream = scripted.stream(scripted.model, context(), { signal: controller.signal });
		controller.abort();
		const { events } = await drain(stream);
		expect(events[events.length - 1]?.type).toBe("done");
	});

	it("registers one abort listener per stream and removes it when done (SPEC A2)", async () => {
		const controller = new AbortController();
		const add = vi.spyOn(controller.signal, "addEventListener");
		const remove = vi.spyOn(controller.signal, "removeEventListener");
		const { events } = await play(toolReply("t", { long: "x".repeat(200) }), { signal: controller.signal });
		expect(events.length).toBeGreaterThan(20);
		expect(add).toHaveBeenCalledTimes(1);
		await settle();
		expect(remove).toHaveBeenCalledTimes(1);
		expect(remove.mock.calls[0]?.[1]).toBe(add.mock.calls[0]?.[1]);
	});
});

describe("scriptedModel delays (fake timers)", () => {
	it("waits delayMs before each event, driven by fake timers", async () => {
		vi.useFakeTimers();
		const scripted = scriptedModel([{ ...textReply("abcdefgh"), delayMs: 100 }]);
		const stream = scripted.stream(scripted.model, context());
		const events: AssistantMessageEvent[] = [];
		const reading = (async () => {
			for await (const event of stream) events.push(event);
		})();
		await vi.advanceTimersByTimeAsync(99);
		expect(events).toHaveLength(0);
		await vi.advanceTimersByTimeAsync(1);
		expect(trace(events)).toBe("start");
		await vi.advanceTimersByTimeAsync(200);
		expect(trace(events)).toBe("start text_start text_delta");
		await vi.advanceTimersByTimeAsync(10_000);
		await reading;
		expect(trace(events)).toBe("start text_start text_delta text_delta text_end done");
	});
});

describe("scriptedModel properties (SPEC E2)", () => {
	const scriptedBlock: fc.Arbitrary<ScriptedBlock> = fc.oneof(
		fc.record({ type: fc.constant("text" as const), text: fc.string() }),
		fc.record({ type: fc.constant("thinking" as const), thinking: fc.string() }),
		fc.record({
			type: fc.constant("toolCall" as const),
			name: fc.constantFrom("read", "write"),
			arguments: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
		}),
	);

	it("every reply is start, well-indexed block events, then exactly one terminal", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(scriptedBlock, { maxLength: 5 }),
				fc.integer({ min: 1, max: 9 }),
				fc.option(fc.nat({ max: 30 }), { nil: undefined }),
				async (content, chunkSize, failAfter) => {
					const reply: ScriptedReply = { content, chunkSize };
					if (failAfter !== undefined) reply.error = { message: "cut", afterEvents: failAfter };
					const { events } = await play(reply);
					expect(events[0]?.type).toBe("start");
					const terminals = events.filter((e) => e.type === "done" || e.type === "error");
					expect(terminals).toHaveLength(1);
					expect(events[events.length - 1]).toBe(terminals[0]);
					const final = terminal(events);
					for (const event of events)
						if ("contentIndex" in event)
							expect(event.contentIndex).toBeLessThan(event.partial.content.length);
					if (failAfter === undefined) {
						expect(final.content.map((b) => b.type)).toEqual(content.map((b) => b.type));
						expect(final.stopReason).toBe(content.some((b) => b.type === "toolCall") ? "toolUse" : "stop");
					} else expect(final.stopReason).toBe("error");
				},
			),
			{ numRuns: 100 },
		);
	});
});
