import { describe, expect, it } from "vitest";
import { AssistantMessageBuilder } from "../../../src/core/assistant-builder.js";
import { EventStream } from "../../../src/core/event-stream.js";
import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage } from "../../../src/core/messages.js";
import { AnthropicStreamDecoder } from "../../../src/providers/anthropic/index.js";
import { testModel } from "./helpers.js";

// SYNTHETIC event sequences (no recording has them): redacted thinking, tool_use whose input arrives only in
// content_block_start, and a very large streamed argument (W3 through a real decoder).
function decode(events: object[]): { message: AssistantMessage; events: AssistantMessageEvent[] } {
	const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
	const builder = new AssistantMessageBuilder(
		{ api: "anthropic-messages", provider: "anthropic", model: "m", timestamp: 0 },
		stream,
	);
	builder.start();
	const decoder = new AnthropicStreamDecoder(builder, testModel("http://127.0.0.1:1"));
	for (const event of events) if (decoder.handle({ event: undefined, data: JSON.stringify(event) })) break;
	decoder.finish();
	const seen: AssistantMessageEvent[] = [];
	void (async () => {
		for await (const event of stream) seen.push(event);
	})();
	return { message: builder.message, events: seen };
}

const start = {
	type: "message_start",
	message: {
		id: "msg_x",
		content: [],
		stop_reason: null,
		usage: {
			input_tokens: 5,
			output_tokens: 1,
			cache_read_input_tokens: 100,
			cache_creation_input_tokens: 20,
		},
	},
};
const stop = (reason: string) => [
	{ type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 9 } },
	{ type: "message_stop" },
];

describe("AnthropicStreamDecoder (synthetic shapes)", () => {
	it("redacted thinking, a tool_use with its whole input in content_block_start, usage with cache counters", () => {
		const { message } = decode([
			start,
			{
				type: "content_block_start",
				index: 0,
				content_block: { type: "redacted_thinking", data: "EncRypted==" },
			},
			{ type: "content_block_stop", index: 0 },
			{
				type: "content_block_start",
				index: 1,
				content_block: { type: "tool_use", id: "toolu_a", name: "ls", input: { path: "/" } },
			},
			{ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
			{ type: "content_block_stop", index: 1 },
			...stop("tool_use"),
		]);
		expect(message.content).toEqual([
			{ type: "redactedThinking", data: "EncRypted==" },
			{ type: "toolCall", id: "toolu_a", name: "ls", arguments: { path: "/" } },
		]);
		expect(message).toMatchObject({ stopReason: "toolUse", responseId: "msg_x" });
		// SPEC M5: input excludes cache reads/writes; cost from the per-million prices.
		expect(message.usage).toMatchObject({
			input: 5,
			output: 9,
			cacheRead: 100,
			cacheWrite: 20,
			totalTokens: 134,
		});
		expect(message.usage.cost.total).toBeCloseTo((5 * 3 + 9 * 15 + 100 * 0.3 + 20 * 3.75) / 1_000_000);
	});

	it("refusal with stop_details explanation → error turn with the explanation (SPEC S5)", () => {
		const { message } = decode([
			start,
			{
				type: "message_delta",
				delta: { stop_reason: "refusal", stop_details: { type: "refusal", explanation: "Policy." } },
				usage: { output_tokens: 1 },
			},
			{ type: "message_stop" },
		]);
		expect(message).toMatchObject({
			stopReason: "error",
			stopDetails: { type: "refusal", raw: "refusal", explanation: "Policy." },
		});
		expect(message.errorMessage).toContain("Policy.");
	});

	it("a reply that filled the context window → length, with its cause (SPEC M4)", () => {
		// Why the ceiling is sent unclamped (core/max-tokens.ts): current models end such a reply, not refuse it.
		const { message } = decode([start, ...stop("model_context_window_exceeded")]);
		expect(message).toMatchObject({
			stopReason: "length",
			stopDetails: { type: "model_context_window_exceeded" },
		});
		expect(message.errorMessage).toBeUndefined();
	});

	it("1 MB of streamed tool arguments decodes in linear time (W3 through the decoder)", () => {
		const chunk = `"${"x".repeat(98)}",`;
		const deltas = Array.from({ length: 10_000 }, () => ({
			type: "content_block_delta",
			index: 0,
			delta: { type: "input_json_delta", partial_json: chunk },
		}));
		const began = performance.now();
		const { message } = decode([
			start,
			{
				type: "content_block_start",
				index: 0,
				content_block: { type: "tool_use", id: "toolu_big", name: "write", input: {} },
			},
			{
				type: "content_block_delta",
				index: 0,
				delta: { type: "input_json_delta", partial_json: '{"lines":[' },
			},
			...deltas,
			{ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"end"]}' } },
			{ type: "content_block_stop", index: 0 },
			...stop("tool_use"),
		]);
		const elapsed = performance.now() - began;
		const call = message.content[0];
		expect(call?.type === "toolCall" && (call.arguments.lines as string[]).length).toBe(10_001);
		expect(elapsed).toBeLessThan(3000);
	});
});
