/**
 * Network faults from the loopback server, through the real runner and real HTTP (SPEC A2, A4, A8): resets
 * before the first byte (retried) and mid-stream (not retried, content kept), 429/529 with every form of
 * `retry-after`, a 500 then success, stalls before the headers and mid-stream, and an abort during each
 * phase. Delays are configured tiny; nothing sleeps for long.
 */
import { describe, expect, it } from "vitest";
import type { RetryInfo } from "../../src/core/model.js";
import type { ProviderStreamOptions } from "../../src/providers/base/run-stream.js";
import { stream } from "../../src/providers/registry.js";
import { collectAbortedAtText, collectStream } from "../providers/support/collect.js";
import { textOf } from "../providers/support/content.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { testModel } from "../providers/support/models.js";
import { jsonResponse, type ScriptedResponse } from "../providers/support/replay-server.js";
import { HELLO } from "../providers/support/transcript.js";
import { APIS, callApi, FAST, textBody } from "./support.js";

closeServersAfterEach();

const ok = (api: (typeof APIS)[number]): ScriptedResponse => ({
	type: "sse",
	body: textBody(api),
	split: false,
});
const busy = (status: number, headers: Record<string, string>) =>
	jsonResponse(status, { error: { message: "busy, try later" } }, headers);

describe("resets (SPEC A4, A8)", () => {
	for (const api of APIS) {
		it(`${api}: a reset before the first byte is retried and the reply arrives`, async () => {
			const server = await serve({ type: "reset" }, ok(api));
			const retries: RetryInfo[] = [];
			const { message } = await callApi(api, server.baseUrl, { onRetry: (info) => retries.push(info) });
			expect(message.stopReason).toBe("stop");
			expect(retries.map((retry) => retry.errorKind)).toEqual(["network"]);
			expect(server.requests).toHaveLength(2);
		});

		it(`${api}: a reset mid-stream is not retried and keeps the content so far`, async () => {
			const body = textBody(api);
			const server = await serve(
				{ type: "reset", partial: body.subarray(0, Math.floor(body.length * 0.7)) },
				ok(api),
			);
			const { message } = await callApi(api, server.baseUrl);
			expect(message).toMatchObject({ stopReason: "error", errorKind: "network" });
			expect(message.content.length).toBeGreaterThan(0);
			expect(server.requests).toHaveLength(1);
		});
	}
});

describe("429/529 and retry-after (SPEC A8)", () => {
	const retried = async (first: ScriptedResponse, options: ProviderStreamOptions = {}) => {
		const server = await serve(first, ok("anthropic-messages"));
		const retries: RetryInfo[] = [];
		const result = await callApi("anthropic-messages", server.baseUrl, {
			onRetry: (info) => retries.push(info),
			...options,
		});
		return { ...result, retries, requests: server.requests.length };
	};

	it("retry-after-ms is honoured exactly", async () => {
		const { message, retries } = await retried(busy(429, { "retry-after-ms": "15" }));
		expect(message.stopReason).toBe("stop");
		expect(retries).toEqual([expect.objectContaining({ errorKind: "rate_limit", delayMs: 15 })]);
	});

	it("retry-after in seconds is honoured (0 s: at once)", async () => {
		const { message, retries } = await retried(busy(529, { "retry-after": "0" }));
		expect(message.stopReason).toBe("stop");
		expect(retries).toEqual([expect.objectContaining({ errorKind: "overloaded", delayMs: 0 })]);
	});

	it("retry-after as an HTTP date in the past means now", async () => {
		const past = new Date(Date.now() - 60_000).toUTCString();
		const { retries } = await retried(busy(429, { "retry-after": past }));
		expect(retries).toEqual([expect.objectContaining({ delayMs: 0 })]);
	});

	it("retry-after beyond retryMaxDelayMs (seconds or a date) is not waited for: the error goes to the host", async () => {
		const later = new Date(Date.now() + 3_600_000).toUTCString();
		for (const value of ["120", later]) {
			const { message, retries, requests } = await retried(busy(429, { "retry-after": value }));
			expect(message).toMatchObject({ stopReason: "error", errorKind: "rate_limit" });
			expect(retries).toEqual([]);
			expect(requests).toBe(1);
		}
	});

	it("a garbage retry-after falls back to the exponential backoff", async () => {
		for (const value of ["soon", "-5", ""]) {
			const { message, retries } = await retried(busy(429, { "retry-after": value }), {
				retryBaseDelayMs: 8,
				random: () => 0.5,
			});
			expect(message.stopReason).toBe("stop");
			// Equal jitter: half the 8 ms step plus half of it scaled by random() = 0.5.
			expect(retries).toEqual([expect.objectContaining({ delayMs: 6 })]);
		}
	});

	it("a 500 then success: one retry, the reply arrives", async () => {
		const { message, retries, requests } = await retried(busy(500, {}));
		expect(message.stopReason).toBe("stop");
		expect(textOf(message).length).toBeGreaterThan(0);
		expect(retries.map((retry) => retry.errorKind)).toEqual(["server"]);
		expect(requests).toBe(2);
	});
});

