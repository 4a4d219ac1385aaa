/**
 * Conformance on every recorded Chat Completions stream (openai-chat/ and the OpenAI-compatible dialects),
 * served byte for byte (or re-framed from JSONL) by the loopback server, re-split at random offsets, and read
 * through real fetch and our decoder. The expected facts come from the recording itself (facts.ts), except
 * usage, which is written out by hand below from each recording's final usage object. Retries are off here:
 * a recording is one response (retrying an in-stream error is pinned in llamacpp.test.ts).
 */
import { describe, expect, it } from "vitest";
import { mapStopReason } from "../../../src/providers/base/stop-reason.js";
import { FINISH_REASONS } from "../../../src/providers/openai-completions/index.js";
import { callsOf, textOf, thinkingOf } from "../support/content.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { CHAT_FOLDERS, chatFacts } from "./facts.js";
import { collect, testModel } from "./helpers.js";

const server = serverForFile();

const fixtures = fixturesFor(CHAT_FOLDERS);

interface ExpectedUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	reasoning?: number;
}

const u = (input: number, output: number, cacheRead = 0, reasoning?: number): ExpectedUsage => ({
	input,
	output,
	cacheRead,
	cacheWrite: 0,
	...(reasoning === undefined ? {} : { reasoning }),
});

/**
 * SPEC M5, by hand from each recording's final usage: `input` = prompt_tokens − cached tokens; reasoning from
 * completion_tokens_details. File name (without folder) → expected usage.
 */
const EXPECTED_USAGE: Record<string, ExpectedUsage> = {
	"569c877e69429d4cbc1577d2cd6dd33878095c68badc6b6654a69769b391a1c1.bin": u(79, 12, 0, 0),
	"83b060bae42eb41c4f1edbb7c1542b954b37d9dfd1910b964ddebc9677e6ae85.bin": u(9, 2, 0, 0),
	"TestOpenAICommon__openai-gpt-5__multi_tool_streaming.interaction-0.sse": u(190, 379, 0, 320),
	"azure-model-router.1.chunks.txt": u(15, 78, 0, 64),
	"c6aa7e397b7123c3501f25df3a05d4daf7e8ad6d61ffa406ab5361fe36a8d5b1.bin": u(76, 24, 0, 0),
	"e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin": u(14, 30, 0, 0),
	"openai-text.chunks.txt": u(16, 300, 0, 0),
	// A trailing `moderation` chunk carries `"usage": null`: it must not erase the usage before it.
	"test_openai_moderation_stream.sse": u(13, 11, 0, 0),
	"alibaba-tool-call.chunks.txt": u(295, 22),
	// Anthropic's compatible endpoint sent no usage at all.
	"anthropic-fallback-tool-call.sse": u(0, 0),
	"deepseek-reasoning.chunks.txt": u(18, 219, 0, 205),
	"deepseek-text.chunks.txt": u(13, 400),
	// 320 of 339 prompt tokens were cache hits.
	"deepseek-tool-call.chunks.txt": u(19, 83, 320, 39),
	// Usage only in `x_groq.usage` (and a copy at top level) of the last chunk.
	"groq-tool-call.chunks.txt": u(210, 15),
	"mistral-tool-call.chunks.txt": u(124, 22),
	"test_mistral_model_thinking_part_iter.sse": u(10, 232),
	"TestOpenRouterCommon__anthropic__multi_tool_streaming.interaction-0.sse": u(685, 120, 0, 0),
	"test_openrouter_streaming_reasoning.sse": u(43, 36, 0, 13),
	// Cumulative usage in every chunk; the last one counts.
	"perplexity-citations.chunks.txt": u(10, 336),
	// xAI: 306 of 307 prompt tokens cached; total 560 = 307 + 26 + 227, so reasoning is outside completion_tokens.
	"xai-tool-call.chunks.txt": u(1, 253, 306, 227),
	// llama.cpp sends usage only when `stream_options.include_usage` is asked for (it was not); its `timings`
	// object is not usage.
	"llamacpp-error-event-only.sse": u(0, 0),
	"llamacpp-text-then-error-event.sse": u(0, 0),
	"llamacpp-tools-offered-length-timings.sse": u(0, 0),
};

describe("Chat Completions conformance on recorded streams", () => {
	it("covers every openai-chat and OpenAI-compatible fixture", () => {
		expect(fixtures.length).toBe(23);
		for (const fixture of fixtures) expect(EXPECTED_USAGE[fixture.file.split("/")[1] ?? ""]).toBeDefined();
	});

	for (const fixture of fixtures) {
		describe(fixture.file, () => {
			const [body] = responseBodies(fixture);
			for (const seed of [3, 11, 29]) {
				it(`split seed ${seed}`, async () => {
					if (!body) throw new Error("no body");
					const facts = chatFacts(body);
					server.enqueue({ type: "sse", body, split: { seed, pieces: 32 } });
					// SPEC E3: nothing throws; one start, exactly one terminal event.
					const { events, message } = await collect(testModel(`${server.baseUrl}/v1`), { maxRetries: 0 });
					expect(events[0]?.type).toBe("start");
					expect(events.filter((event) => event.type === "done" || event.type === "error")).toHaveLength(1);

					expect(textOf(message)).toBe(facts.text);
					expect(thinkingOf(message)).toBe(facts.thinking);
					expect(callsOf(message)).toEqual(facts.toolCalls);
					for (const call of message.content)
						if (call.type === "toolCall") expect(call.argumentsError).toBeUndefined();

					// SPEC M5
					const expected = EXPECTED_USAGE[fixture.file.split("/")[1] ?? ""];
					const { input, output, cacheRead, cacheWrite, reasoning } = message.usage;
					expect({
						input,
						output,
						cacheRead,
						cacheWrite,
						...(reasoning === undefined ? {} : { reasoning }),
					}).toEqual(expected);
					expect(message.usage.totalTokens).toBe(input + output + cacheRead + cacheWrite);
					expect(message.usage.cost.total).toBeCloseTo(
						(input * 1.25 + output * 10 + cacheRead * 0.125) / 1_000_000,
						12,
					);

					// SPEC E3 / A4: an in-stream error event ends the reply as an error, the content before it kept.
					if (facts.error) {
						expect(message.stopReason).toBe("error");
						expect(message.errorMessage).toBe(facts.error.message);
						expect(events.at(-1)?.type).toBe("error");
					} else if (facts.refusal) {
						// SPEC M4 / S5: the stop reason maps as the table says; a refusal is an error turn.
						expect(message.stopReason).toBe("error");
						expect(message.stopDetails?.type).toBe("refusal");
					} else {
						const stop = mapStopReason(facts.finishReason, FINISH_REASONS);
						expect(message.stopReason).toBe(stop.reason);
						expect(message.errorMessage).toBeUndefined();
					}
				});
			}
		});
	}
});
