/** Shared helpers of the Gemini provider tests. */
import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import { type GoogleOptions, streamGoogle } from "../../../src/providers/google/index.js";

/** A Gemini model pointed at `baseUrl` (a loopback replay server). */
export function geminiModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return {
		id: "gemini-2.5-flash",
		api: "google-generative-ai",
		provider: "google",
		baseUrl,
		reasoning: true,
		input: ["text", "image"],
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
		...overrides,
	};
}

/** Everything one streamed call produced. */
export interface Collected {
	events: AssistantMessageEvent[];
	message: AssistantMessage;
	streamedText: string;
}

/** Run one call to the end, collecting events. */
export async function collect(
	model: Model,
	context: Context,
	options: GoogleOptions = {},
): Promise<Collected> {
	const stream = streamGoogle(model, context, { apiKey: "test-key", retryBaseDelayMs: 1, ...options });
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	const message = await stream.result();
	const streamedText = events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
	return { events, message, streamedText };
}

/** Text of all text blocks, in content order. */
export function textOf(message: AssistantMessage): string {
	return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** Thinking of all thinking blocks, in content order. */
export function thinkingOf(message: AssistantMessage): string {
	return message.content.map((block) => (block.type === "thinking" ? block.thinking : "")).join("");
}

/** A one-user-message context. */
export const hello: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };
