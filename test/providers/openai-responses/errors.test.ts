/**
 * Error paths of the OpenAI Responses provider over the loopback server (SPEC E3, A1, A2, A8): failures are
 * data, never throws; transient failures before content are retried.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ErrorKind } from "../../../src/core/messages.js";
import {
	buildResponsesRequest,
	streamOpenAIResponses,
} from "../../../src/providers/openai-responses/index.js";
import { assertEventShape, collectAbortedAtText } from "../support/collect.js";
import { textOf } from "../support/content.js";
import { itEndsWithoutRetry, itRecoversAfterOneRetry, onFreshServer } from "../support/error-paths.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { jsonResponse } from "../support/replay-server.js";
import { HI } from "../support/transcript.js";
import { collect, responsesModel } from "./helpers.js";
import { created, delta, messageAdded, partAdded, sse, textReply } from "./synthetic.js";

closeServersAfterEach();

describe("error paths (SPEC E3, A8): failures are data, never throws", () => {
	const call = onFreshServer((baseUrl, options) => collect(responsesModel(baseUrl), HI, options));

	it("401 → auth, not retried", async () => {
		const s = await serve(
			jsonResponse(401, { error: { message: "Incorrect API key", code: "invalid_api_key" } }),
		);
		const { message, events } = await collect(responsesModel(s.baseUrl), HI);
		expect(assertEventShape(events)).toBeUndefined();
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("auth");
		expect(message.errorMessage).toContain("Incorrect API key");
		expect(s.requests).toHaveLength(1);
	});

	it("429 with retry-after → retried after the server's delay, reported through onRetry", async () => {
		const s = await serve(
			jsonResponse(
				429,
				{ error: { message: "slow down", code: "rate_limit_exceeded" } },
				{ "retry-after": "0" },
			),
			{ type: "sse", body: textReply("hi") },
		);
		const retries: unknown[] = [];
		const { message } = await collect(responsesModel(s.baseUrl), HI, {
			onRetry: (info) => {
				// Typed as the message's own ErrorKind, so a host can switch on it exhaustively.
				expectTypeOf(info.errorKind).toEqualTypeOf<ErrorKind>();
				retries.push(info);
			},
		});
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toBe("hi");
		expect(retries).toEqual([
			{ attempt: 1, delayMs: 0, errorKind: "rate_limit", errorMessage: expect.stringContaining("slow down") },
		]);
	});

	itEndsWithoutRetry(call, [
		{
			name: "429 insufficient_quota → rate_limit, not retried (waiting does not help)",
			script: [jsonResponse(429, { error: { message: "quota", code: "insufficient_quota" } })],
			errorKind: "rate_limit",
		},
		{
			name: "400 context_length_exceeded → context_overflow, not retried",
			script: [
				jsonResponse(400, {
					error: {
						message: "Your input exceeds the context window of this model.",
						type: "invalid_request_error",
						code: "context_length_exceeded",
					},
				}),
			],
			errorKind: "context_overflow",
		},
	]);

	itRecoversAfterOneRetry(call, [
		{
			name: "500 then success → one retry, the reply arrives",
			script: [
				{ type: "http", status: 500, body: "{}" },
				{ type: "sse", body: textReply("fine") },
			],
			text: "fine",
		},
	]);

	it("a connection reset before any byte is retried", async () => {
		const ok = textReply("back");
		const s = await serve({ type: "reset" }, { type: "sse", body: ok });
		const { message } = await collect(responsesModel(s.baseUrl), HI);
		expect(textOf(message)).toBe("back");
	});

	it("missing API key → auth error, no request", async () => {
		const s = await serve();
		const stream = streamOpenAIResponses(responsesModel(s.baseUrl, { provider: "nobody-has-this" }), HI);
		const message = await stream.result();
		expect(message.errorKind).toBe("auth");
		expect(s.requests).toHaveLength(0);
	});

	it("a stream without its terminal event → error 'stream ended unexpectedly', content kept", async () => {
		const s = await serve({ type: "sse", body: sse(created, messageAdded, partAdded, delta("partial")) });
		const { message, events } = await collect(responsesModel(s.baseUrl), HI);
		expect(assertEventShape(events)).toBeUndefined();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("stream ended unexpectedly");
		expect(textOf(message)).toBe("partial");
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
	});

	it("a reply cut off mid-item never replays the unfinished item; finished parts keep their item ids", async () => {
		const reasoningAdded = {
			type: "response.output_item.added",
			output_index: 0,
			item: { id: "rs_cut", type: "reasoning", summary: [], encrypted_content: "partial" },
		};
		const messageAt1 = { ...messageAdded, output_index: 1 };
		const body = sse(
			created,
			reasoningAdded,
			messageAt1,
			{ ...partAdded, output_index: 1 },
			{ ...delta("cut"), output_index: 1 },
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("error");
		expect(message.content[0]).toMatchObject({
			type: "providerBlock",
			data: { id: "rs_cut", status: "in_progress" },
		});
		const input = buildResponsesRequest(responsesModel(s.baseUrl), { messages: [message] }).input;
		expect(input).toEqual([
			{
				type: "message",
				role: "assistant",
				content: [{ type: "output_text", text: "cut", annotations: [] }],
				status: "completed",
				id: "msg_syn",
			},
		]);
	});

	it("an abort mid-stream → aborted with the text so far (SPEC A1, A2)", async () => {
		const s = await serve({ type: "hang", partial: sse(created, messageAdded, partAdded, delta("half a")) });
		const { message } = await collectAbortedAtText(
			(signal) => streamOpenAIResponses(responsesModel(s.baseUrl), HI, { apiKey: "k", signal }),
			"user pressed stop",
		);
		expect(message.stopReason).toBe("aborted");
		expect(message.errorMessage).toBe("user pressed stop");
		expect(textOf(message)).toBe("half a");
	});

	it("a stalled stream → timeout (idleTimeoutMs)", async () => {
		const s = await serve({
			type: "hang",
			partial: sse(created, messageAdded, partAdded, delta("and then")),
		});
		const { message } = await collect(responsesModel(s.baseUrl), HI, { idleTimeoutMs: 50 });
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("timeout");
		expect(textOf(message)).toBe("and then");
	});

	it("SYNTHETIC: an `error` event mid-stream → error with the content so far, classified", async () => {
		const body = sse(
			created,
			messageAdded,
			partAdded,
			delta("so far"),
			{ type: "error", code: "server_error", message: "The server had an error", param: null },
			{
				type: "response.failed",
				response: { id: "resp_syn", status: "failed", error: { code: "server_error", message: "x" } },
			},
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("server");
		expect(message.errorMessage).toBe("The server had an error");
		expect(textOf(message)).toBe("so far");
		expect(s.requests).toHaveLength(1);
	});

	it("SYNTHETIC: response.failed before any content → classified error (retried when transient)", async () => {
		const failed = sse(created, {
			type: "response.failed",
			response: {
				id: "resp_syn",
				status: "failed",
				error: { code: "invalid_prompt", message: "bad prompt" },
			},
		});
		const s = await serve({ type: "sse", body: failed });
		const { message } = await collect(responsesModel(s.baseUrl), HI);
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toBe("bad prompt");
	});
});
