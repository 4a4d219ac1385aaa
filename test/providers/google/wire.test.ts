/**
 * The hand-written Gemini wire types (src/providers/google/wire.ts) against `@google/genai`'s own. These are
 * type assertions: `tsc --noEmit` (part of `npm run check`) fails when they stop holding, e.g. after an SDK
 * upgrade renames a field or an enum value we send.
 */
import type * as Sdk from "@google/genai";
import { describe, expectTypeOf, it } from "vitest";
import type { GeminiChunk } from "../../../src/providers/google/decode.js";
import type { GeminiRequestBody } from "../../../src/providers/google/request.js";
import type * as Wire from "../../../src/providers/google/wire.js";

type Generation = NonNullable<GeminiRequestBody["generationConfig"]>;
type Calling = NonNullable<NonNullable<GeminiRequestBody["toolConfig"]>["functionCallingConfig"]>;

describe("Gemini wire types agree with @google/genai", () => {
	it("what we send fits the SDK's types (its enums as their wire strings)", () => {
		expectTypeOf<Wire.Content>().toExtend<Sdk.Content>();
		expectTypeOf<Wire.Tool>().toExtend<Sdk.Tool>();
		expectTypeOf<Omit<Generation, "thinkingConfig">>().toExtend<Sdk.GenerationConfig>();
		expectTypeOf<Omit<Calling, "mode">>().toExtend<Sdk.FunctionCallingConfig>();
		expectTypeOf<Omit<Wire.ThinkingConfig, "thinkingLevel">>().toExtend<Sdk.ThinkingConfig>();
		expectTypeOf<Wire.FunctionCallingConfigMode>().toEqualTypeOf<`${Sdk.FunctionCallingConfigMode}`>();
		expectTypeOf<Wire.ThinkingLevel>().toEqualTypeOf<`${Sdk.ThinkingLevel}`>();
	});

	it("every chunk the SDK describes is one the decoder accepts", () => {
		type SdkChunk = Pick<
			Sdk.GenerateContentResponse,
			"candidates" | "promptFeedback" | "usageMetadata" | "responseId" | "modelVersion"
		>;
		expectTypeOf<SdkChunk>().toExtend<GeminiChunk>();
		expectTypeOf<Sdk.PartialArg>().toExtend<Wire.PartialArg>();
	});
});
