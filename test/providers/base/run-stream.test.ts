import { afterEach, describe, expect, it, vi } from "vitest";
import type { Model, RetryInfo } from "../../../src/core/model.js";
import { finishWithStop, ProviderError, runProviderStream } from "../../../src/providers/base/index.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";

closeServersAfterEach();

// A minimal provider on the shared runner: reads SSE `data:` lines as text deltas until "[END]".
const model: Model = {
	id: "toy-1",
	api: "toy",
	provider: "toy-local",
	baseUrl: "http://127.0.0.1:9",
	reasoning: false,
	input: ["text"],
	contextWindow: 1000,
	maxTokens: 100,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	headers: { "x-model": "m" },
};

function toy(
	options: Parameters<typeof runProviderStream>[1],
	onEvent?: (data: string) => void,
	baseUrl = model.baseUrl,
) {
	return runProviderStream(
		model,
		options,
		async (builder, ctx) => {
			// Open the text block on the first delta: an open block counts as content, and content stops retries.
			let index = -1;
			for await (const event of ctx.streamSse({
				url: `${baseUrl}/toy`,
				headers: { "x-provider": "p" },
				body: "{}",
			})) {
				onEvent?.(event.data);
				if (event.data === "[END]") {
					finishWithStop(builder, { reason: "stop" });
					return;
				}
				if (index < 0) index = builder.startText();
				builder.appendText(index, event.data);
			}
		},
		{ requireApiKey: false },
	);
}

const sseResponse = (text: string) =>
	new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });

afterEach(() => {
	vi.useRealTimers();
});

