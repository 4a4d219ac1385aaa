/**
 * The Gemini provider end to end over the loopback server: the prompt-bytes property across ten turns,
 * error paths (SPEC E3, A8), and hand-written streams for cases no real recording covers (marked SYNTHETIC,
 * as the fixtures README asks).
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context } from "../../../src/core/model.js";
import { streamGoogle } from "../../../src/providers/google/index.js";
import { assertEventShape, collectAbortedAtText } from "../support/collect.js";
import { textOf } from "../support/content.js";
import { itEndsWithoutRetry, itRecoversAfterOneRetry, onFreshServer } from "../support/error-paths.js";
import { firstBodyMatching, frameEvents } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { appendNextTurn, expectGrowingPrefixes, serveTurns, trailingArray } from "../support/prompt-bytes.js";
import { jsonResponse } from "../support/replay-server.js";
import { HI } from "../support/transcript.js";
import { GEMINI_FOLDERS } from "./facts.js";
import { collect, geminiModel } from "./helpers.js";

closeServersAfterEach();

/** SSE body from chunks, framed as Gemini frames them (CRLF, unnamed events). SYNTHETIC streams only. */
const sse = (...chunks: Record<string, unknown>[]): string => frameEvents("google-gemini", chunks);

const usage = {
	promptTokenCount: 10,
	cachedContentTokenCount: 4,
	candidatesTokenCount: 5,
	thoughtsTokenCount: 3,
	totalTokenCount: 18,
};
const textChunk = (text: string, finishReason?: string) => ({
	candidates: [{ content: { role: "model", parts: [{ text }] }, ...(finishReason ? { finishReason } : {}) }],
	usageMetadata: usage,
	responseId: "resp-syn",
});

describe("prompt bytes: ten turns keep the contents prefix byte for byte (implicit caching)", () => {
	it("each request's contents begin with the previous request's contents", async () => {
		const pick = (name: string) => firstBodyMatching(GEMINI_FOLDERS, name);
		const bodies = [
			pick("multi_tool_streaming"),
			pick("google-text.chunks"),
			pick("thinking-streaming"),
			pick("test_code_execution_stream"),
		];
		const turns = 10;
		const s = await serveTurns(bodies, turns);
		const model = geminiModel(s.baseUrl);
		const messages: Message[] = [];
		const context: Context = {
			systemPrompt: "Be brief.",
			messages,
			tools: [{ name: "add", description: "add", parameters: { type: "object" } }],
		};
		for (let turn = 0; turn < turns; turn++) {
			appendNextTurn(messages, turn);
			const { message } = await collect(model, context, { thinkingLevel: "medium" });
			expect(message.errorMessage).toBeUndefined();
			messages.push(message);
		}
		expectGrowingPrefixes(s.requests.map((request) => trailingArray(request.body, "contents")));
		// Thought signatures go back unchanged on the parts that carried them.
		expect(s.requests[1]!.body).toContain(
			'"thoughtSignature":"CiQBjz1rX9vXzx2kuVvHI7K1og7PRomR1HnReMQI5SRJMSPzcAIKXgGPPWtf',
		);
	});
});

