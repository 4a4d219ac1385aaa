/**
 * Conformance of the Gemini decoder on every real recorded stream of the Gemini API and Vertex AI (issue 3),
 * over the loopback server: real fetch, real HTTP, bodies cut at random byte offsets (inside multi-byte
 * characters and between CR and LF). The recording decides what is right.
 */
import { describe, expect, it } from "vitest";
import { assertEventShape } from "../support/collect.js";
import { callsOf, providerDataOf, textOf, thinkingOf, tokenCountsOf } from "../support/content.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { closeServersAfterEach, serveBodies } from "../support/loopback.js";
import { HI } from "../support/transcript.js";
import { GEMINI_FOLDERS, geminiFacts } from "./facts.js";
import { collect, geminiModel } from "./helpers.js";

const FIXTURES = fixturesFor(GEMINI_FOLDERS);

/** Expected stop reason per recorded finish reason (SPEC M4, S5). */
const STOP: Record<string, string> = {
	STOP: "stop",
	MAX_TOKENS: "length",
	SAFETY: "error",
	RECITATION: "error",
};

/** The hand-assembled Vertex capture: two chunks, then a bare JSON error body (499 CANCELLED). */
const MID_STREAM_ERROR = "google-vertex/streaming-failure-error-mid-stream.txt";

closeServersAfterEach();

describe("Gemini conformance on recorded streams (SPEC E2, E3, M4, M5)", () => {
	it("covers every Gemini and Vertex fixture", () => {
		expect(FIXTURES.length).toBe(15);
	});

	for (const [fixtureIndex, fixture] of FIXTURES.entries()) {
		for (const seed of [fixtureIndex + 1, fixtureIndex + 201]) {
			it(`${fixture.file} (split seed ${seed})`, async () => {
				const [body] = responseBodies(fixture);
				const server = await serveBodies([body!], { seed, pieces: 40 });
				const facts = geminiFacts(body!);
				const { events, message, streamedText } = await collect(geminiModel(server.baseUrl), HI);
				expect(assertEventShape(events)).toBeUndefined();
				expect(textOf(message)).toBe(facts.text);
				expect(streamedText).toBe(facts.text);
				expect(thinkingOf(message)).toBe(facts.thinking);
				expect(callsOf(message)).toEqual(facts.toolCalls);
				expect(tokenCountsOf(message)).toEqual(facts.usage);
				expect(providerDataOf(message)).toEqual(facts.providerParts);
				if (facts.responseId) expect(message.responseId).toBe(facts.responseId);
				if (fixture.file === MID_STREAM_ERROR) {
					// SPEC E2/A4: the error after content keeps the content so far.
					expect(message.stopReason).toBe("error");
					expect(message.errorMessage).toBe("The operation was cancelled.");
					expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
					return;
				}
				const expected =
					facts.finishReason === "STOP" && facts.toolCalls.length > 0 ? "toolUse" : STOP[facts.finishReason!];
				expect(message.stopReason).toBe(expected);
				if (expected === "error") {
					expect(message.stopDetails).toMatchObject({ type: "content_filter", raw: facts.finishReason });
				} else expect(message.errorMessage).toBeUndefined();
				expect(JSON.parse(JSON.stringify(message))).toEqual(message);
			});
		}
	}
});