describe("runProviderStream (SPEC E3, A8)", () => {
	it("layers provider, model and option headers; works without a key when the spec allows", async () => {
		const seen: Record<string, string>[] = [];
		const fakeFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
			seen.push({ ...(init?.headers as Record<string, string>) });
			return sseResponse("data: Hi\n\ndata: [END]\n\n");
		}) as typeof fetch;
		const message = await toy({ fetch: fakeFetch, headers: { "x-option": "o" } }).result();
		expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "Hi" }] });
		expect(seen[0]).toMatchObject({
			"x-provider": "p",
			"x-model": "m",
			"x-option": "o",
		});
		expect(message.usage.priceUnknown).toBeUndefined(); // usage is the provider's to set
	});

	it("retries with exponential backoff on setTimeout (fake timers), reporting each retry", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		let calls = 0;
		const fakeFetch = (async () => {
			calls++;
			return calls < 3 ? new Response("busy", { status: 503 }) : sseResponse("data: ok\n\ndata: [END]\n\n");
		}) as typeof fetch;
		const retries: RetryInfo[] = [];
		const stream = toy({ fetch: fakeFetch, random: () => 1, onRetry: (info) => retries.push(info) });
		await vi.advanceTimersByTimeAsync(999);
		expect(calls).toBe(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(calls).toBe(2);
		await vi.advanceTimersByTimeAsync(2000);
		const message = await stream.result();
		expect(message.stopReason).toBe("stop");
		expect(retries.map((retry) => [retry.attempt, retry.delayMs, retry.errorKind])).toEqual([
			[1, 1000, "server"],
			[2, 2000, "server"],
		]);
	});

	it("a decoder that throws an unexpected error → malformed_response, not retried", async () => {
		let calls = 0;
		const fakeFetch = (async () => {
			calls++;
			return sseResponse("data: x\n\n");
		}) as typeof fetch;
		const message = await toy({ fetch: fakeFetch }, () => {
			throw new TypeError("cannot read 'delta'");
		}).result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "malformed_response" });
		expect(message.errorMessage).toContain("cannot read 'delta'");
		expect(calls).toBe(1);
	});

	it("a provider that returns without finishing → 'stream ended unexpectedly'", async () => {
		const fakeFetch = (async () => sseResponse("data: partial\n\n")) as typeof fetch;
		const message = await toy({ fetch: fakeFetch }).result();
		expect(message).toMatchObject({ stopReason: "error", errorMessage: "stream ended unexpectedly" });
		expect(message.content).toEqual([{ type: "text", text: "partial" }]);
	});

	it("a host onRetry that throws does not break the call", async () => {
		let calls = 0;
		const fakeFetch = (async () =>
			++calls === 1 ? new Response("", { status: 500 }) : sseResponse("data: [END]\n\n")) as typeof fetch;
		const message = await toy({
			fetch: fakeFetch,
			retryBaseDelayMs: 1,
			onRetry: () => {
				throw new Error("host bug");
			},
		}).result();
		expect(message.stopReason).toBe("stop");
	});

	it("a host that aborts from inside onRetry ends the reply at once, leaving no retry timer behind", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		let calls = 0;
		const fakeFetch = (async () => {
			calls++;
			return new Response("", { status: 429, headers: { "retry-after": "30" } });
		}) as typeof fetch;
		const controller = new AbortController();
		const message = await toy({
			fetch: fakeFetch,
			signal: controller.signal,
			onRetry: () => controller.abort("host gave up"),
		}).result();
		expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "host gave up" });
		await vi.advanceTimersByTimeAsync(0);
		expect(vi.getTimerCount()).toBe(0);
		await vi.runAllTimersAsync();
		expect(calls).toBe(1);
	});

	it("an idle timeout beyond a timer's range means no timeout, not one that fires at once", async () => {
		const server = await serve({
			type: "drip",
			body: "data: a\n\ndata: b\n\ndata: [END]\n\n",
			chunkSize: 9,
			intervalMs: 10,
		});
		const message = await toy({ idleTimeoutMs: Number.MAX_SAFE_INTEGER }, undefined, server.baseUrl).result();
		expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "ab" }] });
	});

	it("a headers timeout beyond a timer's range means no timeout, not one that fires at once", async () => {
		const server = await serve({ type: "silent" });
		const controller = new AbortController();
		const stream = toy(
			{ headersTimeoutMs: 2 ** 31, maxRetries: 0, signal: controller.signal },
			undefined,
			server.baseUrl,
		);
		await vi.waitFor(() => expect(server.requests).toHaveLength(1), { timeout: 5000 });
		await new Promise((resolve) => setTimeout(resolve, 20)); // long past a 1 ms timer
		controller.abort("host gave up");
		expect(await stream.result()).toMatchObject({ stopReason: "aborted", errorMessage: "host gave up" });
	});

	it("a retry-after longer than a timer can wait is waited, not retried at once", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		let calls = 0;
		const fakeFetch = (async () => {
			calls++;
			return new Response("", { status: 429, headers: { "retry-after": "3000000" } }); // 34.7 days
		}) as typeof fetch;
		const controller = new AbortController();
		const stream = toy({
			fetch: fakeFetch,
			signal: controller.signal,
			retryMaxDelayMs: Number.POSITIVE_INFINITY,
		});
		await vi.advanceTimersByTimeAsync(60_000);
		expect(calls).toBe(1);
		controller.abort("host gave up");
		expect(await stream.result()).toMatchObject({ stopReason: "aborted" });
	});

	it("a provider doing its own I/O: after markAccepted a drop is final, a reported overload is still retried", async () => {
		const attempts = { drop: 0, overloaded: 0 };
		const ownIo = (kind: "drop" | "overloaded") =>
			runProviderStream(
				model,
				{ retryBaseDelayMs: 1 },
				async (_builder, ctx) => {
					attempts[kind]++;
					ctx.markAccepted();
					throw kind === "drop"
						? new ProviderError("network", "socket hang up")
						: new ProviderError("overloaded", "busy");
				},
				{ requireApiKey: false },
			).result();
		expect(await ownIo("drop")).toMatchObject({ errorKind: "network", usage: { unknown: true } });
		expect(await ownIo("overloaded")).toMatchObject({ errorKind: "overloaded", usage: { unknown: true } });
		expect(attempts).toEqual({ drop: 1, overloaded: 3 });
	});

	it("a missing key is an auth error naming the variables, unless the spec says no key is needed", async () => {
		const saved = process.env.OPENAI_API_KEY;
		Reflect.deleteProperty(process.env, "OPENAI_API_KEY");
		try {
			const stream = runProviderStream({ ...model, provider: "openai" }, { apiKey: undefined }, async () => {
				throw new ProviderError("internal", "never reached");
			});
			const message = await stream.result();
			expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
			expect(message.errorMessage).toContain("OPENAI_API_KEY");
		} finally {
			if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
		}
	});

	it("even a call without a model ends as an error message, never a throw or a rejection (SPEC E3)", async () => {
		const stream = runProviderStream(undefined as unknown as Model, {}, async () => {});
		await expect(stream.result()).resolves.toMatchObject({
			stopReason: "error",
			errorKind: "invalid_request",
		});
	});

	it("registers one abort listener on the caller's signal per stream, across retries, and removes it (SPEC A2)", async () => {
		const controller = new AbortController();
		const added = vi.spyOn(controller.signal, "addEventListener");
		const removed = vi.spyOn(controller.signal, "removeEventListener");
		let calls = 0;
		const fakeFetch = (async () =>
			++calls < 3
				? new Response("", { status: 503 })
				: sseResponse("data: a\n\ndata: [END]\n\n")) as typeof fetch;
		const message = await toy({ fetch: fakeFetch, signal: controller.signal, retryBaseDelayMs: 1 }).result();
		expect(message.stopReason).toBe("stop");
		expect(calls).toBe(3);
		await new Promise((resolve) => setTimeout(resolve, 0)); // the runner detaches right after the result settles
		expect(added.mock.calls.filter(([type]) => type === "abort")).toHaveLength(1);
		expect(removed.mock.calls.filter(([type]) => type === "abort")).toHaveLength(1);
	});
});
