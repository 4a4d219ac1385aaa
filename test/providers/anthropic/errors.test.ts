import { describe, expect, it } from "vitest";
import type { RetryInfo } from "../../../src/core/model.js";
import { stream as registryStream } from "../../../src/providers/registry.js";
import { collectAbortedAtText } from "../support/collect.js";
import {
	itKeepsContentAfterReset,
	itRefusesTheKey,
	itTimesOutWhileDripping,
	onFileServer,
} from "../support/error-paths.js";
import { fixtureBytes, frameEvents } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { jsonResponse, startReplayServer } from "../support/replay-server.js";
import { HELLO } from "../support/transcript.js";
import { collect, testModel } from "./helpers.js";

// Hand-written streams below are SYNTHETIC (the fixtures README lists no real recording of max_tokens,
// refusal or a mid-stream error); they follow the documented Anthropic event shapes.
const sse = (events: object[]): string => frameEvents("anthropic-messages", events);
const START = {
	type: "message_start",
	message: {
		id: "msg_1",
		type: "message",
		role: "assistant",
		content: [],
		model: "m",
		stop_reason: null,
		usage: { input_tokens: 10, output_tokens: 1 },
	},
};
const TEXT_START = { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } };
const HELLO_DELTA = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } };
const TEXT_STOP = { type: "content_block_stop", index: 0 };
const delta = (stop: string) => ({
	type: "message_delta",
	delta: { stop_reason: stop, stop_sequence: null },
	usage: { output_tokens: 5 },
});
const STOP = { type: "message_stop" };
const OVERLOADED = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
const okBody = () => fixtureBytes("anthropic-messages/test_prompt.sse");
const FAST = { retryBaseDelayMs: 1 };

const server = serverForFile({ expectDrained: true });
const call = onFileServer(server, (baseUrl, options) => collect(testModel(baseUrl), { ...FAST, ...options }));

describe("HTTP errors are data with a classified kind (SPEC E3, A8)", () => {
	itRefusesTheKey(
		call,
		jsonResponse(401, {
			type: "error",
			error: { type: "authentication_error", message: "invalid x-api-key" },
		}),
		"invalid x-api-key",
	);

	it("429 with retry-after is retried after the requested delay, reported through onRetry", async () => {
		server.enqueue(
			{
				type: "http",
				status: 429,
				headers: { "retry-after": "0" },
				body: '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
			},
			{ type: "http", status: 429, headers: { "retry-after-ms": "20" }, body: "{}" },
			{ type: "sse", body: okBody() },
		);
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(server.baseUrl), {
			...FAST,
			onRetry: (info) => retries.push(info),
		});
		expect(message.stopReason).toBe("stop");
		expect(retries).toEqual([
			{
				attempt: 1,
				delayMs: 0,
				errorKind: "rate_limit",
				errorMessage: "HTTP 429 Too Many Requests: slow down",
			},
			expect.objectContaining({ attempt: 2, delayMs: 20, errorKind: "rate_limit" }),
		]);
	});

	it("529 overloaded is retried at most 3 attempts in total, then reported", async () => {
		const overloaded = jsonResponse(529, OVERLOADED);
		server.enqueue(overloaded, overloaded, overloaded);
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(server.baseUrl), {
			...FAST,
			onRetry: (info) => retries.push(info),
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "overloaded" });
		expect(retries.map((retry) => retry.attempt)).toEqual([1, 2]);
	});

	it("500 then success", async () => {
		server.enqueue(
			{ type: "http", status: 500, body: '{"type":"error","error":{"type":"api_error","message":"boom"}}' },
			{ type: "sse", body: okBody() },
		);
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message.stopReason).toBe("stop");
		expect(message.content.length).toBeGreaterThan(0);
	});

	it("400 prompt too long → context_overflow, not retried", async () => {
		server.enqueue({
			type: "http",
			status: 400,
			body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}',
		});
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message.errorKind).toBe("context_overflow");
	});

	it("maxRetries: 0 disables retries", async () => {
		server.enqueue({ type: "http", status: 503, body: "" });
		const { message } = await collect(testModel(server.baseUrl), { maxRetries: 0 });
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server" });
	});
});

describe("network failures and stalls", () => {
	it("a connection reset before the first byte is retried", async () => {
		server.enqueue({ type: "reset" }, { type: "sse", body: okBody() });
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(server.baseUrl), {
			...FAST,
			onRetry: (info) => retries.push(info),
		});
		expect(message.stopReason).toBe("stop");
		expect(retries[0]?.errorKind).toBe("network");
	});

	itKeepsContentAfterReset(call, sse([START, TEXT_START, HELLO_DELTA]), "Hel");

	itTimesOutWhileDripping(
		call,
		sse([START, TEXT_START, HELLO_DELTA, TEXT_STOP, delta("end_turn"), STOP]),
		40,
	);

	it("no response headers within headersTimeoutMs ends as timeout (retried first)", async () => {
		server.enqueue({ type: "silent" }, { type: "silent" });
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(server.baseUrl), {
			...FAST,
			maxRetries: 1,
			headersTimeoutMs: 50,
			onRetry: (info) => retries.push(info),
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "timeout" });
		expect(retries.map((retry) => retry.errorKind)).toEqual(["timeout"]);
	});

	it("an unparseable base URL → network error, no throw", async () => {
		const { message } = await collect(testModel("not a url"), FAST);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "network" });
		expect(message.errorMessage).toContain("invalid base URL");
	});

	it("a refused connection → network error after retries", async () => {
		const probe = await startReplayServer();
		const deadUrl = probe.baseUrl;
		await probe.close();
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(deadUrl), { ...FAST, onRetry: (info) => retries.push(info) });
		expect(message).toMatchObject({ stopReason: "error", errorKind: "network" });
		expect(retries).toHaveLength(2);
	});
});

