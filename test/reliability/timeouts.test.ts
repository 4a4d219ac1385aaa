/**
 * Hardening item 10: a silent server surfaces in reasonable time. Two phases with their own limits: until the
 * response headers (`headersTimeoutMs`, retried: nothing was received), then between body chunks from the
 * headers on (`idleTimeoutMs`, never retried: the server accepted the request and may be generating, so a
 * retry could bill twice and would double the wait; SPEC A8).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RetryInfo } from "../../src/core/model.js";
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS } from "../../src/providers/base/run-stream.js";
import { stream } from "../../src/providers/registry.js";
import { collectStream } from "../providers/support/collect.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { testModel } from "../providers/support/models.js";
import { HELLO } from "../providers/support/transcript.js";
import { callApi } from "./support.js";

closeServersAfterEach();
afterEach(() => {
	vi.useRealTimers();
});

describe("headers and idle timeouts are separate phases (hardening item 10)", () => {
	it("no response headers within headersTimeoutMs → timeout, retried (nothing was received)", async () => {
		const server = await serve({ type: "silent" }, { type: "silent" });
		const retries: RetryInfo[] = [];
		const { message } = await callApi("anthropic-messages", server.baseUrl, {
			headersTimeoutMs: 50,
			maxRetries: 1,
			onRetry: (info) => retries.push(info),
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "timeout" });
		expect(message.errorMessage).toContain("no response headers within 50 ms");
		// Two attempts (the retry report proves the second; a loaded machine may not deliver it in 50 ms).
		expect(retries.map((retry) => retry.errorKind)).toEqual(["timeout"]);
	});

	it("headers, then silence past idleTimeoutMs → timeout, not retried (the server accepted the request)", async () => {
		const server = await serve({ type: "hang" }, { type: "hang" });
		const { message } = await callApi("openai-completions", server.baseUrl, {
			idleTimeoutMs: 50,
			maxRetries: 2,
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "timeout" });
		expect(message.errorMessage).toContain("no data for 50 ms");
		expect(server.requests).toHaveLength(1);
	});

	it("the defaults: 30 s to the headers, 120 s of silence between events (thinking models pause)", () => {
		expect(DEFAULT_HEADERS_TIMEOUT_MS).toBe(30_000);
		expect(DEFAULT_IDLE_TIMEOUT_MS).toBe(120_000);
	});

	it("under the defaults a server that never answers surfaces within 95 s (3 attempts), not minutes", async () => {
		vi.useFakeTimers();
		let requests = 0;
		// A platform-level stand-in for a black-holed connection: never answers, honours the abort.
		const silentFetch: typeof fetch = (_url, init) => {
			requests++;
			return new Promise((_resolve, reject) => {
				init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
			});
		};
		const model = testModel("google-generative-ai", "http://127.0.0.1:9");
		const result = collectStream(
			stream(model, HELLO, { apiKey: "k", fetch: silentFetch, random: () => 0.5 }),
		);
		let settled = false;
		result.then(() => {
			settled = true;
		});
		await vi.advanceTimersByTimeAsync(95_000);
		expect(settled).toBe(true);
		const { message } = await result;
		expect(message.errorKind).toBe("timeout");
		expect(requests).toBe(3);
	});
});
