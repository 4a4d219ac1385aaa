/**
 * Hardening item 11: Anthropic state the next request needs is kept. The code-execution `container` from
 * `message_delta` is stored on the reply (an Anthropic provider block, dropped if the conversation moves to
 * another API) and flows into the next request's `container`; the matched `stop_sequence` value is kept in
 * `stopDetails.stopSequence`.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/core/messages.js";
import { buildAnthropicRequest } from "../../src/providers/anthropic/index.js";
import { firstBodyMatching, frameEvents } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { testModel } from "../providers/support/models.js";
import { callApi } from "./support.js";

closeServersAfterEach();

const CONTAINER = "container_011CU6pTr2hLT47seQ5Xs4yj";

describe("Anthropic container and stop_sequence are kept (hardening item 11)", () => {
	it("the recorded code-execution container is kept and sent with the next request", async () => {
		const body = firstBodyMatching(["anthropic-messages"], "anthropic-code-execution-20250825");
		const server = await serve({ type: "sse", body, split: { seed: 11 } });
		const { message } = await callApi("anthropic-messages", server.baseUrl);
		expect(message.stopReason).not.toBe("error");
		const blocks = message.content.flatMap((block) => (block.type === "providerBlock" ? [block.data] : []));
		expect(blocks).toContainEqual({
			type: "container",
			id: CONTAINER,
			expires_at: "2025-10-14T10:02:00.044495Z",
		});

		const model = testModel("anthropic-messages", server.baseUrl);
		const messages: Message[] = [
			{ role: "user", content: "run it", timestamp: 1 },
			message,
			{ role: "user", content: "and again, in the same container", timestamp: 3 },
		];
		const next = buildAnthropicRequest(model, { messages });
		expect(next.container).toBe(CONTAINER);
		// The container is request state, not a content block: it is not echoed into the assistant turn.
		expect(JSON.stringify(next.messages)).not.toContain('"type":"container"');
	});

	it("a conversation without a container sends none", () => {
		const model = testModel("anthropic-messages", "http://127.0.0.1:9");
		const next = buildAnthropicRequest(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
		expect(next).not.toHaveProperty("container");
	});

	it("the matched stop sequence is kept in stopDetails", async () => {
		// SYNTHETIC: the documented message_delta shape for a custom stop sequence.
		const body = frameEvents("anthropic-messages", [
			{
				type: "message_start",
				message: {
					id: "m1",
					type: "message",
					role: "assistant",
					content: [],
					model: "m",
					stop_reason: null,
					usage: { input_tokens: 5, output_tokens: 1 },
				},
			},
			{ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
			{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "1, 2, 3" } },
			{ type: "content_block_stop", index: 0 },
			{
				type: "message_delta",
				delta: { stop_reason: "stop_sequence", stop_sequence: "4" },
				usage: { output_tokens: 6 },
			},
			{ type: "message_stop" },
		]);
		const server = await serve({ type: "sse", body, split: false });
		const { message } = await callApi("anthropic-messages", server.baseUrl);
		expect(message.stopReason).toBe("stop");
		expect(message.stopDetails).toEqual({ type: "stop_sequence", raw: "stop_sequence", stopSequence: "4" });
	});
});
