import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import {
	type OpenAICompletionsOptions,
	streamOpenAICompletions,
} from "../../../src/providers/openai-completions/index.js";

/** A test model pointed at a replay server (`baseUrl` must include the API prefix, like `/v1`). */
export function testModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return {
		id: "gpt-5",
		api: "openai-completions",
		provider: "openai",
		baseUrl,
		reasoning: true,
		input: ["text", "image"],
		contextWindow: 400_000,
		maxTokens: 128_000,
		cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
		...overrides,
	};
}

/** A one-message context. */
export const HELLO: Context = {
	systemPrompt: "You are terse.",
	messages: [{ role: "user", content: "Hello", timestamp: 1 }],
};

/** Run one call and collect every event and the final message. */
export async function collect(
	model: Model,
	options: OpenAICompletionsOptions = {},
	context: Context = HELLO,
): Promise<{ events: AssistantMessageEvent[]; message: AssistantMessage }> {
	const stream = streamOpenAICompletions(model, context, { apiKey: "test-key", ...options });
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return { events, message: await stream.result() };
}

/** The visible text of a message (all text blocks, in order). */
export function textOf(message: AssistantMessage): string {
	return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}

/** The reasoning text of a message (all thinking blocks, in order). */
export function thinkingOf(message: AssistantMessage): string {
	return message.content.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join("");
}

/** Tool calls as `{id, name, arguments}`. */
export function callsOf(message: AssistantMessage): { id: string; name: string; arguments: unknown }[] {
	return message.content.flatMap((block) =>
		block.type === "toolCall" ? [{ id: block.id, name: block.name, arguments: block.arguments }] : [],
	);
}
