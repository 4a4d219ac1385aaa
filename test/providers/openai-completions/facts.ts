/**
 * What a recorded Chat Completions body says, read with the simplest possible logic (independent of the
 * decoder under test): the text deltas concatenated, the reasoning deltas concatenated, tool calls assembled
 * by `index` (or by `id` where a server sends none), the last usage object, the last `finish_reason`, and
 * the error object of an in-stream error event (llama.cpp's bare `data: {"error":{…}}`, Groq's `event: error`).
 */
import type { ToolCallFact } from "../support/content.js";
import { recordedEvents } from "../support/fixtures.js";

type Json = Record<string, unknown>;

/** The fixture folders of Chat Completions recordings: OpenAI's and the OpenAI-compatible dialects. */
export const CHAT_FOLDERS = [
	"openai-chat",
	"openai-compatible-anthropic",
	"openai-compatible-xai",
	"openai-compatible-deepseek",
	"openai-compatible-groq",
	"openai-compatible-mistral",
	"openai-compatible-alibaba",
	"openai-compatible-perplexity",
	"openai-compatible-openrouter",
	"openai-compatible-llamacpp",
] as const;

/** Facts of one recorded response. */
export interface ChatFacts {
	text: string;
	thinking: string;
	toolCalls: ToolCallFact[];
	usage: Json | undefined;
	finishReason: string | undefined;
	refusal: boolean;
	sawDone: boolean;
	/** The first in-stream error object; the stream ends there (nothing after it is decoded). */
	error: Json | undefined;
}

function str(value: unknown): string {
	return typeof value === "string" ? value : "";
}

/** Read the facts of one body. */
export function chatFacts(body: Uint8Array): ChatFacts {
	const facts: ChatFacts = {
		text: "",
		thinking: "",
		toolCalls: [],
		usage: undefined,
		finishReason: undefined,
		refusal: false,
		sawDone: false,
		error: undefined,
	};
	const calls = new Map<string, { id: string; name: string; args: string }>();
	for (const event of recordedEvents(body)) {
		if (event.data === "[DONE]") {
			facts.sawDone = true;
			continue;
		}
		const chunk = JSON.parse(event.data) as Json;
		if (event.event === "error" || (chunk.error !== undefined && chunk.error !== null)) {
			facts.error = (chunk.error ?? chunk) as Json;
			break;
		}
		for (const usage of [chunk.usage, (chunk.x_groq as Json | undefined)?.usage])
			if (usage && typeof usage === "object") facts.usage = usage as Json;
		for (const choice of (chunk.choices as Json[] | undefined) ?? []) {
			const delta = (choice.delta ?? {}) as Json;
			if (typeof delta.content === "string") facts.text += delta.content;
			for (const part of Array.isArray(delta.content) ? (delta.content as Json[]) : []) {
				if (part.type === "text") facts.text += str(part.text);
				if (part.type === "thinking")
					for (const inner of part.thinking as Json[]) facts.thinking += str(inner.text);
			}
			if (str(delta.refusal)) {
				facts.text += str(delta.refusal);
				facts.refusal = true;
			}
			const reasoning = str(delta.reasoning_content) || str(delta.reasoning);
			facts.thinking += reasoning;
			if (!reasoning)
				for (const detail of (delta.reasoning_details as Json[] | undefined) ?? [])
					facts.thinking += str(detail.text);
			for (const call of (delta.tool_calls as Json[] | undefined) ?? []) {
				const fn = (call.function ?? {}) as Json;
				const key = typeof call.index === "number" ? `#${call.index}` : str(call.id);
				const entry = calls.get(key) ?? { id: "", name: "", args: "" };
				entry.id ||= str(call.id);
				entry.name ||= str(fn.name);
				entry.args += str(fn.arguments);
				calls.set(key, entry);
			}
			if (typeof choice.finish_reason === "string") facts.finishReason = choice.finish_reason;
		}
	}
	facts.toolCalls = [...calls.values()].map((call) => ({
		id: call.id,
		name: call.name,
		arguments: JSON.parse(call.args || "{}"),
	}));
	return facts;
}
