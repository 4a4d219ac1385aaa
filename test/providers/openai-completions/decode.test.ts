/**
 * Decoder behaviour on hand-written streams (SYNTHETIC, see synthetic.ts) for the cases the recordings do not
 * cover, through the loopback server, real fetch and our decoder.
 */
import { describe, expect, it } from "vitest";
import { callsOf, textOf } from "../support/content.js";
import { serverForFile } from "../support/loopback.js";
import { collect, testModel } from "./helpers.js";
import { chunk, DONE, usageChunk } from "./synthetic.js";

const server = serverForFile({ expectDrained: true });

const FAST = { retryBaseDelayMs: 1 };
const call = (index: number | undefined, id: string | undefined, name: string | undefined, args: string) => ({
	...(index === undefined ? {} : { index }),
	...(id === undefined ? {} : { id, type: "function" }),
	function: { ...(name === undefined ? {} : { name }), arguments: args },
});

async function run(body: string, split = true) {
	server.enqueue({ type: "sse", body, split: split ? { seed: 9, pieces: 16 } : false });
	return collect(testModel(`${server.baseUrl}/v1`), FAST);
}

describe("in-stream errors keep the content so far (SPEC E3, A4)", () => {
	it("Groq: a named `event: error` frame, then the body closes without [DONE]", async () => {
		const body =
			chunk({ role: "assistant", content: "Hel" }) +
			'event: error\ndata: {"error":{"message":"Internal Server Error","type":"internal_server_error"}}\n\n';
		const { message, events } = await run(body);
		expect(message).toMatchObject({
			stopReason: "error",
			errorKind: "server",
			errorMessage: "Internal Server Error",
		});
		expect(message.content).toEqual([{ type: "text", text: "Hel" }]);
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
		expect(events.at(-1)?.type).toBe("error");
	});

	it("OpenRouter: an `error` object inside an ordinary chunk, classified by its HTTP-like code", async () => {
		const body =
			": OPENROUTER PROCESSING\n\n" +
			chunk({ role: "assistant", content: "Partial" }) +
			chunk({ content: "" }, "error", { error: { code: 429, message: "Rate limit exceeded upstream" } }) +
			DONE;
		const { message } = await run(body);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "rate_limit" });
		expect(message.errorMessage).toContain("Rate limit exceeded upstream");
		expect(textOf(message)).toBe("Partial");
	});

	it("a body that ends without finish_reason or [DONE]: 'stream ended unexpectedly', content kept", async () => {
		const { message } = await run(chunk({ role: "assistant", content: "Half a sent" }));
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "stream ended unexpectedly" });
		expect(textOf(message)).toBe("Half a sent");
	});

	it("[DONE] without any finish_reason is also an unexpected end", async () => {
		const { message } = await run(chunk({ role: "assistant", content: "x" }) + DONE);
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "stream ended unexpectedly" });
	});

	it("a tool call cut by the end of the body is dropped (it never reached toolcall_end)", async () => {
		const body =
			chunk({ content: "Let me look." }) + chunk({ tool_calls: [call(0, "call_1", "read", '{"pa')] });
		const { message } = await run(body);
		expect(message.stopReason).toBe("error");
		expect(callsOf(message)).toEqual([]);
		expect(textOf(message)).toBe("Let me look.");
	});

	it("malformed JSON in a chunk → malformed_response", async () => {
		const { message } = await run(`${chunk({ content: "a" })}data: {not json\n\n`);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "malformed_response" });
	});
});

describe("finish_reason mapping (SPEC M4)", () => {
	it("content_filter → error with stopDetails content_filter (a verdict, not an interruption)", async () => {
		const { message } = await run(chunk({ content: "Some" }) + chunk({}, "content_filter") + DONE);
		expect(message).toMatchObject({
			stopReason: "error",
			stopDetails: { type: "content_filter", raw: "content_filter" },
		});
		expect(textOf(message)).toBe("Some");
	});

	it("function_call → toolUse", async () => {
		const { message } = await run(
			chunk({ tool_calls: [call(0, "c1", "f", "{}")] }) + chunk({}, "function_call") + DONE,
		);
		expect(message.stopReason).toBe("toolUse");
	});

	it("an unknown value → error with the raw value kept", async () => {
		const { message } = await run(chunk({ content: "ok" }) + chunk({}, "eos") + DONE);
		expect(message).toMatchObject({
			stopReason: "error",
			stopDetails: { type: "unknown_stop_reason", raw: "eos" },
		});
	});

	it("length with a half-written tool call → length, the call marked with argumentsError (SPEC S2, E4)", async () => {
		const { message } = await run(
			chunk({ tool_calls: [call(0, "c1", "write", '{"text": "abc')] }) + chunk({}, "length") + DONE,
		);
		expect(message.stopReason).toBe("length");
		const [toolCall] = message.content;
		expect(toolCall).toMatchObject({ type: "toolCall", id: "c1", arguments: {} });
		expect(toolCall?.type === "toolCall" && toolCall.argumentsError).toMatch(/Invalid JSON/);
	});

	it("a finish_reason followed by later chunks (OpenRouter) is kept; usage may come after it", async () => {
		const body =
			chunk({ content: "4" }) + chunk({}, "stop") + chunk({ content: "" }, null) + usageChunk(7, 1) + DONE;
		const { message } = await run(body);
		expect(message.stopReason).toBe("stop");
		expect(message.usage).toMatchObject({ input: 7, output: 1 });
	});
});

