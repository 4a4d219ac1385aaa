/**
 * Hardening item 4: bodies are read with a bound. One SSE event larger than `maxEventBytes` fails the call
 * as it arrives (it is not buffered whole first), and an HTTP error body is read only up to
 * `maxErrorBodyBytes` (the message keeps 500 characters of it; a 200 MB error page is not read on every retry).
 */
import { describe, expect, it } from "vitest";
import {
	DEFAULT_MAX_ERROR_BODY_BYTES,
	DEFAULT_MAX_EVENT_BYTES,
} from "../../src/providers/base/run-stream.js";
import { textOf } from "../providers/support/content.js";
import { frameEvents } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { callApi, FOLDER } from "./support.js";

closeServersAfterEach();

const chunk = (content: string, finish: string | null = null) => ({
	id: "c1",
	object: "chat.completion.chunk",
	choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});

describe("bounded body reads (hardening item 4)", () => {
	it("an SSE line longer than maxEventBytes fails at the cap, without waiting for its end", async () => {
		// The line never ends: only the cap can end this call before the (long) idle timeout.
		const server = await serve({ type: "hang", partial: `data: {"x":"${"x".repeat(300_000)}` });
		const { message } = await callApi("openai-completions", server.baseUrl, {
			maxEventBytes: 100_000,
			idleTimeoutMs: 60_000,
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "malformed_response" });
		expect(message.errorMessage).toContain("larger than 100000 bytes");
		expect(message.errorMessage).toContain("maxEventBytes");
	});

	it("many events summing past the cap are fine: the cap is per event", async () => {
		const events = Array.from({ length: 50 }, () => chunk("y".repeat(4000)));
		const body = frameEvents(FOLDER["openai-completions"], [...events, chunk("", "stop")]);
		const server = await serve({ type: "sse", body, split: { seed: 5, pieces: 40 } });
		const { message } = await callApi("openai-completions", server.baseUrl, { maxEventBytes: 10_000 });
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toHaveLength(200_000);
	});

	it("CR-framed and CRLF-framed events are measured from their last line break too", async () => {
		// SSE allows CR, LF and CRLF line ends; the pending tail after a chunk's last break is what counts.
		const events = Array.from({ length: 50 }, () => chunk("y".repeat(4000)));
		const lf = frameEvents(FOLDER["openai-completions"], [...events, chunk("", "stop")]);
		for (const [eol, seed] of [
			["\r", 7],
			["\r\n", 9],
		] as const) {
			const server = await serve({
				type: "sse",
				body: lf.replaceAll("\n", eol),
				split: { seed, pieces: 8 },
			});
			const { message } = await callApi("openai-completions", server.baseUrl, { maxEventBytes: 10_000 });
			expect(message.stopReason).toBe("stop");
			expect(textOf(message)).toHaveLength(200_000);
		}
	});

	it("an HTTP error body is read only up to maxErrorBodyBytes, then the call fails with its head", async () => {
		// A 500 whose body never ends: reading it whole would hang until the idle timeout.
		const server = await serve({
			type: "hang",
			status: 500,
			headers: { "content-type": "text/html" },
			partial: `<html>upstream failed ${"z".repeat(200_000)}`,
		});
		const { message } = await callApi("anthropic-messages", server.baseUrl, {
			maxErrorBodyBytes: 1000,
			idleTimeoutMs: 60_000,
			maxRetries: 0,
		});
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server" });
		expect(message.errorMessage).toMatch(/^HTTP 500/);
		expect(message.errorMessage).toContain("upstream failed");
		expect(message.errorMessage?.length).toBeLessThan(700);
	});

	it("documented defaults: 16 MiB per SSE event, 64 KiB of an error body", () => {
		expect(DEFAULT_MAX_EVENT_BYTES).toBe(16 * 1024 * 1024);
		expect(DEFAULT_MAX_ERROR_BODY_BYTES).toBe(64 * 1024);
	});
});
