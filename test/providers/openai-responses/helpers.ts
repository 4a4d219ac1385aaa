/** Shared helpers of the OpenAI Responses provider tests. */
import type { AssistantMessageEvent } from "../../../src/core/events.js";
import type { AssistantMessage } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import {
	type OpenAIResponsesOptions,
	streamOpenAIResponses,
} from "../../../src/providers/openai-responses/index.js";

/** A Responses model pointed at `baseUrl` (a loopback replay server). */
export function responsesModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return {
		id: "gpt-5",
		api: "openai-responses",
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

/** Everything one streamed call produced. */
export interface Collected {
	events: AssistantMessageEvent[];
	message: AssistantMessage;
	/** Concatenated `text_delta`s. */
	streamedText: string;
}

/** Run one call to the end, collecting events; fails the test if iteration or `result()` throws. */
export async function collect(
	model: Model,
	context: Context,
	options: OpenAIResponsesOptions = {},
): Promise<Collected> {
	const stream = streamOpenAIResponses(model, context, {
		apiKey: "test-key",
		retryBaseDelayMs: 1,
		...options,
	});
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	const message = await stream.result();
	const streamedText = events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
	return { events, message, streamedText };
}

/** SPEC E2 shape: one `start` first, exactly one terminal event last. */
export function assertEventShape(events: AssistantMessageEvent[]): string | undefined {
	if (events[0]?.type !== "start") return `first event is ${events[0]?.type}`;
	const terminals = events.filter((event) => event.type === "done" || event.type === "error");
	if (terminals.length !== 1) return `${terminals.length} terminal events`;
	const last = events[events.length - 1];
	if (last?.type !== "done" && last?.type !== "error") return `last event is ${last?.type}`;
	return undefined;
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