describe("request over the wire", () => {
	it("POSTs to …/models/{id}:streamGenerateContent?alt=sse with x-goog-api-key", async () => {
		const s = await serve({ type: "sse", body: sse(textChunk("ok", "STOP")) });
		await collect(geminiModel(`${s.baseUrl}/v1beta`), HI, { apiKey: "g-key" });
		expect(s.requests[0]?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
		expect(s.requests[0]?.headers["x-goog-api-key"]).toBe("g-key");
		expect(s.requests[0]?.headers.authorization).toBeUndefined();
	});

	it("compat.authHeader 'bearer' sends Authorization instead (Vertex access tokens)", async () => {
		const s = await serve({ type: "sse", body: sse(textChunk("ok", "STOP")) });
		await collect(geminiModel(s.baseUrl, { compat: { authHeader: "bearer" } }), HI, {
			apiKey: "ya29.token",
		});
		expect(s.requests[0]?.headers.authorization).toBe("Bearer ya29.token");
		expect(s.requests[0]?.headers["x-goog-api-key"]).toBeUndefined();
	});
});

/** A Google API error response (`{error: {code, message, status, …}}`). */
const googleError = (
	code: number,
	status: string,
	message: string,
	extra: Record<string, unknown> = {},
	headers?: Record<string, string>,
) => jsonResponse(code, { error: { code, message, status, ...extra } }, headers);

describe("error paths (SPEC E3, A8): failures are data, never throws", () => {
	const call = onFreshServer((baseUrl, options) => collect(geminiModel(baseUrl), HI, options));

	it("400 API_KEY_INVALID → auth, not retried", async () => {
		const s = await serve(
			googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", {
				details: [{ reason: "API_KEY_INVALID" }],
			}),
		);
		const { message, events } = await collect(geminiModel(s.baseUrl), HI);
		expect(assertEventShape(events)).toBeUndefined();
		expect(message.errorKind).toBe("auth");
		expect(s.requests).toHaveLength(1);
	});

	it("429 RESOURCE_EXHAUSTED with retry-after → retried, reported through onRetry", async () => {
		const s = await serve(
			googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded", {}, { "retry-after": "0" }),
			{ type: "sse", body: sse(textChunk("after retry", "STOP")) },
		);
		const retries: { errorKind: string; delayMs: number }[] = [];
		const { message } = await collect(geminiModel(s.baseUrl), HI, {
			onRetry: (info) => retries.push(info),
		});
		expect(textOf(message)).toBe("after retry");
		expect(retries).toMatchObject([{ errorKind: "rate_limit", delayMs: 0 }]);
	});

	itRecoversAfterOneRetry(call, [
		{
			name: "500 then success",
			script: [
				googleError(500, "INTERNAL", "Internal"),
				{ type: "sse", body: sse(textChunk("fine", "STOP")) },
			],
			text: "fine",
		},
	]);

	itEndsWithoutRetry(call, [
		{
			name: "400 input token count exceeds the maximum → context_overflow",
			script: [
				googleError(
					400,
					"INVALID_ARGUMENT",
					"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
				),
			],
			errorKind: "context_overflow",
		},
	]);

	it("a stream without a finish reason → 'stream ended unexpectedly', content kept", async () => {
		const s = await serve({ type: "sse", body: sse(textChunk("half")) });
		const { message } = await collect(geminiModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("stream ended unexpectedly");
		expect(textOf(message)).toBe("half");
	});

	it("SYNTHETIC: an error chunk inside the stream → error with the content so far", async () => {
		const s = await serve({
			type: "sse",
			body: sse(textChunk("so far"), {
				error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" },
			}),
		});
		const { message } = await collect(geminiModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("overloaded");
		expect(message.errorMessage).toBe("The model is overloaded.");
		expect(textOf(message)).toBe("so far");
	});

	it("a malformed chunk → malformed_response, never a throw", async () => {
		const s = await serve({ type: "sse", body: "data: {not json\r\n\r\n" });
		const stream = streamGoogle(geminiModel(s.baseUrl), HI, { apiKey: "k" });
		const message = await stream.result();
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("malformed_response");
	});
});

describe("SYNTHETIC finish cases no recording covers (SPEC M4, S5)", () => {
	it("MAX_TOKENS → length; usage input excludes cached tokens, output includes thoughts (SPEC M5)", async () => {
		const s = await serve({ type: "sse", body: sse(textChunk("cut"), textChunk(" off", "MAX_TOKENS")) });
		const { message } = await collect(geminiModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("length");
		expect(message.usage).toMatchObject({ input: 6, cacheRead: 4, output: 8, reasoning: 3, totalTokens: 18 });
	});

	it("a prompt blocked by promptFeedback (no candidates) → error + content_filter", async () => {
		const s = await serve({
			type: "sse",
			body: sse({
				promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
				usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
			}),
		});
		const { message } = await collect(geminiModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("error");
		expect(message.stopDetails).toEqual({ type: "content_filter", raw: "PROHIBITED_CONTENT" });
		expect(message.usage.input).toBe(7);
	});

	it("MALFORMED_FUNCTION_CALL and unknown reasons → error with the raw value and finishMessage kept", async () => {
		const chunk = textChunk("", "MALFORMED_FUNCTION_CALL");
		(chunk.candidates[0] as Record<string, unknown>).finishMessage = "Malformed function call: print(x";
		const s = await serve({ type: "sse", body: sse(chunk) });
		const { message } = await collect(geminiModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("error");
		expect(message.stopDetails).toEqual({
			type: "unknown_stop_reason",
			raw: "MALFORMED_FUNCTION_CALL",
			explanation: "Malformed function call: print(x",
		});
		expect(message.errorMessage).toContain("Malformed function call: print(x");
	});

	it("an abort mid-stream → aborted with the text so far (SPEC A1, A2)", async () => {
		const s = await serve({ type: "hang", partial: sse(textChunk("thinking about")) });
		const { message } = await collectAbortedAtText(
			(signal) => streamGoogle(geminiModel(s.baseUrl), HI, { apiKey: "k", signal }),
			"user pressed stop",
		);
		expect(message.stopReason).toBe("aborted");
		expect(message.errorMessage).toBe("user pressed stop");
		expect(textOf(message)).toBe("thinking about");
	});

	it("a stalled stream → timeout (idleTimeoutMs)", async () => {
		const s = await serve({ type: "hang", partial: sse(textChunk("and then")) });
		const { message } = await collect(geminiModel(s.baseUrl), HI, { idleTimeoutMs: 50 });
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("timeout");
		expect(textOf(message)).toBe("and then");
	});

	it("deterministic tool-call ids: the same stream twice gives the same ids (SPEC L13)", async () => {
		const call = {
			candidates: [
				{
					content: {
						role: "model",
						parts: [
							{ functionCall: { name: "f", args: {} } },
							{ functionCall: { name: "f", args: { a: 1 } } },
						],
					},
					finishReason: "STOP",
				},
			],
			responseId: "r9",
		};
		const s = await serve({ type: "sse", body: sse(call) }, { type: "sse", body: sse(call) });
		const ids = async () =>
			(await collect(geminiModel(s.baseUrl), HI)).message.content.map((b) =>
				b.type === "toolCall" ? b.id : "",
			);
		const first = await ids();
		expect(first).toEqual(["f_r9_0", "f_r9_1"]);
		expect(await ids()).toEqual(first);
	});
});
