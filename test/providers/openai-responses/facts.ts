/**
 * What a recorded Responses stream says about itself, read independently of the decoder under test: the
 * expected text (concatenated deltas), thinking, tool calls, usage, stop reason and provider-side items.
 */
import type { TokenCounts, ToolCallFact } from "../support/content.js";
import { type RecordedEvent, recordedEvents } from "../support/fixtures.js";

/** The fixture folders of Responses recordings: OpenAI's and the servers speaking its dialect. */
export const RESPONSES_FOLDERS = [
	"openai-responses",
	"openai-responses-compatible-openrouter",
	"openai-responses-compatible-lmstudio",
	"openai-responses-compatible-xai",
	"openai-responses-compatible-deepseek",
] as const;

/** A recorded event with its parsed JSON payload (`[DONE]` and non-JSON payloads dropped). */
export interface ParsedEvent {
	type: string;
	[key: string]: unknown;
}

/** Parse the JSON payloads of one response body. */
export function parsedEvents(body: Uint8Array): ParsedEvent[] {
	return recordedEvents(body)
		.filter((event: RecordedEvent) => event.data !== "[DONE]")
		.map((event) => JSON.parse(event.data) as ParsedEvent);
}

/** Expected facts of one recorded response. */
export interface ResponseFacts {
	responseId: string | undefined;
	text: string;
	/** Delta text per text part, in order of first appearance. */
	textParts: string[];
	/** `output_text.done` texts joined: the complete text when deltas were trimmed (openai-phase). */
	doneText: string;
	thinking: string;
	toolCalls: ToolCallFact[];
	usage: TokenCounts;
	stopReason: "stop" | "toolUse" | "length" | "error";
	providerItems: unknown[];
	terminal: string | undefined;
}

/** Read the facts of one response body. */
export function responseFacts(body: Uint8Array): ResponseFacts {
	const events = parsedEvents(body);
	let text = "";
	const textParts = new Map<string, string>();
	let doneText = "";
	let responseId: string | undefined;
	const thinkingParts = new Map<number, string[]>();
	const lastPart = new Map<number, string>();
	const done = new Map<number, Record<string, unknown>>();
	let terminal: ParsedEvent | undefined;
	for (const event of events) {
		const response = event.response as Record<string, unknown> | undefined;
		if (responseId === undefined && typeof response?.id === "string") responseId = response.id;
		const index = event.output_index as number;
		if (event.type === "response.output_text.delta") {
			text += event.delta as string;
			const key = `${index}:${event.content_index}`;
			textParts.set(key, (textParts.get(key) ?? "") + (event.delta as string));
		}
		if (["response.completed", "response.incomplete", "response.failed"].includes(event.type))
			if (typeof response?.id === "string") responseId = response.id;
		if (event.type === "response.output_text.done") doneText += event.text as string;
		if (
			event.type === "response.reasoning_summary_text.delta" ||
			event.type === "response.reasoning_text.delta"
		) {
			const part = `${event.type}:${event.summary_index ?? event.content_index}`;
			const parts = thinkingParts.get(index) ?? [];
			if (lastPart.get(index) !== part) parts.push("");
			parts[parts.length - 1] += event.delta as string;
			lastPart.set(index, part);
			thinkingParts.set(index, parts);
		}
		if (event.type === "response.output_item.done") done.set(index, event.item as Record<string, unknown>);
		if (["response.completed", "response.incomplete", "response.failed"].includes(event.type))
			terminal = event;
	}
	const ordered = [...done.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
	const toolCalls = ordered
		.filter((item) => item.type === "function_call")
		.map((item) => ({
			id: item.call_id as string,
			name: item.name as string,
			arguments: JSON.parse(item.arguments as string),
		}));
	const providerItems = ordered.filter((item) => item.type !== "function_call" && item.type !== "message");
	const thinking = [...thinkingParts.entries()]
		.sort((a, b) => a[0] - b[0])
		.map(([, parts]) => parts.join("\n\n"))
		.join("");
	const raw = ((terminal?.response as Record<string, unknown> | undefined)?.usage ?? {}) as Record<
		string,
		never
	>;
	const inputDetails = (raw.input_tokens_details ?? {}) as Record<string, number>;
	const outputDetails = (raw.output_tokens_details ?? {}) as Record<string, number>;
	const cacheRead = inputDetails.cached_tokens ?? 0;
	const cacheWrite = inputDetails.cache_write_tokens ?? 0;
	const usage: ResponseFacts["usage"] = {
		input: (raw.input_tokens ?? 0) - cacheRead - cacheWrite,
		output: raw.output_tokens ?? 0,
		cacheRead,
		cacheWrite,
		totalTokens: raw.total_tokens ?? 0,
	};
	if (outputDetails.reasoning_tokens !== undefined) usage.reasoning = outputDetails.reasoning_tokens;
	const stopReason =
		terminal?.type === "response.completed"
			? toolCalls.length > 0
				? "toolUse"
				: "stop"
			: terminal
				? "error"
				: "error";
	return {
		responseId,
		text,
		textParts: [...textParts.values()],
		doneText,
		thinking,
		toolCalls,
		usage,
		stopReason,
		providerItems,
		terminal: terminal?.type,
	};
}
