/**
 * Property: for the Gemini decoder, the final message and the event trace do not depend on where the network
 * cut the bytes (the property itself: support/split-invariance.ts).
 */
import { describe, it } from "vitest";
import { streamGoogle } from "../../../src/providers/google/index.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { expectSplitInvariant } from "../support/split-invariance.js";
import { geminiModel } from "./helpers.js";

const CASES: [folder: string, name: string][] = [
	["google-gemini", "test_code_execution_stream"],
	["google-vertex", "no-args-tool-call"],
];

describe("split invariance (SPEC E2): the decoded reply does not depend on byte boundaries", () => {
	for (const [folder, name] of CASES)
		it(`Gemini: ${name}`, () =>
			expectSplitInvariant(streamGoogle, geminiModel, firstBodyMatching([folder], name)));
});
