/**
 * AI SDK stream parts → capstan events, with the AI SDK's own mock models (V3 from ai 6, V2 from ai 5).
 */
import { APICallError, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { AI_SDK_FINISH_REASONS, mapFinishReason, normalizeUsage } from "../../src/ai-sdk/finish.js";
import { aiSdkModel, aiSdkStreamFunction } from "../../src/ai-sdk/index.js";
import type { Context } from "../../src/core/model.js";
import { assertEventShape, collectStream } from "../providers/support/collect.js";
import { finishV3, mockV2, mockV3, trace, usageV3, type V2Part } from "./support.js";

const HI: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };
const PRICES = { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 0 };

describe("stream parts (V3)", () => {
	it("maps text, reasoning with its provider metadata, response id and usage with cost (SPEC E2, M3, M5)", async () => {
		const lm = mockV3([
			{ type: "stream-start", warnings: [] },
			{ type: "response-metadata", id: "resp_1", modelId: "mock-model-v3" },
			{ type: "reasoning-start", id: "r1", providerMetadata: { mock: { itemId: "rs_1" } } },
			{ type: "reasoning-delta", id: "r1", delta: "Think" },
			{
				type: "reasoning-delta",
				id: "r1",
				delta: "ing.",
				providerMetadata: { mock: { signature: "sig==" } },
			},
			{ type: "reasoning-end", id: "r1" },
			{ type: "text-start", id: "t1" },
			{ type: "text-delta", id: "t1", delta: "Hello" },
			{ type: "text-delta", id: "t1", delta: " world" },
			{ type: "text-end", id: "t1", providerMetadata: { mock: { itemId: "msg_1" } } },
			{
				type: "finish",
				finishReason: { unified: "stop", raw: "end_turn" },
				usage: usageV3(100, 900, 50, 20),
			},
		]);
		const { model, streamFn } = aiSdkModel(lm, { model: { cost: PRICES } });
		const { events, message } = await collectStream(streamFn(model, HI));
		expect(assertEventShape(events)).toBeUndefined();
		expect(trace(events)).toBe(
			"start thinking_start thinking_delta thinking_delta thinking_end text_start text_delta text_delta text_end done",
		);
		expect(message.content).toEqual([
			{
				type: "thinking",
				thinking: "Thinking.",
				signature: '{"mock":{"itemId":"rs_1","signature":"sig=="}}',
			},
			{ type: "text", text: "Hello world", signature: '{"mock":{"itemId":"msg_1"}}' },
		]);
		expect(message).toMatchObject({ api: "ai-sdk", provider: "mock.v3", model: "mock-model-v3" });
		expect(message.stopReason).toBe("stop");
		expect(message.responseId).toBe("resp_1");
		// SPEC M5: `input` excludes the cached tokens; cost from the model's price table.
		expect(message.usage).toMatchObject({
			input: 100,
			cacheRead: 900,
			output: 50,
			reasoning: 20,
			totalTokens: 1050,
		});
		expect(message.usage.cost.total).toBeCloseTo((100 * 2 + 900 * 0.5 + 50 * 10) / 1e6, 12);
		expect(message.usage.priceUnknown).toBeUndefined();
	});

	it("streams tool input as linear partial arguments, closed by the complete tool-call (SPEC E4)", async () => {
		const lm = mockV3([
			{ type: "tool-input-start", id: "call_1", toolName: "read" },
			{ type: "tool-input-delta", id: "call_1", delta: '{"pa' },
			{ type: "tool-input-delta", id: "call_1", delta: 'th":"a.t' },
			{ type: "tool-input-delta", id: "call_1", delta: 'xt"}' },
			{ type: "tool-input-end", id: "call_1" },
			{
				type: "tool-call",
				toolCallId: "call_1",
				toolName: "read",
				input: '{"path":"a.txt"}',
				providerMetadata: { google: { thoughtSignature: "ts" } },
			},
			finishV3("tool-calls", "tool_use"),
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const { events, message } = await collectStream(streamFn(model, HI));
		expect(trace(events)).toBe(
			"start toolcall_start toolcall_delta toolcall_delta toolcall_delta toolcall_end done",
		);
		const partials = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.arguments] : []));
		expect(partials).toEqual([{}, { path: "a.t" }, { path: "a.txt" }]);
		expect(message.stopReason).toBe("toolUse");
		expect(message.content).toEqual([
			{
				type: "toolCall",
				id: "call_1",
				name: "read",
				arguments: { path: "a.txt" },
				signature: '{"google":{"thoughtSignature":"ts"}}',
			},
		]);
	});

	it("a complete tool-call without streamed input is one call; empty input means no arguments", async () => {
		const lm = mockV3([
			{ type: "tool-call", toolCallId: "c1", toolName: "now", input: "" },
			{ type: "tool-call", toolCallId: "c2", toolName: "bad", input: "{oops" },
			finishV3("tool-calls"),
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const { events, message } = await collectStream(streamFn(model, HI));
		expect(trace(events)).toBe("start toolcall_start toolcall_end toolcall_start toolcall_end done");
		expect(message.content[0]).toEqual({ type: "toolCall", id: "c1", name: "now", arguments: {} });
		// SPEC E4: bad JSON is data on the call, not a throw.
		expect(message.content[1]).toMatchObject({ id: "c2", arguments: {}, argumentsText: "{oops" });
		expect((message.content[1] as { argumentsError?: string }).argumentsError).toMatch(/Invalid JSON/);
	});

	it("provider-executed tool calls and results, files and sources are kept, never run as capstan tools", async () => {
		const lm = mockV3([
			{ type: "text-start", id: "t" },
			{ type: "text-delta", id: "t", delta: "See" },
			{ type: "text-end", id: "t" },
			{ type: "source", sourceType: "url", id: "s1", url: "https://example.com", title: "Ex" },
			{
				type: "tool-call",
				toolCallId: "ws",
				toolName: "web_search",
				input: '{"q":"x"}',
				providerExecuted: true,
			},
			{ type: "tool-result", toolCallId: "ws", toolName: "web_search", result: { hits: 1 } },
			{ type: "file", mediaType: "image/png", data: new Uint8Array([1, 2, 3]) },
			finishV3("stop"),
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const { message } = await collectStream(streamFn(model, HI));
		expect(message.stopReason).toBe("stop");
		expect(message.content.map((block) => block.type)).toEqual([
			"text",
			"providerBlock",
			"providerBlock",
			"providerBlock",
		]);
		expect(message.content[0]).toMatchObject({ citations: [{ type: "source", url: "https://example.com" }] });
		expect(message.content[1]).toMatchObject({
			api: "ai-sdk",
			data: { type: "tool-call", toolName: "web_search", input: { q: "x" }, providerExecuted: true },
		});
		expect(message.content[3]).toEqual({
			type: "providerBlock",
			api: "ai-sdk",
			data: { type: "file", mediaType: "image/png", data: "AQID" },
		});
	});
});

describe("runtimes without Node globals", () => {
	it("a file part's bytes become base64 without Buffer (edge runtimes, browsers)", async () => {
		const lm = mockV3([
			{ type: "file", mediaType: "image/png", data: new Uint8Array([1, 2, 3, 250, 251]) },
			finishV3("stop"),
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const buffer = Object.getOwnPropertyDescriptor(globalThis, "Buffer");
		Reflect.deleteProperty(globalThis, "Buffer");
		try {
			const { message } = await collectStream(streamFn(model, HI));
			expect(message.stopReason).toBe("stop");
			expect(message.content[0]).toEqual({
				type: "providerBlock",
				api: "ai-sdk",
				data: { type: "file", mediaType: "image/png", data: "AQID+vs=" },
			});
		} finally {
			if (buffer) Object.defineProperty(globalThis, "Buffer", buffer);
		}
	});
});

describe("finish reasons → stop reasons (SPEC M4)", () => {
	const rows: [string, string, string | undefined][] = [
		["stop", "stop", undefined],
		["length", "length", undefined],
		["tool-calls", "toolUse", undefined],
		["content-filter", "error", "content_filter"],
		// An `error` finish after content is an interrupted reply (the builder's SPEC A4 rule), not a verdict.
		["error", "error", "stream_interrupted_after_content"],
		["other", "error", "unknown_stop_reason"],
		["unknown", "error", "unknown_stop_reason"],
	];
	for (const [reason, stopReason, detail] of rows) {
		it(`V2 ${reason} → ${stopReason}${detail ? ` (${detail})` : ""}`, async () => {
			const lm = mockV2([
				{ type: "text-start", id: "t" },
				{ type: "text-delta", id: "t", delta: "x" },
				{ type: "text-end", id: "t" },
				{
					type: "finish",
					finishReason: reason as Extract<V2Part, { type: "finish" }>["finishReason"],
					usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
				},
			]);
			const { model, streamFn } = aiSdkModel(lm);
			const { message } = await collectStream(streamFn(model, HI));
			expect(message.stopReason).toBe(stopReason);
			expect(message.stopDetails?.type).toBe(detail);
			if (stopReason === "error") expect(message.errorMessage).toBeTruthy();
		});
	}

	it("V3 keeps the provider's raw reason in stopDetails", async () => {
		const lm = mockV3([finishV3("other", "pause_turn")]);
		const { model, streamFn } = aiSdkModel(lm);
		const { message } = await collectStream(streamFn(model, HI));
		expect(message.stopReason).toBe("error");
		expect(message.stopDetails).toEqual({ type: "unknown_stop_reason", raw: "pause_turn" });
	});

	it("a stream without a finish part ends as malformed, not done", async () => {
		const lm = mockV3([
			{ type: "text-start", id: "t" },
			{ type: "text-delta", id: "t", delta: "cut" },
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const { message } = await collectStream(streamFn(model, HI));
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("malformed_response");
	});
});

describe("V2 stream parts and usage", () => {
	it("V2 usage: inputTokens includes the cached tokens, which capstan subtracts (SPEC M5)", async () => {
		const lm = mockV2([
			{ type: "response-metadata", id: "chatcmpl-9" },
			{ type: "tool-input-start", id: "c", toolName: "sum" },
			{ type: "tool-input-delta", id: "c", delta: '{"a":1,' },
			{ type: "tool-input-delta", id: "c", delta: '"b":2}' },
			{ type: "tool-input-end", id: "c" },
			{ type: "tool-call", toolCallId: "c", toolName: "sum", input: '{"a":1,"b":2}' },
			{
				type: "finish",
				finishReason: "tool-calls",
				usage: {
					inputTokens: 1000,
					outputTokens: 40,
					totalTokens: 1040,
					cachedInputTokens: 600,
					reasoningTokens: 8,
				},
			},
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const { events, message } = await collectStream(streamFn(model, HI));
		expect(trace(events)).toBe("start toolcall_start toolcall_delta toolcall_delta toolcall_end done");
		expect(message.content).toEqual([{ type: "toolCall", id: "c", name: "sum", arguments: { a: 1, b: 2 } }]);
		expect(message.usage).toMatchObject({
			input: 400,
			cacheRead: 600,
			output: 40,
			reasoning: 8,
			totalTokens: 1040,
		});
		// No price table given: cost zero, marked unknown.
		expect(message.usage.priceUnknown).toBe(true);
		expect(message.responseId).toBe("chatcmpl-9");
	});
});

describe("failures are data, never throws (SPEC E3)", () => {
	it("an error part ends the stream with an error message, keeping what streamed", async () => {
		const lm = mockV3([
			{ type: "text-start", id: "t" },
			{ type: "text-delta", id: "t", delta: "partial" },
			{ type: "error", error: { error: { message: "upstream exploded" } } },
		]);
		const { model, streamFn } = aiSdkModel(lm);
		const { events, message } = await collectStream(streamFn(model, HI));
		expect(events.at(-1)?.type).toBe("error");
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("upstream exploded");
		expect(message.content).toEqual([{ type: "text", text: "partial" }]);
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
	});

	it("a rejected doStream with an APICallError is classified by status and not retried when it says so", async () => {
		const error = new APICallError({
			message: "Invalid API key",
			url: "http://127.0.0.1/v1/chat",
			requestBodyValues: {},
			statusCode: 401,
			responseBody: '{"error":{"message":"Invalid API key"}}',
			isRetryable: false,
		});
		const lm = new MockLanguageModelV3({
			doStream: async () => {
				throw error;
			},
		});
		const { model, streamFn } = aiSdkModel(lm);
		const { message } = await collectStream(streamFn(model, HI));
		expect(message).toMatchObject({
			stopReason: "error",
			errorKind: "auth",
			errorMessage: "HTTP 401: Invalid API key",
		});
		expect(lm.doStreamCalls).toHaveLength(1);
	});

	it("a retryable failure before any content is retried (SPEC A8)", async () => {
		const overloaded = new APICallError({
			message: "Overloaded",
			url: "http://127.0.0.1",
			requestBodyValues: {},
			statusCode: 503,
			isRetryable: true,
		});
		const lm = mockV3([]);
		const ok = mockV3([
			{ type: "text-start", id: "t" },
			{ type: "text-delta", id: "t", delta: "ok" },
			finishV3("stop"),
		]);
		let calls = 0;
		lm.doStream = async (options) => {
			calls++;
			if (calls === 1) throw overloaded;
			return ok.doStream(options);
		};
		const retries: string[] = [];
		const { model, streamFn } = aiSdkModel(lm);
		const { message } = await collectStream(
			streamFn(model, HI, { retryBaseDelayMs: 1, onRetry: (info) => retries.push(info.errorKind) }),
		);
		expect(message.stopReason).toBe("stop");
		expect(retries).toEqual(["server"]);
		expect(calls).toBe(2);
	});

	it("a throwing doStream (not a promise rejection) is an error message too", async () => {
		const lm = new MockLanguageModelV3({
			doStream: () => {
				throw new Error("sync boom");
			},
		});
		const { model, streamFn } = aiSdkModel(lm);
		const stream = streamFn(model, HI, { maxRetries: 0 });
		const { message } = await collectStream(stream);
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "sync boom" });
	});
});

describe("abort (SPEC A1, A2)", () => {
	it("passes the signal to doStream and ends `aborted` at once, even when the model ignores it", async () => {
		let seen: AbortSignal | undefined;
		const lm = new MockLanguageModelV3({
			doStream: async ({ abortSignal }) => {
				seen = abortSignal;
				// A model that never finishes on its own and ignores the signal.
				const stream = new ReadableStream<LanguageModelV3StreamPart>({
					start(controller) {
						controller.enqueue({ type: "text-start", id: "t" });
						controller.enqueue({ type: "text-delta", id: "t", delta: "Hel" });
					},
				});
				return { stream };
			},
		});
		const { model, streamFn } = aiSdkModel(lm);
		const controller = new AbortController();
		const stream = streamFn(model, HI, { signal: controller.signal });
		const events = [];
		for await (const event of stream) {
			events.push(event);
			if (event.type === "text_delta") controller.abort("user pressed stop");
		}
		const message = await stream.result();
		expect(message.stopReason).toBe("aborted");
		expect(message.errorMessage).toBe("user pressed stop");
		expect(message.content).toEqual([{ type: "text", text: "Hel" }]);
		expect(seen?.aborted).toBe(true);
	});
});

describe("the stream function alone and the finish/usage mappers", () => {
	it("aiSdkStreamFunction uses the host's Model for identity and prices", async () => {
		const lm = mockV3([
			{ type: "text-start", id: "t" },
			{ type: "text-delta", id: "t", delta: "ok" },
			{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usageV3(1000, 0, 1000) },
		]);
		const streamFn = aiSdkStreamFunction(lm);
		const model = {
			...aiSdkModel(lm).model,
			provider: "bedrock",
			cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
		};
		const { message } = await collectStream(streamFn(model, HI));
		expect(message.provider).toBe("bedrock");
		expect(message.usage.cost.total).toBeCloseTo(0.003, 12);
	});

	it("normalizeUsage and mapFinishReason read both versions (SPEC M4, M5)", () => {
		expect(
			normalizeUsage({ inputTokens: 10, outputTokens: 3, totalTokens: 13, cachedInputTokens: 4 }),
		).toEqual({
			input: 6,
			output: 3,
			cacheRead: 4,
		});
		// V3 without `noCache`: the total minus the cached counts.
		expect(
			normalizeUsage({
				inputTokens: { total: 10, noCache: undefined, cacheRead: 3, cacheWrite: 2 },
				outputTokens: { total: 4, text: undefined, reasoning: undefined },
			}),
		).toEqual({ input: 5, output: 4, cacheRead: 3, cacheWrite: 2 });
		expect(mapFinishReason("tool-calls").reason).toBe("toolUse");
		expect(mapFinishReason({ unified: "length", raw: "max_tokens" }).reason).toBe("length");
		expect(Object.keys(AI_SDK_FINISH_REASONS)).toEqual([
			"stop",
			"length",
			"tool-calls",
			"content-filter",
			"error",
		]);
	});
});
