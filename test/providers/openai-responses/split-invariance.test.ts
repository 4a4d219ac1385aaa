/**
 * Property: for the Responses decoder, the final message and the event trace do not depend on
 * where the network cut the bytes (inside multi-byte characters, between CR and LF, inside JSON), over real
 * HTTP through the loopback server. fast-check picks the cut seeds and counts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage, Model } from "../../../src/index.js";
import { streamOpenAIResponses } from "../../../src/providers/openai-responses/index.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { startReplayServer } from "../support/replay-server.js";
import { responsesModel } from "./helpers.js";

type Stream = typeof streamOpenAIResponses;

async function decode(
	stream: Stream,
	model: (baseUrl: string) => Model,
	body: Uint8Array,
	split: { seed: number; pieces: number } | false,
) {
	const server = await startReplayServer([{ type: "sse", body, split }]);
	try {
		const events: AssistantMessageEvent[] = [];
		const run = stream(
			model(server.baseUrl),
			{ messages: [{ role: "user", content: "hi", timestamp: 1 }] },
			{ apiKey: "k" },
		);
		for await (const event of run) events.push(event);
		const message: AssistantMessage = { ...(await run.result()), timestamp: 0 };
		return { message, trace: events.map((event) => event.type).join(" ") };
	} finally {
		await server.close();
	}
}

const cases: [string, Stream, (baseUrl: string) => Model, string[], string][] = [
	[
		"OpenAI Responses",
		streamOpenAIResponses,
		responsesModel,
		["openai-responses-compatible-openrouter"],
		"raw_cot",
	],
	["OpenAI Responses", streamOpenAIResponses, responsesModel, ["openai-responses"], "file-search"],
];

describe("split invariance (SPEC E2): the decoded reply does not depend on byte boundaries", () => {
	for (const [api, stream, model, folders, name] of cases) {
		it(`${api}: ${name}`, async () => {
			const fixture = fixturesFor(folders).find((f) => f.file.includes(name))!;
			const body = responseBodies(fixture)[0]!;
			const whole = await decode(stream, model, body, false);
			await fc.assert(
				fc.asyncProperty(
					fc.integer({ min: 1, max: 2 ** 31 - 1 }),
					fc.integer({ min: 2, max: 400 }),
					async (seed, pieces) => {
						const cut = await decode(stream, model, body, { seed, pieces });
						expect(cut.message).toEqual(whole.message);
						expect(cut.trace).toBe(whole.trace);
					},
				),
				{ numRuns: 12 },
			);
		});
	}
});