describe("tool calls", () => {
	it("several calls on one index with different ids are separate calls", async () => {
		const body =
			chunk({ tool_calls: [call(0, "a", "read", '{"p":1}')] }) +
			chunk({ tool_calls: [call(0, "b", "read", '{"p":2}')] }) +
			chunk({}, "tool_calls") +
			DONE;
		expect(callsOf((await run(body)).message)).toEqual([
			{ id: "a", name: "read", arguments: { p: 1 } },
			{ id: "b", name: "read", arguments: { p: 2 } },
		]);
	});

	it("index-less calls (Mistral) are told apart by id; a fragment without id continues the last call", async () => {
		const body =
			chunk({
				tool_calls: [call(undefined, "AAAAAAAAA", "x", '{"a":'), call(undefined, "BBBBBBBBB", "y", "{}")],
			}) +
			chunk({ tool_calls: [call(undefined, "AAAAAAAAA", undefined, "1}")] }) +
			chunk({}, "tool_calls") +
			DONE;
		expect(callsOf((await run(body)).message)).toEqual([
			{ id: "AAAAAAAAA", name: "x", arguments: { a: 1 } },
			{ id: "BBBBBBBBB", name: "y", arguments: {} },
		]);
	});

	it("arguments that arrive before the name are buffered; a call without id gets a unique one", async () => {
		const body =
			chunk({ tool_calls: [call(0, undefined, undefined, '{"q":')] }) +
			chunk({ tool_calls: [call(0, undefined, "search", '"cats"}')] }) +
			chunk({ tool_calls: [call(1, undefined, "search", '{"q":"dogs"}')] }) +
			chunk({}, "tool_calls") +
			DONE;
		const calls = callsOf((await run(body)).message);
		expect(calls.map((c) => [c.name, c.arguments])).toEqual([
			["search", { q: "cats" }],
			["search", { q: "dogs" }],
		]);
		expect(new Set(calls.map((c) => c.id)).size).toBe(2);
	});

	it("SPEC E2/E4: events in order with best-effort partial arguments", async () => {
		const body =
			chunk({ reasoning_content: "Think." }) +
			chunk({ content: "Sure." }) +
			chunk({ tool_calls: [call(0, "c1", "read", '{"path":"a')] }) +
			chunk({ tool_calls: [call(0, undefined, undefined, '.txt"}')] }) +
			chunk({}, "tool_calls") +
			DONE;
		const { events } = await run(body, false);
		expect(events.map((event) => event.type).join(" ")).toBe(
			"start thinking_start thinking_delta thinking_end text_start text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_end done",
		);
		const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.arguments] : []));
		expect(deltas).toEqual([{ path: "a" }, { path: "a.txt" }]);
	});
});

describe("reasoning", () => {
	it("reasoning and reasoning_details carrying the same text are taken once; signatures kept; encrypted → redacted", async () => {
		const body =
			chunk({ reasoning: "Plan", reasoning_details: [{ type: "reasoning.text", text: "Plan", index: 0 }] }) +
			chunk({ reasoning_details: [{ type: "reasoning.text", text: " more", index: 0 }] }) +
			chunk({
				reasoning: null,
				reasoning_details: [{ type: "reasoning.text", signature: "sig==", index: 0 }],
			}) +
			chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "opaque", index: 1 }] }) +
			chunk({ content: "Done" }, "stop") +
			DONE;
		const { message } = await run(body);
		expect(message.content).toEqual([
			{ type: "thinking", thinking: "Plan more", signature: "sig==" },
			{ type: "redactedThinking", data: "opaque" },
			{ type: "text", text: "Done" },
			{
				type: "providerBlock",
				api: "openai-completions",
				data: {
					type: "reasoning_details",
					reasoning_details: [
						{ type: "reasoning.text", index: 0, text: "Plan more", signature: "sig==" },
						{ type: "reasoning.encrypted", index: 1, data: "opaque" },
					],
				},
			},
		]);
	});
});

describe("named error frames", () => {
	it("an `event: error` frame whose data is not JSON is still an error, with its text", async () => {
		const body = `${chunk({ content: "a" })}event: error\ndata: upstream exploded\n\n`;
		const { message } = await run(body);
		expect(message).toMatchObject({
			stopReason: "error",
			errorKind: "server",
			errorMessage: "upstream exploded",
		});
	});
});
