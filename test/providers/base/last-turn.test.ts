/**
 * SPEC Q7 below the Agent: no built-in provider turns a conversation into a prefill. A last user message
 * with nothing in it is refused by every request builder, so `agentLoop` or a direct `stream()` call ends with
 * a clear `invalid_request` reply and nothing is sent; earlier blank user messages are still left out.
 */
import { describe, expect, it } from "vitest";
import type { UserMessage } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import { agentLoop } from "../../../src/index.js";
import { buildAnthropicRequest } from "../../../src/providers/anthropic/index.js";
import { isProviderError } from "../../../src/providers/base/index.js";
import { buildGeminiRequest } from "../../../src/providers/google/request.js";
import { buildOpenAICompletionsRequest } from "../../../src/providers/openai-completions/request.js";
import { buildResponsesRequest } from "../../../src/providers/openai-responses/request.js";
import { assistant } from "../../support/run.js";
import { testModel as anthropicModel } from "../anthropic/helpers.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { testModel } from "../support/models.js";

closeServersAfterEach();

const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content, timestamp: 0 });
const HELLO_REPLY = assistant([{ type: "text", text: "Hello!" }]);
const afterHello = (last: UserMessage): Context => ({ messages: [user("hi"), HELLO_REPLY, last] });

const BUILDERS: [string, (context: Context) => unknown][] = [
	["anthropic", (c) => buildAnthropicRequest(testModel("anthropic-messages", "http://x"), c)],
	["gemini", (c) => buildGeminiRequest(testModel("google-generative-ai", "http://x"), c)],
	["chat completions", (c) => buildOpenAICompletionsRequest(testModel("openai-completions", "http://x"), c)],
	["responses", (c) => buildResponsesRequest(testModel("openai-responses", "http://x"), c)],
];

function refusal(build: () => unknown): unknown {
	try {
		build();
	} catch (error) {
		return error;
	}
	return "built a request";
}

describe("SPEC Q7: a blank last user message is refused by every request builder", () => {
	for (const [name, build] of BUILDERS) {
		it.each([
			["whitespace", user("   ")],
			["empty text", user("")],
			["no parts", user([])],
			["blank parts", user([{ type: "text", text: "\n" }])],
		])(`${name}: %s`, (_, last) => {
			const error = refusal(() => build(afterHello(last)));
			expect(isProviderError(error) && error.kind).toBe("invalid_request");
			expect((error as Error).message).toContain("the last message is a user message with no content");
		});

		it(`${name}: an image, or a blank user message earlier on, is sent`, () => {
			const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
			expect(() => build(afterHello(user([{ type: "text", text: " " }, image])))).not.toThrow();
			expect(() => build({ messages: [user(" "), user("hi")] })).not.toThrow();
		});
	}

	it("agentLoop on Anthropic: the run ends with an invalid_request reply and nothing is sent", async () => {
		const server = await serve();
		const model: Model = anthropicModel(server.baseUrl);
		const stream = agentLoop(
			[user("  ")],
			{ messages: [user("hi"), HELLO_REPLY], tools: [] },
			{ model, streamOptions: { apiKey: "test-key" } },
		);
		const added = await stream.result();
		expect(added.at(-1)).toMatchObject({
			role: "assistant",
			stopReason: "error",
			errorKind: "invalid_request",
		});
		expect(server.requests).toEqual([]);
	});
});
