import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import { buildOpenAICompletionsRequest } from "../../../src/providers/openai-completions/index.js";
import { testModel } from "./helpers.js";
import { assistant, model, tools } from "./request-fixtures.js";

describe("prompt bytes: a growing conversation keeps its request prefix byte for byte", () => {
	for (const [name, target] of [
		["openai", model],
		["mistral", testModel("https://api.mistral.ai/v1", { provider: "mistral", id: "mistral-small-latest" })],
		["openrouter", testModel("https://openrouter.ai/api/v1", { provider: "openrouter", id: "x/y" })],
	] as const) {
		it(`ten turns (${name})`, () => {
			const messages: Message[] = [];
			let previous: string | undefined;
			for (let turn = 0; turn < 10; turn++) {
				messages.push({ role: "user", content: `question ${turn}`, timestamp: turn * 10 });
				const body = buildOpenAICompletionsRequest(target, { systemPrompt: "Be brief.", messages, tools });
				// The whole body, not just the messages: everything before `messages` must not move either.
				const bytes = JSON.stringify(body);
				expect(bytes.endsWith("]}")).toBe(true);
				if (previous !== undefined) expect(bytes.startsWith(previous.slice(0, -2))).toBe(true);
				previous = bytes;
				messages.push(
					assistant(
						[
							{ type: "thinking", thinking: `thought ${turn}`, signature: `sig${turn}` },
							{ type: "text", text: `answer ${turn}` },
							{ type: "toolCall", id: `call_${turn}|item`, name: "read", arguments: { path: `${turn}.txt` } },
						],
						{ provider: target.provider, model: target.id },
					),
					{
						role: "toolResult",
						toolCallId: `call_${turn}|item`,
						toolName: "read",
						content: [
							{ type: "text", text: `file ${turn}` },
							...(turn % 3 === 0 ? [{ type: "image" as const, data: "AAAA", mimeType: "image/png" }] : []),
						],
						isError: false,
						timestamp: turn * 10 + 2,
					},
				);
			}
		});
	}
});
