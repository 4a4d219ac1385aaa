import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import { type AnthropicOptions, streamAnthropic } from "../../../src/providers/anthropic/index.js";

/** A test model pointed at a replay server. */
export function testModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return {
		id: "claude-sonnet-4-5",
		api: "anthropic-messages",
		provider: "anthropic",
		baseUrl,
		reasoning: true,
		input: ["text", "image"],
		contextWindow: 200_000,
		maxTokens: 64_000,
		cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
		compat: { thinkingMode: "budget" },
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
	options: AnthropicOptions = {},
	context: Context = HELLO,
): Promise<{ events: AssistantMessageEvent[]; message: AssistantMessage }> {
	const stream = streamAnthropic(model, context, { apiKey: "test-key", ...options });
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return { events, message: await stream.result() };
}
