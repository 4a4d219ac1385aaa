/**
 * The hand-written Anthropic wire types (src/providers/anthropic/wire.ts) against the vendor SDK's own. These
 * are type assertions: `tsc --noEmit` (part of `npm run check`) fails when they stop holding, e.g. after an
 * SDK upgrade renames a stop reason or a field we send.
 */
import type * as Sdk from "@anthropic-ai/sdk/resources/messages/messages";
import { describe, expectTypeOf, it } from "vitest";
import type { AnthropicRequestBody } from "../../../src/providers/anthropic/request.js";
import type * as Wire from "../../../src/providers/anthropic/wire.js";

/**
 * Citations are replayed exactly as the API sent them (opaque records to us), so their shape is the API's;
 * everything else we send must match the SDK field for field.
 */
type NoCitations<T> = T extends { type: "text" }
	? Omit<T, "citations">
	: T extends object
		? { [K in keyof T]: NoCitations<T[K]> }
		: T;

describe("Anthropic wire types agree with @anthropic-ai/sdk", () => {
	it("every body we build is a valid SDK request (temperature aside: only older models take it)", () => {
		expectTypeOf<
			NoCitations<Omit<AnthropicRequestBody, "temperature">>
		>().toExtend<Sdk.MessageCreateParamsStreaming>();
		expectTypeOf<NoCitations<Wire.ContentBlockParam>>().toExtend<Sdk.ContentBlockParam>();
	});

	it("every stream event the SDK describes is one the decoder accepts", () => {
		expectTypeOf<Sdk.RawMessageStreamEvent>().toExtend<Wire.RawMessageStreamEvent>();
		expectTypeOf<Sdk.StopReason>().toEqualTypeOf<Wire.StopReason>();
	});
});
