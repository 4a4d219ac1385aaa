/**
 * Property: for the Responses decoder, the final message and the event trace do not depend on where the
 * network cut the bytes (the property itself: support/split-invariance.ts).
 */
import { describe, it } from "vitest";
import { streamOpenAIResponses } from "../../../src/providers/openai-responses/index.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { expectSplitInvariant } from "../support/split-invariance.js";
import { responsesModel } from "./helpers.js";

const CASES: [folder: string, name: string][] = [
	["openai-responses-compatible-openrouter", "raw_cot"],
	["openai-responses", "file-search"],
];

describe("split invariance (SPEC E2): the decoded reply does not depend on byte boundaries", () => {
	for (const [folder, name] of CASES)
		it(`OpenAI Responses: ${name}`, () =>
			expectSplitInvariant(streamOpenAIResponses, responsesModel, firstBodyMatching([folder], name)));
});
