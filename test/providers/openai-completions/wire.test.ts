/**
 * The hand-written Chat Completions wire types (src/providers/openai-completions/wire.ts) against the `openai`
 * package's own. These are type assertions: `tsc --noEmit` (part of `npm run check`) fails when they stop
 * holding, e.g. after an SDK upgrade renames a field we send.
 */
import type * as Sdk from "openai/resources/chat/completions/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { describe, expectTypeOf, it } from "vitest";
import type { OpenAICompletionsRequest } from "../../../src/providers/openai-completions/request.js";
import type * as Wire from "../../../src/providers/openai-completions/wire.js";

/** What compatible servers take beyond OpenAI (reasoning fields, images in tool results; see request.ts). */
type Widened = "messages" | "reasoning_effort" | "reasoning";

describe("Chat Completions wire types agree with openai", () => {
	it("every body we build is a valid SDK request, apart from the compatible servers' additions", () => {
		expectTypeOf<Omit<OpenAICompletionsRequest, Widened>>().toExtend<
			Omit<Sdk.ChatCompletionCreateParamsStreaming, "messages">
		>();
		expectTypeOf<Wire.ChatCompletionCreateParamsStreaming>().toExtend<Sdk.ChatCompletionCreateParamsStreaming>();
		expectTypeOf<Wire.ChatCompletionMessageParam>().toExtend<Sdk.ChatCompletionMessageParam>();
	});

	it("OpenAI's usage object is one the usage normalizer reads", () => {
		expectTypeOf<CompletionUsage>().toExtend<Wire.CompletionUsage>();
	});
});
