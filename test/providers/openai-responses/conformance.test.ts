/**
 * Conformance of the OpenAI Responses decoder on every real recorded stream (issue 3), over the loopback
 * server: real fetch, real HTTP, bodies cut at random byte offsets. The recording decides what is right.
 */
import { afterAll, describe, expect, it } from "vitest";
import { assertEventShape } from "../support/collect.js";
import { textOf, thinkingOf } from "../support/content.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { startReplayServer } from "../support/replay-server.js";
import { HI } from "../support/transcript.js";
import { responseFacts } from "./facts.js";
import { collect, responsesModel } from "./helpers.js";

const FIXTURES = fixturesFor([
	"openai-responses",
	"openai-responses-compatible-openrouter",
	"openai-responses-compatible-lmstudio",
	"openai-responses-compatible-xai",
	"openai-responses-compatible-deepseek",
]);

/** `openai-phase` was trimmed by its source: its deltas cover only a prefix of each `output_text.done`. */
const TRIMMED_DELTAS = new Set(["openai-responses/openai-phase.1.chunks.txt"]);

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
	await Promise.all(servers.map((server) => server.close()));
});

describe("OpenAI Responses conformance on recorded streams (SPEC E2, E3, M4, M5)", () => {
	it("covers every Responses fixture folder", () => {
		expect(FIXTURES.length).toBe(20);
	});

	for (const [fixtureIndex, fixture] of FIXTURES.entries()) {
		for (const seed of [fixtureIndex + 1, fixtureIndex + 101]) {
			it(`${fixture.file} (split seed ${seed})`, async () => {
				const bodies = responseBodies(fixture);
				const server = await startReplayServer(
					bodies.map((body) => ({ type: "sse" as const, body, split: { seed, pieces: 40 } })),
				);
				servers.push(server);
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
						const blocks = message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
						expect(blocks.length).toBe(facts.textParts.length);
						for (const [i, part] of facts.textParts.entries()) expect(blocks[i]?.startsWith(part)).toBe(true);
						expect(textOf(message)).toBe(facts.doneText);
					} else expect(textOf(message)).toBe(facts.text);
					expect(streamedText).toBe(textOf(message));
					expect(thinkingOf(message)).toBe(facts.thinking);
					const calls = message.content.flatMap((block) =>
						block.type === "toolCall" ? [{ id: block.id, name: block.name, arguments: block.arguments }] : [],
					);
					expect(calls).toEqual(facts.toolCalls);
					const { cost: _cost, priceUnknown: _unknown, ...usage } = message.usage;
					expect(usage).toEqual(facts.usage);
					const items = message.content.flatMap((block) =>
						block.type === "providerBlock" ? [block.data] : [],
					);
					expect(items).toEqual(facts.providerItems);
					// SPEC M6: plain JSON.
					expect(JSON.parse(JSON.stringify(message))).toEqual(message);
				}
				expect(server.pending()).toBe(0);
			});
		}
	}
});
