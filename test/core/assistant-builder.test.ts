import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AssistantMessageBuilder } from "../../src/core/assistant-builder.js";
import { EventStream } from "../../src/core/event-stream.js";
import type { AssistantMessageEvent } from "../../src/core/events.js";
import type { AssistantMessage, ToolCall } from "../../src/core/messages.js";
import { IncrementalJsonParser } from "../../src/core/partial-json.js";

const init = { api: "test-api", provider: "test", model: "m1", timestamp: 1000 };

function setup() {
	const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
	const events: AssistantMessageEvent[] = [];
	const builder = new AssistantMessageBuilder(init, {
		push: (event) => {
			events.push(event);
			stream.push(event);
		},
		end: (message: AssistantMessage) => stream.end(message),
	});
	return { builder, events, stream };
}

/** Compact golden trace (STYLE 7): `type:index`. */
function trace(events: AssistantMessageEvent[]): string {
	return events.map((e) => ("contentIndex" in e ? `${e.type}:${e.contentIndex}` : e.type)).join(" ");
}

function partialOf(event: AssistantMessageEvent): AssistantMessage {
	if (event.type === "done") return event.message;
	if (event.type === "error") return event.error;
	return event.partial;
}

describe("AssistantMessageBuilder events (SPEC E2)", () => {
	it("emits start, block events with content indices, and one done", async () => {
		const { builder, events, stream } = setup();
		builder.start();
		const th = builder.startThinking();
		builder.appendThinking(th, "hmm");
		builder.appendThinkingSignature(th, "sig-");
		builder.appendThinkingSignature(th, "1");
		builder.endThinking(th);
		const tx = builder.startText();
		builder.appendText(tx, "Hel");
		builder.appendText(tx, "lo");
		builder.endText(tx);
		const tc = builder.startToolCall("call_1", "read", "tsig");
		builder.appendToolCallArguments(tc, '{"path": "a');
		builder.appendToolCallArguments(tc, '.ts"}');
		builder.endToolCall(tc);
		const final = builder.done("toolUse");

		expect(trace(events)).toBe(
			"start thinking_start:0 thinking_delta:0 thinking_end:0 text_start:1 text_delta:1 text_delta:1 text_end:1 " +
				"toolcall_start:2 toolcall_delta:2 toolcall_delta:2 toolcall_end:2 done",
		);
		expect(final.content).toEqual([
			{ type: "thinking", thinking: "hmm", signature: "sig-1" },
			{ type: "text", text: "Hello" },
			{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.ts" }, signature: "tsig" },
		]);
		expect(final).toMatchObject({ role: "assistant", api: "test-api", provider: "test", model: "m1" });
		expect(final.stopReason).toBe("toolUse");
		expect(final.timestamp).toBe(1000);
		expect(events[7]).toMatchObject({ type: "text_end", content: "Hello" });
		expect(events[events.length - 1]).toEqual({ type: "done", reason: "toolUse", message: final });
		expect(await stream.result()).toBe(final);
		expect(builder.completedToolCallIds).toEqual(new Set(["call_1"]));
	});

	it("emits start first when a content method, done or fail is called before start()", () => {
		for (const finish of ["text", "done", "fail"] as const) {
			const { builder, events } = setup();
			if (finish === "text") builder.startText();
			if (finish === "done") builder.done("stop");
			if (finish === "fail") builder.fail("error", "boom");
			builder.start();
			expect(events[0]?.type).toBe("start");
			expect(events.filter((e) => e.type === "start")).toHaveLength(1);
		}
	});

	it("SPEC E4: any chunking gives each toolcall_delta the parser's partial value and ends parsed once", () => {
		const chunked = fc
			.tuple(
				fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
				fc.array(fc.nat(), { maxLength: 6 }),
				fc.constantFrom("", " ", "x", "}"),
			)
			.map(([value, cuts, suffix]) => {
				const text = JSON.stringify(value) + suffix;
				const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
				return [...points, text.length].map((point, i, all) => text.slice(i === 0 ? 0 : all[i - 1], point));
			});
		fc.assert(
			fc.property(chunked, (chunks) => {
				const { builder, events } = setup();
				const tc = builder.startToolCall("call_1", "write");
				const reference = new IncrementalJsonParser();
				for (const chunk of chunks) {
					builder.appendToolCallArguments(tc, chunk);
					reference.push(chunk);
					const delta = events.at(-1) as Extract<AssistantMessageEvent, { type: "toolcall_delta" }>;
					const expected = reference.value;
					expect(delta.arguments).toEqual(
						expected !== null && typeof expected === "object" && !Array.isArray(expected) ? expected : {},
					);
				}
				builder.endToolCall(tc);
				const call = builder.message.content[tc] as ToolCall;
				const text = chunks.join("");
				const final = reference.finish();
				if (final.ok)
					expect(call).toEqual({ type: "toolCall", id: "call_1", name: "write", arguments: final.value });
				else {
					expect(call.arguments).toEqual({});
					expect(call.argumentsError).toBe(`Invalid JSON in tool arguments: ${final.error}`);
					expect(call.argumentsText).toBe(text);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("toolcall_delta carries the partial arguments, the same object the partial block holds (SPEC E4)", () => {
		const { builder, events } = setup();
		const tc = builder.startToolCall("c", "write");
		builder.appendToolCallArguments(tc, '{"file": "x.md", "body": "# Ti');
		const delta = events[events.length - 1] as Extract<AssistantMessageEvent, { type: "toolcall_delta" }>;
		expect(delta.arguments).toEqual({ file: "x.md", body: "# Ti" });
		expect(delta.delta).toBe('{"file": "x.md", "body": "# Ti');
		expect((delta.partial.content[tc] as ToolCall).arguments).toBe(delta.arguments);
	});

	it("done closes still-open text, thinking and tool-call blocks, emitting their *_end", () => {
		const { builder, events } = setup();
		const th = builder.startThinking();
		builder.appendThinking(th, "a");
		const tx = builder.startText();
		builder.appendText(tx, "b");
		const tc = builder.startToolCall("cut", "write");
		builder.appendToolCallArguments(tc, '{"body": "trunc');
		const final = builder.done("length");
		expect(trace(events)).toBe(
			"start thinking_start:0 thinking_delta:0 text_start:1 text_delta:1 toolcall_start:2 toolcall_delta:2 " +
				"thinking_end:0 text_end:1 toolcall_end:2 done",
		);
		expect(final.stopReason).toBe("length");
		const call = final.content[2] as ToolCall;
		expect(call.arguments).toEqual({});
		expect(call.argumentsError).toMatch(/^Invalid JSON in tool arguments: Unexpected end of JSON input/);
	});

	it("emits exactly one terminal event; later calls are ignored (SPEC E2)", async () => {
		const { builder, events, stream } = setup();
		const tx = builder.startText();
		const message = builder.done("stop");
		expect(builder.fail("error", "late")).toBe(message);
		expect(builder.done("toolUse")).toBe(message);
		builder.appendText(tx, "late");
		expect(builder.startText()).toBe(-1);
		builder.setUsage({ input: 5 });
		expect(events.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
		expect(builder.message).toBe(message);
		expect(builder.isFinished).toBe(true);
		expect(await stream.result()).toBe(message);
	});

	it("builds every event as a plain object with its documented keys, in order", () => {
		const { builder, events } = setup();
		const th = builder.startThinking();
		builder.appendThinking(th, "hmm");
		builder.endThinking(th);
		const tx = builder.startText();
		builder.appendText(tx, "hi");
		builder.endText(tx);
		const tc = builder.startToolCall("call_1", "read");
		builder.appendToolCallArguments(tc, '{"path":"a"}');
		builder.endToolCall(tc);
		builder.done("toolUse");
		const failed = setup();
		failed.builder.fail("error", "boom");
		const shapes = [...events, ...failed.events].map(
			(e) => `${Object.getPrototypeOf(e) === Object.prototype ? "" : "!"}${Object.keys(e).join(",")}`,
		);
		expect(shapes).toEqual([
			"type,partial",
			"type,contentIndex,partial",
			"type,contentIndex,delta,partial",
			"type,contentIndex,content,partial",
			"type,contentIndex,partial",
			"type,contentIndex,delta,partial",
			"type,contentIndex,content,partial",
			"type,contentIndex,id,name,partial",
			"type,contentIndex,delta,arguments,partial",
			"type,contentIndex,toolCall,partial",
			"type,reason,message",
			"type,partial",
			"type,reason,error",
		]);
	});

	it("works without a stream, as a plain message builder", () => {
		const builder = new AssistantMessageBuilder(init);
		builder.appendText(builder.startText(), "x");
		expect(builder.done("stop").content).toEqual([{ type: "text", text: "x" }]);
	});
});

describe("AssistantMessageBuilder on a drained EventStream (SPEC E1, E2)", () => {
	it("delivers each event in the call that made it, never re-entering the listener", async () => {
		const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
		const builder = new AssistantMessageBuilder(init, stream);
		const log: string[] = [];
		const drained = stream.drain((event) => {
			log.push(`>${event.type}`);
			// A listener that drives the builder itself (a relay): its events follow this one, in order.
			if (event.type === "text_start") builder.appendText(event.contentIndex, "from the listener");
			log.push(`<${event.type}`);
		});
		builder.start();
		expect(log).toEqual([">start", "<start"]); // before start() returned
		const text = builder.startText();
		expect(log.slice(2)).toEqual([">text_start", "<text_start", ">text_delta", "<text_delta"]);
		builder.appendText(text, "!");
		builder.done("stop");
		await drained;
		expect(log.slice(6)).toEqual([">text_delta", "<text_delta", ">text_end", "<text_end", ">done", "<done"]);
		expect((await stream.result()).content).toEqual([{ type: "text", text: "from the listener!" }]);
	});

	it("a listener that fails the reply from inside the terminal event adds no second terminal (SPEC E2)", async () => {
		// A consumer that aborts on `done`: the stream's abort listener calls `fail` while `done` is delivered.
		const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
		const builder = new AssistantMessageBuilder(init, stream);
		const types: string[] = [];
		const drained = stream.drain((event) => {
			types.push(event.type);
			if (event.type === "done") builder.fail("aborted", "too late", "aborted");
		});
		builder.appendText(builder.startText(), "hi");
		const message = builder.done("stop");
		await drained;
		expect(types).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
		expect(await stream.result()).toBe(message);
		expect(builder.message).toBe(message);
	});

	it("a subclass's own push still sees every event", async () => {
		class Logged extends EventStream<AssistantMessageEvent, AssistantMessage> {
			readonly types: string[] = [];
			override push(event: AssistantMessageEvent): void {
				this.types.push(event.type);
				super.push(event);
			}
		}
		const stream = new Logged();
		const drained: string[] = [];
		const done = stream.drain((event) => drained.push(event.type));
		const builder = new AssistantMessageBuilder(init, stream);
		builder.appendText(builder.startText(), "hi");
		builder.done("stop");
		await done;
		expect(stream.types).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
		expect(drained).toEqual(stream.types);
	});

	it("a listener that throws detaches, the drain rejects, and the message still completes", async () => {
		const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
		const builder = new AssistantMessageBuilder(init, stream);
		const seen: string[] = [];
		const drained = stream.drain((event) => {
			seen.push(event.type);
			if (event.type === "text_delta") throw new Error("subscriber broke");
		});
		const text = builder.startText();
		builder.appendText(text, "a");
		builder.appendText(text, "b");
		const final = builder.done("stop");
		await expect(drained).rejects.toThrow("subscriber broke");
		expect(seen).toEqual(["start", "text_start", "text_delta"]);
		expect(await stream.result()).toBe(final);
		expect(final.content).toEqual([{ type: "text", text: "ab" }]);
	});
});

describe("AssistantMessageBuilder tool arguments (SPEC E4)", () => {
	it.each([
		['{"a": 1', undefined, {}, /^Invalid JSON in tool arguments: Unexpected end of JSON input at position 7/],
		['{"a": 1}', undefined, { a: 1 }, undefined],
		["", undefined, {}, undefined],
		["[1, 2]", undefined, {}, /^Tool arguments must be a JSON object, got an array$/],
		["null", undefined, {}, /got null$/],
		['{"streamed": 1}', '{"final": 2}', { final: 2 }, undefined],
		['{"a": 1}', '{"a": oops}', {}, /Unexpected 'o' where a value should start at position 6/],
	])("streamed %j, final %j → %j", (streamed, finalJson, args, error) => {
		const { builder, events } = setup();
		const tc = builder.startToolCall("c", "t");
		if (streamed) builder.appendToolCallArguments(tc, streamed);
		builder.endToolCall(tc, finalJson);
		const end = events[events.length - 1] as Extract<AssistantMessageEvent, { type: "toolcall_end" }>;
		expect(end.type).toBe("toolcall_end");
		expect(end.toolCall.arguments).toEqual(args);
		if (error) expect(end.toolCall.argumentsError).toMatch(error);
		else expect(end.toolCall).not.toHaveProperty("argumentsError");
		expect(end.partial.content[tc]).toBe(end.toolCall);
	});
});

describe("AssistantMessageBuilder snapshots (SPEC L5)", () => {
	/** Drives every builder method; `after` sees the snapshot after each single call. */
	function streamEverything(builder: AssistantMessageBuilder, after: () => void = () => {}): void {
		const step = (action: () => unknown) => {
			action();
			after();
		};
		let tx = -1;
		let th = -1;
		let tc = -1;
		step(() => {
			tx = builder.startText();
		});
		for (const piece of ["a", "b", "c"]) step(() => builder.appendText(tx, piece));
		step(() => builder.setTextSignature(tx, "ts"));
		step(() => builder.addCitation(tx, { url: "u" }));
		step(() => {
			th = builder.startThinking();
		});
		step(() => builder.appendThinking(th, "t1"));
		step(() => builder.appendThinkingSignature(th, "s"));
		step(() => builder.endThinking(th));
		step(() => builder.addRedactedThinking("opaque"));
		step(() => builder.addProviderBlock("test-api", { kind: "server_tool", n: 1 }));
		step(() => {
			tc = builder.startToolCall("c1", "edit");
		});
		for (const piece of ['{"a": [1', ", 2]", ', "b": {"c": "x', 'y"}}'])
			step(() => builder.appendToolCallArguments(tc, piece));
		step(() => builder.endToolCall(tc));
		step(() => builder.setToolCallSignature(tc, "sig"));
		step(() => builder.setUsage({ input: 10, output: 5 }));
		step(() => builder.setResponseId("resp_1"));
		step(() => builder.endText(tx));
		step(() => builder.done("toolUse"));
	}

	it("a kept event's message never changes afterwards", () => {
		const events: AssistantMessageEvent[] = [];
		const copies: unknown[] = [];
		const push = (event: AssistantMessageEvent) => {
			events.push(event);
			copies.push(structuredClone(partialOf(event)));
		};
		const builder = new AssistantMessageBuilder(init, { push, end: () => {} });
		const original = builder.message;
		const originalCopy = structuredClone(original);
		streamEverything(builder);
		expect(events.length).toBeGreaterThan(15);
		for (const [i, event] of events.entries()) expect(partialOf(event)).toEqual(copies[i]);
		expect(original).toEqual(originalCopy);
	});

	it("shares every unchanged block object; only the changed block and the content array are new", () => {
		const { builder } = setup();
		const snapshots: AssistantMessage[] = [builder.message];
		streamEverything(builder, () => snapshots.push(builder.message));
		for (let i = 1; i < snapshots.length; i++) {
			const before = snapshots[i - 1] as AssistantMessage;
			const after = snapshots[i] as AssistantMessage;
			const changed = after.content.filter((block, j) => before.content[j] !== block);
			expect(changed.length).toBeLessThanOrEqual(1);
			if (changed.length > 0) expect(after.content).not.toBe(before.content);
		}
		const final = builder.message;
		expect(final.usage).toMatchObject({ input: 10, output: 5, totalTokens: 15 });
		expect(final.responseId).toBe("resp_1");
		expect(final.content[0]).toEqual({
			type: "text",
			text: "abc",
			signature: "ts",
			citations: [{ url: "u" }],
		});
		expect((final.content[4] as ToolCall).signature).toBe("sig");
	});

	it("text deltas reuse the other blocks and never copy them", () => {
		const { builder } = setup();
		const first = builder.startText();
		builder.appendText(first, "x".repeat(1000));
		builder.endText(first);
		const second = builder.startText();
		const before = builder.message;
		builder.appendText(second, "y");
		expect(builder.message.content[first]).toBe(before.content[first]);
		expect(builder.message).not.toBe(before);
		expect(before.content[second]).toEqual({ type: "text", text: "" });
	});

	it("the message stays plain JSON (SPEC M6)", () => {
		const { builder } = setup();
		streamEverything(builder);
		expect(JSON.parse(JSON.stringify(builder.message))).toEqual(builder.message);
	});

	it("keeps key order across deltas, as the providers set the optional fields (SPEC L5)", () => {
		const { builder } = setup();
		const text = builder.startText();
		builder.setStopDetails({ type: "max_tokens" });
		builder.setResponseId("r1");
		builder.setTextSignature(text, "sig");
		builder.appendText(text, "a");
		const call = builder.startToolCall("c1", "read", "tsig");
		builder.appendToolCallArguments(call, '{"p":1');
		const keys = Object.keys(builder.message);
		expect(keys.slice(-2)).toEqual(["stopDetails", "responseId"]);
		builder.setStopDetails({ type: "stop_sequence" });
		builder.appendText(text, "b");
		expect(Object.keys(builder.message)).toEqual([...keys.slice(0, -2), "responseId", "stopDetails"]);
		expect(Object.keys(builder.message.content[text] ?? {})).toEqual(["type", "text", "signature"]);
		expect(builder.message.content[text]).toEqual({ type: "text", text: "ab", signature: "sig" });
		expect(Object.keys(builder.message.content[call] ?? {})).toEqual([
			"type",
			"id",
			"name",
			"arguments",
			"signature",
		]);
		builder.setStopDetails(undefined);
		builder.appendText(text, "c");
		expect(Object.keys(builder.message)).toEqual([...keys.slice(0, -2), "responseId"]);
	});
});

describe("AssistantMessageBuilder provider blocks (SPEC M3, L5)", () => {
	it("setProviderBlockData fills a reserved block in place, in content order, without touching old snapshots", () => {
		const { builder } = setup();
		const first = builder.addProviderBlock("x-api", { status: "in_progress" });
		const second = builder.addProviderBlock("x-api", { status: "in_progress", n: 2 });
		const before = builder.message;
		builder.setProviderBlockData(second, { status: "completed", n: 2 });
		builder.setProviderBlockData(first, { status: "completed" });
		expect(builder.message.content).toEqual([
			{ type: "providerBlock", api: "x-api", data: { status: "completed" } },
			{ type: "providerBlock", api: "x-api", data: { status: "completed", n: 2 } },
		]);
		expect(before.content[0]).toEqual({
			type: "providerBlock",
			api: "x-api",
			data: { status: "in_progress" },
		});
		const t = builder.startText();
		expect(() => builder.setProviderBlockData(t, {})).toThrow(/not a provider block/);
	});
});

describe("AssistantMessageBuilder.fail (SPEC A4, E3)", () => {
	it("drops tool calls that never reached toolcall_end and marks the interruption", async () => {
		const { builder, events, stream } = setup();
		const tx = builder.startText();
		builder.appendText(tx, "partial answer");
		const done = builder.startToolCall("done_1", "read");
		builder.appendToolCallArguments(done, "{}");
		builder.endToolCall(done);
		const open = builder.startToolCall("open_1", "write");
		builder.appendToolCallArguments(open, '{"x": ');
		builder.setStopDetails({ type: "pause_turn" });
		const message = builder.fail("aborted", "user pressed stop", "aborted");

		expect(message.content.map((b) => b.type)).toEqual(["text", "toolCall"]);
		expect((message.content[1] as ToolCall).id).toBe("done_1");
		expect(message.content[0]).toEqual({ type: "text", text: "partial answer" });
		expect(message.stopReason).toBe("aborted");
		expect(message.errorMessage).toBe("user pressed stop");
		expect(message.errorKind).toBe("aborted");
		expect(message.stopDetails).toEqual({ type: "stream_interrupted_after_content", raw: "pause_turn" });
		expect(events.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
		expect(events[events.length - 1]).toEqual({ type: "error", reason: "aborted", error: message });
		expect(await stream.result()).toBe(message);
	});

	it("tells calls apart by position when a provider repeats an id (SPEC I1)", () => {
		const { builder } = setup();
		const first = builder.startToolCall("dup", "read");
		builder.appendToolCallArguments(first, "{}");
		builder.endToolCall(first);
		const second = builder.startToolCall("dup", "write");
		builder.appendToolCallArguments(second, '{"x": ');
		const message = builder.fail("error", "connection reset");
		expect(message.content).toEqual([{ type: "toolCall", id: "dup", name: "read", arguments: {} }]);
	});

	it("keeps no stop details when nothing was streamed", () => {
		const { builder } = setup();
		const message = builder.fail("error", "HTTP 500", "server");
		expect(message.content).toEqual([]);
		expect(message.stopDetails).toBeUndefined();
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "HTTP 500", errorKind: "server" });
	});

	it("keeps a refusal verdict instead of calling it an interruption (SPEC S5)", () => {
		const { builder } = setup();
		builder.appendText(builder.startText(), "I can't help with");
		builder.setStopDetails({ type: "refusal", raw: "refusal" });
		const message = builder.fail("error", "The model refused to answer");
		expect(message.stopDetails).toEqual({ type: "refusal", raw: "refusal" });
		expect(message.stopReason).toBe("error");
	});
});

describe("AssistantMessageBuilder misuse", () => {
	it.each([
		[
			"an index out of range",
			(b: AssistantMessageBuilder) => b.appendText(3, "x"),
			/no content block at index 3/,
		],
		[
			"the wrong block kind",
			(b: AssistantMessageBuilder) => b.appendThinking(0, "x"),
			/is a text block, not thinking/,
		],
		[
			"a block that already ended",
			(b: AssistantMessageBuilder) => {
				b.endText(0);
				b.appendText(0, "x");
			},
			/text block at index 0 has already ended/,
		],
		["a non-integer index", (b: AssistantMessageBuilder) => b.endText(0.5), /no content block at index 0.5/],
		[
			"a numeric string from an untyped caller, on the delta path",
			(b: AssistantMessageBuilder) => b.appendText("0" as unknown as number, "x"),
			/no content block at index 0/,
		],
	])("throws a clear Error for %s", (_name, misuse, message) => {
		const builder = new AssistantMessageBuilder(init);
		builder.startText();
		expect(() => misuse(builder)).toThrow(message);
	});
});

describe("AssistantMessageBuilder cost (SPEC E4, L5; not timed)", () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it("never stringifies on the hot path and parses tool arguments exactly once, at toolcall_end", () => {
		const stringify = vi.spyOn(JSON, "stringify");
		const parse = vi.spyOn(JSON, "parse");
		const builder = new AssistantMessageBuilder(init);
		const tx = builder.startText();
		for (let i = 0; i < 500; i++) builder.appendText(tx, "some text ");
		const tc = builder.startToolCall("c", "write");
		builder.appendToolCallArguments(tc, '{"body": "');
		for (let i = 0; i < 500; i++) builder.appendToolCallArguments(tc, "chunk of body ");
		builder.appendToolCallArguments(tc, '"}');
		expect(parse).not.toHaveBeenCalled();
		builder.endToolCall(tc);
		builder.done("toolUse");
		expect(stringify).not.toHaveBeenCalled();
		expect(parse).toHaveBeenCalledTimes(1);
	});
});

describe("AssistantMessageBuilder properties (SPEC L5, E2)", () => {
	const block = fc.oneof(
		fc.record({ kind: fc.constant("text" as const), pieces: fc.array(fc.string(), { maxLength: 5 }) }),
		fc.record({ kind: fc.constant("thinking" as const), pieces: fc.array(fc.string(), { maxLength: 5 }) }),
		fc.record({
			kind: fc.constant("toolCall" as const),
			args: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
			cut: fc.integer({ min: 1, max: 12 }),
		}),
	);

	it("any interleaving keeps kept snapshots unchanged, shares unchanged blocks and ends with one terminal", () => {
		fc.assert(
			fc.property(fc.array(block, { maxLength: 6 }), fc.boolean(), (blocks, fails) => {
				const events: AssistantMessageEvent[] = [];
				const copies: unknown[] = [];
				const builder = new AssistantMessageBuilder(init, {
					push: (event) => {
						events.push(event);
						copies.push(structuredClone(partialOf(event)));
					},
					end: () => {},
				});
				const expected: unknown[] = [];
				blocks.forEach((spec, n) => {
					if (spec.kind === "toolCall") {
						const json = JSON.stringify(spec.args);
						const i = builder.startToolCall(`id${n}`, "tool");
						for (let at = 0; at < json.length; at += spec.cut)
							builder.appendToolCallArguments(i, json.slice(at, at + spec.cut));
						builder.endToolCall(i);
						expected.push({ type: "toolCall", id: `id${n}`, name: "tool", arguments: JSON.parse(json) });
					} else if (spec.kind === "text") {
						const i = builder.startText();
						for (const piece of spec.pieces) builder.appendText(i, piece);
						expected.push({ type: "text", text: spec.pieces.join("") });
					} else {
						const i = builder.startThinking();
						for (const piece of spec.pieces) builder.appendThinking(i, piece);
						expected.push({ type: "thinking", thinking: spec.pieces.join("") });
					}
				});
				const final = fails ? builder.fail("error", "cut") : builder.done("stop");
				expect(final.content).toEqual(expected);
				expect(events[0]?.type).toBe("start");
				expect(events.filter((e) => e.type === "done" || e.type === "error")).toHaveLength(1);
				for (const [i, event] of events.entries()) {
					expect(partialOf(event)).toEqual(copies[i]);
					if (i === 0) continue;
					const before = partialOf(events[i - 1] as AssistantMessageEvent);
					const after = partialOf(event);
					const changed = after.content.filter((b, j) => before.content[j] !== b).length;
					expect(changed).toBeLessThanOrEqual(1);
				}
			}),
			{ numRuns: 150 },
		);
	});
});
