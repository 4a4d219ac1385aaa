/**
 * The hand-written Responses wire types (src/providers/openai-responses/wire.ts) against the `openai`
 * package's own. These are type assertions: `tsc --noEmit` (part of `npm run check`) fails when they stop
 * holding, e.g. after an SDK upgrade adds an output item type or renames a field we send.
 */
import type * as Sdk from "openai/resources/responses/responses";
import { describe, expectTypeOf, it } from "vitest";
import type { buildResponsesRequest } from "../../../src/providers/openai-responses/request.js";
import type * as Wire from "../../../src/providers/openai-responses/wire.js";

/** Replayed output text always goes back with `annotations: []` (request.ts); their shape is the API's. */
type OpaqueAnnotations<T> = T extends { type: "output_text" }
	? Omit<T, "annotations"> & { annotations: never[] }
	: T extends object
		? { [K in keyof T]: OpaqueAnnotations<T[K]> }
		: T;

type Handled = Wire.ResponseStreamEvent["type"];

describe("Responses wire types agree with openai", () => {
	it("every body we build is a valid SDK request", () => {
		expectTypeOf<
			OpaqueAnnotations<ReturnType<typeof buildResponsesRequest>>
		>().toExtend<Sdk.ResponseCreateParamsStreaming>();
	});

	it("every SDK event of a type the decoder handles is one it accepts, under the SDK's own type names", () => {
		expectTypeOf<Handled>().toExtend<Sdk.ResponseStreamEvent["type"]>();
		expectTypeOf<Extract<Sdk.ResponseStreamEvent, { type: Handled }>>().toExtend<Wire.ResponseStreamEvent>();
	});

	it("every output item type the SDK knows is one the decoder can keep", () => {
		expectTypeOf<Sdk.ResponseOutputItem>().toExtend<Wire.ResponseOutputItem>();
		expectTypeOf<Sdk.ResponseUsage>().toExtend<Wire.ResponseUsage>();
	});
});
