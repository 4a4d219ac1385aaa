/**
 * Hardening item 7: an error inside a stream. OpenRouter sends `{"error":{…},"usage":{…}}` — those tokens
 * were billed, so the usage is kept before the error is handled; a 400-class error body inside the stream
 * (Groq `tool_use_failed` with `"type":"invalid_request_error"`, Gemini `code: 400`) is classified from the
 * body's type and status, not as a retryable `server` error.
 */
import { describe, expect, it } from "vitest";
import { classifyStreamError } from "../../src/providers/base/errors.js";
import { textOf } from "../providers/support/content.js";
import { frameEvents } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { callApi, FOLDER } from "./support.js";

closeServersAfterEach();

// SYNTHETIC chunks following the documented Chat Completions / Gemini shapes (no recording of either case).
const chatChunk = (content: string) => ({
	id: "gen-1",
	object: "chat.completion.chunk",
	choices: [{ index: 0, delta: { content }, finish_reason: null }],
});
const USAGE = { prompt_tokens: 40, completion_tokens: 7, total_tokens: 47 };

describe("an in-stream error keeps the usage that came with it (hardening item 7)", () => {
	it("openai-completions: OpenRouter's error chunk with usage — content and usage kept", async () => {
		const body = frameEvents(FOLDER["openai-completions"], [
			chatChunk("Hel"),
			{ id: "gen-1", error: { code: 502, message: "Upstream error" }, usage: USAGE },
		]);
		const server = await serve({ type: "sse", body, split: false });
		const { message } = await callApi("openai-completions", server.baseUrl);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server" });
		expect(textOf(message)).toBe("Hel");
		expect(message.usage).toMatchObject({ input: 40, output: 7, totalTokens: 47 });
		expect(message.usage.cost.total).toBeGreaterThan(0);
	});

	it("google-generative-ai: an error chunk with usageMetadata keeps the usage", async () => {
		const body = frameEvents(FOLDER["google-generative-ai"], [
			{ candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] } }] },
			{
				error: { code: 500, message: "Internal error", status: "INTERNAL" },
				usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 7, totalTokenCount: 47 },
			},
		]);
		const server = await serve({ type: "sse", body, split: false });
		const { message } = await callApi("google-generative-ai", server.baseUrl);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server" });
		expect(message.usage).toMatchObject({ input: 40, output: 7 });
	});
});

describe("a 400-class error inside a stream is classified from its type and status (hardening item 7)", () => {
	it("openai-completions: Groq's `event: error` tool_use_failed is invalid_request, not retried", async () => {
		const groq = {
			error: {
				message: "Failed to call a function. Please adjust your prompt.",
				type: "invalid_request_error",
				code: "tool_use_failed",
				failed_generation: "<function=x>",
			},
		};
		const body = `event: error\ndata: ${JSON.stringify(groq)}\n\n`;
		const server = await serve({ type: "sse", body, split: false }, { type: "sse", body, split: false });
		const { message } = await callApi("openai-completions", server.baseUrl);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "invalid_request" });
		expect(message.errorMessage).toContain("Failed to call a function");
		expect(server.requests).toHaveLength(1);
	});

	it("openai-completions: an error chunk typed invalid_request_error is invalid_request", async () => {
		const body = frameEvents(FOLDER["openai-completions"], [
			{ error: { message: "bad tool schema", type: "invalid_request_error" } },
		]);
		const server = await serve({ type: "sse", body, split: false }, { type: "sse", body, split: false });
		const { message } = await callApi("openai-completions", server.baseUrl);
		expect(message.errorKind).toBe("invalid_request");
		expect(server.requests).toHaveLength(1);
	});

	it("google-generative-ai: an in-stream error with code 400 INVALID_ARGUMENT is invalid_request", async () => {
		const body = frameEvents(FOLDER["google-generative-ai"], [
			{ error: { code: 400, message: "Invalid JSON payload", status: "INVALID_ARGUMENT" } },
		]);
		const server = await serve({ type: "sse", body, split: false }, { type: "sse", body, split: false });
		const { message } = await callApi("google-generative-ai", server.baseUrl);
		expect(message.errorKind).toBe("invalid_request");
		expect(server.requests).toHaveLength(1);
	});

	it("openai-responses: an `error` event typed invalid_request_error is invalid_request", async () => {
		const typed = frameEvents(FOLDER["openai-responses"], [
			{
				type: "error",
				error: { type: "invalid_request_error", message: "Invalid tool" },
				sequence_number: 0,
			},
		]);
		const server = await serve(
			{ type: "sse", body: typed, split: false },
			{ type: "sse", body: typed, split: false },
		);
		const { message } = await callApi("openai-responses", server.baseUrl);
		expect(message.errorKind).toBe("invalid_request");
		expect(server.requests).toHaveLength(1);
	});

	it("classifyStreamError: type, then a numeric status or code, then server", () => {
		const kind = (body: unknown) => classifyStreamError(body, JSON.stringify(body)).kind;
		expect(kind({ type: "authentication_error", message: "no" })).toBe("auth");
		expect(kind({ error: { type: "rate_limit_error", message: "slow" } })).toBe("rate_limit");
		expect(kind({ code: 404, message: "no model" })).toBe("invalid_request");
		expect(kind({ status_code: 429, message: "slow" })).toBe("rate_limit");
		expect(kind({ code: "503", message: "down" })).toBe("server");
		expect(kind({ message: "something broke" })).toBe("server");
	});
});