describe("stalls (hardening item 10)", () => {
	it("a stall before the headers times out and is retried", async () => {
		const server = await serve({ type: "silent" }, ok("openai-responses"));
		const { message } = await callApi("openai-responses", server.baseUrl, { headersTimeoutMs: 100 });
		expect(message.stopReason).toBe("stop");
	});

	it("a stall mid-stream times out, keeps the content and is not retried", async () => {
		const body = textBody("openai-completions");
		const server = await serve(
			{ type: "hang", partial: body.subarray(0, Math.floor(body.length * 0.7)) },
			ok("openai-completions"),
		);
		const { message } = await callApi("openai-completions", server.baseUrl, { idleTimeoutMs: 80 });
		expect(message).toMatchObject({ stopReason: "error", errorKind: "timeout" });
		expect(message.content.length).toBeGreaterThan(0);
		expect(server.requests).toHaveLength(1);
	});
});

describe("an abort during each phase ends the call as aborted at once (SPEC A1, A2)", () => {
	const abortedDuring = async (
		script: ScriptedResponse[],
		options: ProviderStreamOptions,
		after: "retry" | number,
	) => {
		const server = await serve(...script);
		const controller = new AbortController();
		const model = testModel("anthropic-messages", server.baseUrl);
		const started = stream(model, HELLO, {
			apiKey: "k",
			...FAST,
			...options,
			signal: controller.signal,
			...(after === "retry" ? { onRetry: () => setImmediate(() => controller.abort("user stop")) } : {}),
		});
		if (after !== "retry") setTimeout(() => controller.abort("user stop"), after);
		return collectStream(started);
	};

	it("before the headers", async () => {
		const { message } = await abortedDuring([{ type: "silent" }], {}, 50);
		expect(message).toMatchObject({ stopReason: "aborted", errorKind: "aborted", errorMessage: "user stop" });
	});

	it("while waiting to retry (a long retry-after)", async () => {
		const { message } = await abortedDuring(
			[busy(429, { "retry-after": "30" })],
			{ retryMaxDelayMs: 60_000 },
			"retry",
		);
		expect(message).toMatchObject({ stopReason: "aborted", errorKind: "aborted" });
	});

	it("mid-stream (at the first text delta): the content so far is kept", async () => {
		const body = textBody("anthropic-messages");
		const server = await serve({ type: "hang", partial: body.subarray(0, Math.floor(body.length * 0.7)) });
		const model = testModel("anthropic-messages", server.baseUrl);
		const { message } = await collectAbortedAtText(
			(signal) => stream(model, HELLO, { apiKey: "k", ...FAST, signal }),
			"user stop",
		);
		expect(message).toMatchObject({ stopReason: "aborted", errorKind: "aborted", errorMessage: "user stop" });
		expect(message.content.length).toBeGreaterThan(0);
	});

	it("while reading an error body that never ends", async () => {
		const { message } = await abortedDuring(
			[{ type: "hang", status: 503, partial: "<html>upstream" }],
			{ maxRetries: 0 },
			100,
		);
		expect(message).toMatchObject({ stopReason: "aborted", errorKind: "aborted" });
	});
});
