/**
 * Error paths through the loopback server (SPEC E3, A8): every failure is an `error` message with a classified
 * `errorKind`, never a throw; transient failures before any content are retried.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { RetryInfo } from "../../../src/core/model.js";
import { stream as registryStream } from "../../../src/providers/registry.js";
import { collectAbortedAtText } from "../support/collect.js";
import { textOf } from "../support/content.js";
import {
	itKeepsContentAfterReset,
	itRefusesTheKey,
	itTimesOutWhileDripping,
	onFileServer,
} from "../support/error-paths.js";
import { serverForFile } from "../support/loopback.js";
import { HELLO } from "../support/transcript.js";
import { collect, testModel } from "./helpers.js";
import { chunk, textReply } from "./synthetic.js";

const FAST = { retryBaseDelayMs: 1 };

const server = serverForFile({ expectDrained: true });
let baseUrl: string;
beforeAll(() => {
	baseUrl = `${server.baseUrl}/v1`;
});
const call = onFileServer(server, (url, options) => collect(testModel(`${url}/v1`), { ...FAST, ...options }));

const openAIError = (message: string, type: string, code: string | null) =>
	JSON.stringify({ error: { message, type, param: null, code } });

describe("HTTP errors", () => {
	itRefusesTheKey(
		call,
		{
			type: "http",
			status: 401,
			body: openAIError("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key"),
		},
		"Incorrect API key",
	);

	it("429 with retry-after is retried after the requested delay and reported through onRetry", async () => {
		server.enqueue(
			{
				type: "http",
				status: 429,
				headers: { "retry-after": "0" },
				body: openAIError("Rate limit reached for gpt-5", "requests", "rate_limit_exceeded"),
			},
			{ type: "http", status: 429, headers: { "retry-after-ms": "15" }, body: "{}" },
			{ type: "sse", body: textReply("Hi") },
		);
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(baseUrl), { ...FAST, onRetry: (info) => retries.push(info) });
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toBe("Hi");
		expect(retries).toEqual([
			{
				attempt: 1,
				delayMs: 0,
				errorKind: "rate_limit",
				errorMessage: "HTTP 429 Too Many Requests: Rate limit reached for gpt-5",
			},
			expect.objectContaining({ attempt: 2, delayMs: 15, errorKind: "rate_limit" }),
		]);
	});

	it("429 insufficient_quota is a rate_limit that is not retried", async () => {
		server.enqueue({
			type: "http",
			status: 429,
			body: openAIError("You exceeded your current quota", "insufficient_quota", "insufficient_quota"),
		});
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(baseUrl), { ...FAST, onRetry: (info) => retries.push(info) });
		expect(message).toMatchObject({ stopReason: "error", errorKind: "rate_limit" });
		expect(retries).toEqual([]);
	});

	it("500 then success", async () => {
		server.enqueue(
			{ type: "http", status: 500, body: openAIError("The server had an error", "server_error", null) },
			{ type: "sse", body: textReply("Recovered") },
		);
		const { message } = await collect(testModel(baseUrl), FAST);
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toBe("Recovered");
	});

	it("context_length_exceeded → context_overflow, not retried", async () => {
		server.enqueue({
			type: "http",
			status: 400,
			body: openAIError(
				"This model's maximum context length is 128000 tokens. However, your messages resulted in 130213 tokens.",
				"invalid_request_error",
				"context_length_exceeded",
			),
		});
		const { message } = await collect(testModel(baseUrl), FAST);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "context_overflow" });
	});

	it("a plain 404 (wrong base URL path) → invalid_request", async () => {
		server.enqueue({ type: "http", status: 404, body: "404 page not found" });
		const { message } = await collect(testModel(baseUrl), FAST);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "invalid_request" });
		expect(message.errorMessage).toContain("404 page not found");
	});
});

describe("network failures", () => {
	it("a connection reset before the first byte is retried", async () => {
		server.enqueue({ type: "reset" }, { type: "sse", body: textReply("ok") });
		const retries: RetryInfo[] = [];
		const { message } = await collect(testModel(baseUrl), { ...FAST, onRetry: (info) => retries.push(info) });
		expect(message.stopReason).toBe("stop");
		expect(retries.map((retry) => retry.errorKind)).toEqual(["network"]);
	});

	it("a JSON error body written into the stream without `data:` is the reply's error, the text before it kept (SPEC E3)", async () => {
		const bare = openAIError("The server had an error while processing your request.", "server_error", null);
		server.enqueue({ type: "sse", body: `${chunk({ role: "assistant", content: "Hel" })}${bare}\n` });
		const { message } = await collect(testModel(baseUrl), FAST);
		expect(message).toMatchObject({
			stopReason: "error",
			errorKind: "server",
			errorMessage: "The server had an error while processing your request.",
		});
		expect(textOf(message)).toBe("Hel");
		// The same body pretty-printed over several lines, as the only thing the server sent.
		server.enqueue({
			type: "sse",
			body: `${JSON.stringify(JSON.parse(openAIError("Too many tokens", "invalid_request_error", "context_length_exceeded")), null, 2)}\n`,
		});
		const { message: overflow } = await collect(testModel(baseUrl), FAST);
		expect(overflow).toMatchObject({
			stopReason: "error",
			errorKind: "context_overflow",
			errorMessage: "Too many tokens",
		});
		// Stray lines that are no error body change nothing: the stream still just ended early.
		server.enqueue({ type: "sse", body: `${chunk({ role: "assistant", content: "Hi" })}not an event\n` });
		const { message: cut } = await collect(testModel(baseUrl), FAST);
		expect(cut).toMatchObject({ stopReason: "error", errorMessage: "stream ended unexpectedly" });
	});

	itKeepsContentAfterReset(call, chunk({ role: "assistant", content: "Hel" }), "Hel");

	itTimesOutWhileDripping(call, textReply("slow"), 30);

	it("abort mid-stream commits the text so far as aborted (SPEC A1)", async () => {
		server.enqueue({ type: "hang", partial: chunk({ role: "assistant", content: "Wait" }) });
		const { message } = await collectAbortedAtText(
			(signal) => registryStream(testModel(baseUrl), HELLO, { apiKey: "k", signal }),
			"user stop",
		);
		expect(message).toMatchObject({ stopReason: "aborted", errorMessage: "user stop" });
		expect(textOf(message)).toBe("Wait");
	});
});

describe("request wiring", () => {
	it("POST {baseUrl}/chat/completions with a bearer key, through the registry (api openai-completions)", async () => {
		server.enqueue({ type: "sse", body: textReply("Hi") });
		const stream = registryStream(testModel(baseUrl), HELLO, { apiKey: "sk-test" });
		const message = await stream.result();
		expect(message).toMatchObject({ api: "openai-completions", stopReason: "stop" });
		const request = server.requests.at(-1);
		expect(request?.method).toBe("POST");
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBe("Bearer sk-test");
		expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ model: "gpt-5", stream: true });
	});

	it("a cloud server without a key → auth error naming the variable; nothing is sent", async () => {
		const before = server.requests.length;
		const stream = registryStream(
			testModel(baseUrl, { provider: "acme-cloud", compat: { apiKeyEnv: "CAPSTAN_TEST_UNSET_KEY" } }),
			HELLO,
		);
		const message = await stream.result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
		expect(message.errorMessage).toContain("CAPSTAN_TEST_UNSET_KEY");
		expect(server.requests.length).toBe(before);
	});

	it("Azure (compat preset azure): the key goes in `api-key`, the api-version query stays at the end", async () => {
		server.enqueue({ type: "sse", body: textReply("azure") });
		const azure = testModel(`${server.baseUrl}/openai/deployments/gpt-5?api-version=2025-04-01-preview`, {
			provider: "azure-openai",
		});
		const message = await registryStream(azure, HELLO, { apiKey: "az-key" }).result();
		expect(textOf(message)).toBe("azure");
		const request = server.requests.at(-1);
		expect(request?.path).toBe("/openai/deployments/gpt-5/chat/completions?api-version=2025-04-01-preview");
		expect(request?.headers["api-key"]).toBe("az-key");
		expect(request?.headers.authorization).toBeUndefined();
	});

	it("a local server (Ollama preset) needs no key and gets no authorization header", async () => {
		server.enqueue({ type: "sse", body: textReply("local") });
		const ollama = testModel(baseUrl, { provider: "ollama", id: "qwen3:8b" });
		const message = await registryStream(ollama, HELLO).result();
		expect(textOf(message)).toBe("local");
		expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
	});
});
