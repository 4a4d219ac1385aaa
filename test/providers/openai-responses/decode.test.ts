/**
 * The Responses decoder on its own (no HTTP): W3 through the decoder — 1 MB of streamed tool arguments in
 * linear time (SPEC E4).
 */
import { describe, expect, it } from "vitest";
import { AssistantMessageBuilder } from "../../../src/core/assistant-builder.js";
import { ResponsesStreamDecoder } from "../../../src/providers/openai-responses/index.js";
import type { ResponseStreamEvent } from "../../../src/providers/openai-responses/wire.js";
import { responsesModel } from "./helpers.js";

function decode(events: Record<string, unknown>[]) {
	const builder = new AssistantMessageBuilder({
		api: "openai-responses",
		provider: "openai",
		model: "gpt-5",
		timestamp: 0,
	});
	const decoder = new ResponsesStreamDecoder(builder, responsesModel("http://x"));
	for (const event of events) decoder.handle(event as unknown as ResponseStreamEvent);
	return builder.message;
}

describe("ResponsesStreamDecoder", () => {
	it("1 MB of streamed tool arguments decodes in linear time (W3 through the decoder)", () => {
		const chunk = `"${"x".repeat(98)}",`;
		const deltas = Array.from({ length: 10_000 }, () => ({
			type: "response.function_call_arguments.delta",
			output_index: 0,
			delta: chunk,
		}));
		const began = performance.now();
		const message = decode([
			{ type: "response.created", response: { id: "resp_big" } },
			{
				type: "response.output_item.added",
				output_index: 0,
				item: { type: "function_call", id: "fc_big", call_id: "call_big", name: "write", arguments: "" },
			},
			{ type: "response.function_call_arguments.delta", output_index: 0, delta: '{"lines":[' },
			...deltas,
			{ type: "response.function_call_arguments.delta", output_index: 0, delta: '"end"]}' },
			{
				type: "response.output_item.done",
				output_index: 0,
				item: { type: "function_call", id: "fc_big", call_id: "call_big", name: "write" },
			},
			{ type: "response.completed", response: { id: "resp_big", status: "completed", output: [] } },
		]);
		const elapsed = performance.now() - began;
		const call = message.content[0];
		expect(message.stopReason).toBe("toolUse");
		expect(call?.type === "toolCall" && (call.arguments.lines as string[]).length).toBe(10_001);
		expect(elapsed).toBeLessThan(3000);
	});
});