describe("stream-level failures", () => {
	it("a mid-stream error event after content keeps the content, classified, not retried", async () => {
		server.enqueue({ type: "sse", body: sse([START, TEXT_START, HELLO_DELTA, OVERLOADED]) });
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message).toMatchObject({
			stopReason: "error",
			errorKind: "overloaded",
			errorMessage: "Overloaded",
		});
		expect(message.content).toEqual([{ type: "text", text: "Hel" }]);
	});

	it("a mid-stream error event before any content is retried", async () => {
		server.enqueue({ type: "sse", body: sse([START, OVERLOADED]) }, { type: "sse", body: okBody() });
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message.stopReason).toBe("stop");
	});

	it("a stream that ends without message_stop → error 'stream ended unexpectedly'", async () => {
		server.enqueue({ type: "sse", body: sse([START, TEXT_START, HELLO_DELTA, TEXT_STOP]) });
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "stream ended unexpectedly" });
		expect(message.content).toEqual([{ type: "text", text: "Hel" }]);
	});

	it("a malformed chunk → malformed_response", async () => {
		server.enqueue({ type: "sse", body: `${sse([START])}event: content_block_start\ndata: {"type":\n\n` });
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "malformed_response" });
	});

	it.each([
		["max_tokens", "length", undefined],
		["pause_turn", "stop", "pause_turn"],
		["refusal", "error", "refusal"],
		["stop_sequence", "stop", undefined],
		["brand_new_reason", "error", "unknown_stop_reason"],
	])("stop_reason %s → %s (SPEC M4, synthetic)", async (raw, reason, details) => {
		server.enqueue({ type: "sse", body: sse([START, TEXT_START, HELLO_DELTA, TEXT_STOP, delta(raw), STOP]) });
		const { message } = await collect(testModel(server.baseUrl), FAST);
		expect(message.stopReason).toBe(reason);
		expect(message.stopDetails?.type).toBe(details);
		if (details) expect(message.stopDetails?.raw).toBe(raw);
		expect(message.content).toEqual([{ type: "text", text: "Hel" }]);
	});
});

describe("keys, abort, registry", () => {
	it("a missing API key → auth error message, never a throw, no request", async () => {
		const env = process.env;
		const saved = env.ANTHROPIC_API_KEY;
		Reflect.deleteProperty(env, "ANTHROPIC_API_KEY");
		try {
			const before = server.requests.length;
			const { message } = await collect(testModel(server.baseUrl), { apiKey: undefined });
			expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
			expect(message.errorMessage).toContain("ANTHROPIC_API_KEY");
			expect(server.requests.length).toBe(before);
		} finally {
			if (saved !== undefined) env.ANTHROPIC_API_KEY = saved;
		}
	});

	it("abort mid-stream commits the text so far as aborted with the reason text, at once (SPEC A1, A2, A5)", async () => {
		server.enqueue({ type: "hang", partial: sse([START, TEXT_START, HELLO_DELTA]) });
		const { streamAnthropic } = await import("../../../src/providers/anthropic/index.js");
		const { message, events } = await collectAbortedAtText(
			(signal) => streamAnthropic(testModel(server.baseUrl), HELLO, { apiKey: "k", signal }),
			"user pressed stop",
		);
		expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "user pressed stop" });
		expect(message.content).toEqual([{ type: "text", text: "Hel" }]);
		expect(events.at(-1)?.type).toBe("error");
	});

	it("an already-aborted signal ends the stream as aborted with the default text", async () => {
		const controller = new AbortController();
		controller.abort();
		const { message } = await collect(testModel(server.baseUrl), { signal: controller.signal });
		expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
	});

	it("abort during a retry wait stops retrying", async () => {
		server.enqueue(jsonResponse(529, OVERLOADED));
		const controller = new AbortController();
		const { message } = await collect(testModel(server.baseUrl), {
			retryBaseDelayMs: 60_000,
			signal: controller.signal,
			onRetry: () => setTimeout(() => controller.abort(new Error("host shutdown")), 5),
		});
		expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "host shutdown" });
	});

	it("the registry dispatches on model.api; an unknown api is an error message, not a throw", async () => {
		const result = await registryStream({ ...testModel(server.baseUrl), api: "nope-api" }, HELLO).result();
		expect(result).toMatchObject({ stopReason: "error", errorKind: "invalid_request" });
		expect(result.errorMessage).toContain("nope-api");
		server.enqueue({ type: "sse", body: okBody() });
		const ok = await registryStream(testModel(server.baseUrl), HELLO, { apiKey: "k" }).result();
		expect(ok.stopReason).toBe("stop");
	});
});
