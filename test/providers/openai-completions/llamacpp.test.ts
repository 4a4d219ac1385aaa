/**
 * llama.cpp `llama-server`'s own stream shapes, from the three recordings made against a real server: a bare
 * `data: {"error":{code 500,…}}` event on an HTTP 200 stream (no `finish_reason`, no `[DONE]`), and the extra
 * `timings` object on the finishing chunk. SPEC E3 (errors are data), A4 (content kept), A8 (retried only
 * before any content). Conformance on the same files is in conformance.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { RetryInfo } from "../../../src/core/model.js";
import { textOf } from "../support/content.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { chatFacts } from "./facts.js";
import { collect, testModel } from "./helpers.js";

const FOLDER = ["openai-compatible-llamacpp"];
const ERROR_ONLY = firstBodyMatching(FOLDER, "error-event-only");
const TEXT_THEN_ERROR = firstBodyMatching(FOLDER, "text-then-error");
const LENGTH_TIMINGS = firstBodyMatching(FOLDER, "length-timings");
const SERVER_ERROR = "The model produced output that does not match the expected peg-native format";

const server = serverForFile({ expectDrained: true });
const llamaServer = () =>
	testModel(`${server.baseUrl}/v1`, { provider: "llamacpp", id: "rand-qwen2-tiny.gguf" });

function call(options: { maxRetries?: number } = {}) {
	const retries: RetryInfo[] = [];
	const done = collect(llamaServer(), {
		retryBaseDelayMs: 1,
		onRetry: (info) => retries.push(info),
		...options,
	});
	return done.then((collected) => ({ ...collected, retries }));
}

describe("llama.cpp in-stream error event (HTTP 200, bare data: {error})", () => {
	it("before any content: classified `server` and retried; the retry's reply is the result (SPEC A8)", async () => {
		server.enqueue(
			{ type: "sse", body: ERROR_ONLY, split: { seed: 1 } },
			{ type: "sse", body: LENGTH_TIMINGS },
		);
		const before = server.requests.length;
		const { message, retries } = await call();
		expect(retries).toEqual([
			expect.objectContaining({ attempt: 1, errorKind: "server", errorMessage: SERVER_ERROR }),
		]);
		expect(server.requests.length - before).toBe(2);
		expect(message.stopReason).toBe("length");
		expect(textOf(message)).toBe(chatFacts(LENGTH_TIMINGS).text);
	});

	it("before any content, retries exhausted: an error message with the server's text and nothing else", async () => {
		server.enqueue({ type: "sse", body: ERROR_ONLY, split: { seed: 2 } });
		const { message, events } = await call({ maxRetries: 0 });
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server", errorMessage: SERVER_ERROR });
		expect(message.content).toEqual([]);
		expect(events.map((event) => event.type)).toEqual(["start", "error"]);
	});

	it("after content: the partial text is kept, marked interrupted, and not retried (SPEC A4, A8)", async () => {
		server.enqueue({ type: "sse", body: TEXT_THEN_ERROR, split: { seed: 3, pieces: 40 } });
		const before = server.requests.length;
		const { message, events, streamedText, retries } = await call();
		expect(server.requests.length - before).toBe(1);
		expect(retries).toEqual([]);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server", errorMessage: SERVER_ERROR });
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
		const facts = chatFacts(TEXT_THEN_ERROR);
		expect(facts.text).not.toBe("");
		expect(message.content).toEqual([{ type: "text", text: facts.text }]);
		expect(streamedText).toBe(facts.text);
		expect(events.at(-1)?.type).toBe("error");
	});
});

describe("llama.cpp `timings` on the finishing chunk", () => {
	it("is ignored without loss: every delta, the finish reason from the same chunk, no usage invented", async () => {
		server.enqueue({ type: "sse", body: LENGTH_TIMINGS, split: { seed: 4, pieces: 64 } });
		const { message, streamedText } = await call();
		const facts = chatFacts(LENGTH_TIMINGS);
		expect(facts.finishReason).toBe("length");
		expect(message).toMatchObject({
			stopReason: "length",
			responseId: "chatcmpl-PjBo8d1VJqDcceQFKkd3NNc1iRPfAoNk",
		});
		expect(message.errorMessage).toBeUndefined();
		expect(message.content).toEqual([{ type: "text", text: facts.text }]);
		expect(streamedText).toBe(facts.text);
		expect(message.usage).toMatchObject({ input: 0, output: 0, totalTokens: 0 });
		expect(JSON.stringify(message)).not.toContain("predicted_per_second");
	});
});
