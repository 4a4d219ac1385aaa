/**
 * Decoded replies go back on the wire correctly (SPEC C4, M3, M6, I5): a recorded reply is decoded through the
 * loopback server, then the next request is built from it.
 */
import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message } from "../../../src/core/messages.js";
import type { Model } from "../../../src/core/model.js";
import { buildOpenAICompletionsRequest } from "../../../src/providers/openai-completions/index.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { HELLO } from "../support/transcript.js";
import { collect, testModel } from "./helpers.js";

const server = serverForFile();

async function decode(file: string, model: Model): Promise<AssistantMessage> {
	const fixture = fixturesFor([file.split("/")[0] ?? ""]).find((candidate) => candidate.file === file);
	const [body] = fixture ? responseBodies(fixture) : [];
	if (!body) throw new Error(`no fixture ${file}`);
	server.enqueue({ type: "sse", body, split: { seed: 13 } });
	return (await collect(model, {}, HELLO)).message;
}

function nextRequest(model: Model, reply: AssistantMessage, extra: Message[] = []) {
	return buildOpenAICompletionsRequest(model, { messages: [...HELLO.messages, reply, ...extra] });
}

describe("replaying decoded replies", () => {
	it("OpenRouter: reasoning_details go back exactly as received, with signature and format", async () => {
		const model = testModel(`${server.baseUrl}/api/v1`, {
			provider: "openrouter",
			id: "anthropic/claude-sonnet-4.5",
		});
		const reply = await decode("openai-compatible-openrouter/test_openrouter_streaming_reasoning.sse", model);
		const [, assistant] = nextRequest(model, reply).messages;
		expect(assistant).toMatchObject({ role: "assistant", content: "2 + 2 = 4" });
		const details = (assistant as { reasoning_details?: Record<string, unknown>[] }).reasoning_details;
		expect(details).toHaveLength(1);
		expect(details?.[0]).toMatchObject({
			type: "reasoning.text",
			text: "This is a simple arithmetic question. 2+2 equals 4.",
			format: "anthropic-claude-v1",
			index: 0,
		});
		expect(String(details?.[0]?.signature)).toMatch(/^Et0BCkgI/);
	});

	it("DeepSeek tool loop: reasoning_content and the call id go back; the result pairs with the same id", async () => {
		const model = testModel(`${server.baseUrl}/v1`, { provider: "deepseek", id: "deepseek-reasoner" });
		const reply = await decode("openai-compatible-deepseek/deepseek-tool-call.chunks.txt", model);
		const result: Message = {
			role: "toolResult",
			toolCallId: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
			toolName: "weather",
			content: [{ type: "text", text: "Sunny" }],
			isError: false,
			timestamp: 9,
		};
		const [, assistant, tool] = nextRequest(model, reply, [result]).messages;
		expect(assistant).toMatchObject({
			role: "assistant",
			content: null,
			tool_calls: [
				{
					id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
					type: "function",
					function: { name: "weather", arguments: '{"location":"San Francisco"}' },
				},
			],
		});
		expect((assistant as { reasoning_content?: string }).reasoning_content).toMatch(/^The user/);
		expect(tool).toEqual({
			role: "tool",
			tool_call_id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
			content: "Sunny",
		});
	});

	it("moving to another provider: the reasoning becomes text, the provider block is dropped, ids rewritten (SPEC C4)", async () => {
		const openrouter = testModel(`${server.baseUrl}/api/v1`, {
			provider: "openrouter",
			id: "anthropic/claude-sonnet-4.5",
		});
		const reply = await decode(
			"openai-compatible-openrouter/test_openrouter_streaming_reasoning.sse",
			openrouter,
		);
		const mistral = testModel("https://api.mistral.ai/v1", {
			provider: "mistral",
			id: "mistral-small-latest",
		});
		const [, assistant] = nextRequest(mistral, reply).messages;
		expect(assistant).toEqual({
			role: "assistant",
			content: "This is a simple arithmetic question. 2+2 equals 4.\n\n2 + 2 = 4",
		});
	});

	it("SPEC M6/I5: a transcript saved as JSON and loaded back builds the same request bytes", async () => {
		const model = testModel(`${server.baseUrl}/v1`, { provider: "xai", id: "grok-3-mini" });
		const reply = await decode("openai-compatible-xai/xai-tool-call.chunks.txt", model);
		const reloaded = JSON.parse(JSON.stringify(reply)) as AssistantMessage;
		expect(JSON.stringify(nextRequest(model, reloaded))).toBe(JSON.stringify(nextRequest(model, reply)));
	});
});
