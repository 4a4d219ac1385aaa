/**
 * Conformance of the OpenAI Responses decoder on every real recorded stream (issue 3), over the loopback
 * server: real fetch, real HTTP, bodies cut at random byte offsets. The recording decides what is right.
 */
import { describe, expect, it } from "vitest";
import { assertEventShape } from "../support/collect.js";
import {
	callsOf,
	providerDataOf,
	textBlocksOf,
	textOf,
	thinkingOf,
	tokenCountsOf,
} from "../support/content.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { closeServersAfterEach, serveBodies } from "../support/loopback.js";
import { HI } from "../support/transcript.js";
import { RESPONSES_FOLDERS, responseFacts } from "./facts.js";
import { collect, responsesModel } from "./helpers.js";

const FIXTURES = fixturesFor(RESPONSES_FOLDERS);

/** `openai-phase` was trimmed by its source: its deltas cover only a prefix of each `output_text.done`. */
const TRIMMED_DELTAS = new Set(["openai-responses/openai-phase.1.chunks.txt"]);

closeServersAfterEach();

describe("OpenAI Responses conformance on recorded streams (SPEC E2, E3, M4, M5)", () => {
	it("covers every Responses fixture folder", () => {
		expect(FIXTURES.length).toBe(20);
	});

	for (const [fixtureIndex, fixture] of FIXTURES.entries()) {
		for (const seed of [fixtureIndex + 1, fixtureIndex + 101]) {
			it(`${fixture.file} (split seed ${seed})`, async () => {
				const bodies = responseBodies(fixture);
				const server = await serveBodies(bodies, { seed, pieces: 40 });
				const model = responsesModel(server.baseUrl);
				for (const body of bodies) {
					const facts = responseFacts(body);
					const { events, message, streamedText } = await collect(model, HI);
					expect(assertEventShape(events)).toBeUndefined();
					expect(message.errorMessage).toBeUndefined();
					expect(message.stopReason).toBe(facts.stopReason);
					if (facts.responseId !== undefined) expect(message.responseId).toBe(facts.responseId);
					if (TRIMMED_DELTAS.has(fixture.file)) {
						// Judged on what the deltas allow: they are a prefix; the `.done` text completes them.
						const blocks = textBlocksOf(message);
						expect(blocks.length).toBe(facts.textParts.length);
						for (const [i, part] of facts.textParts.entries()) expect(blocks[i]?.startsWith(part)).toBe(true);
						expect(textOf(message)).toBe(facts.doneText);
					} else expect(textOf(message)).toBe(facts.text);
					expect(streamedText).toBe(textOf(message));
					expect(thinkingOf(message)).toBe(facts.thinking);
					expect(callsOf(message)).toEqual(facts.toolCalls);
					expect(tokenCountsOf(message)).toEqual(facts.usage);
					expect(providerDataOf(message)).toEqual(facts.providerItems);
					// SPEC M6: plain JSON.
					expect(JSON.parse(JSON.stringify(message))).toEqual(message);
				}
				expect(server.pending()).toBe(0);
			});
		}
	}
});
