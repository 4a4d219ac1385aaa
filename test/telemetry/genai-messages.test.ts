import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage } from "../../src/index.js";
import { emptyUsage } from "../../src/index.js";
import { finishReason, toInputMessages, toOutputMessages } from "../../src/telemetry/genai-messages.js";

const reply = (extra: Partial<AssistantMessage>): AssistantMessage => ({
	role: "assistant",
	content: [],
	api: "x",
	provider: "x",
	model: "m",
	usage: emptyUsage(),
	stopReason: "stop",
	timestamp: 0,
	...extra,
});

describe("GenAI message shapes for recorded content — SPEC X3", () => {
	it("maps roles and parts; images are summarized, opaque blocks and custom roles left out", () => {
		const messages = [
			{ role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 0 },
			{ role: "notice", text: "ui only", timestamp: 0 },
			reply({
				content: [
					{ type: "thinking", thinking: "hmm" },
					{ type: "redactedThinking", data: "opaque" },
					{ type: "text", text: "calling" },
					{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } },
					{ type: "providerBlock", api: "x", data: { kind: "server_tool" } },
				],
				stopReason: "toolUse",
			}),
			{
				role: "toolResult",
				toolCallId: "c1",
				toolName: "read",
				content: [{ type: "text", text: "A" }],
				isError: false,
				timestamp: 0,
			},
		] as AgentMessage[];
		expect(toInputMessages(messages)).toEqual([
			{ role: "user", parts: [{ type: "image", mime_type: "image/png", base64_length: 4 }] },
			{
				role: "assistant",
				parts: [
					{ type: "reasoning", content: "hmm" },
					{ type: "text", content: "calling" },
					{ type: "tool_call", id: "c1", name: "read", arguments: { path: "a" } },
				],
			},
			{ role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "A" }] },
		]);
	});

	it("finish reasons: tool_call, length, content_filter for refusals (SPEC S5), error for errors and aborts", () => {
		expect(finishReason("toolUse")).toBe("tool_call");
		expect(finishReason("length")).toBe("length");
		expect(finishReason("error", "refusal")).toBe("content_filter");
		expect(finishReason("error", "content_filter")).toBe("content_filter");
		expect(finishReason("aborted")).toBe("error");
		expect(toOutputMessages(reply({ content: [{ type: "text", text: "hi" }] }))).toEqual([
			{ role: "assistant", parts: [{ type: "text", content: "hi" }], finish_reason: "stop" },
		]);
	});
});
