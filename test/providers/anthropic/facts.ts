/**
 * The facts of a recorded Anthropic Messages response, read from the recording itself (not hand-written):
 * concatenated text deltas, tool calls with parsed arguments, final usage, raw stop reason. Conformance tests
 * compare the decoder's final message against these.
 */
import type { ToolCallFact } from "../support/content.js";
import { type RecordedEvent, recordedEvents } from "../support/fixtures.js";

/** What a correct decoder must reproduce from one recorded response. */
export interface RecordingFacts {
	/** Text of each text block, in order (deltas concatenated). */
	texts: string[];
	/** Thinking text of each thinking block, with its signature. */
	thinking: { thinking: string; signature: string }[];
	/** Client tool calls with parsed arguments. */
	toolCalls: ToolCallFact[];
	/** Each tool call's `caller` when it is not `{type: "direct"}` (programmatic tool calling), else undefined. */
	toolCallers: unknown[];
	/** `type` of each server-side block, in order. */
	providerBlockTypes: string[];
	/** Streamed payload of each server-side block: `input` from input_json_delta, `content` from compaction_delta. */
	providerBlockPayloads: { input?: unknown; content?: string }[];
	/** Citations of each text block (start block plus citations_delta), in order. */
	citations: unknown[][];
	/** Final usage (message_start, then every non-null field of message_delta). */
	usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
	/** `output_tokens_details.thinking_tokens` of the final usage, when reported. */
	reasoningTokens?: number;
	/** The raw stop reason (message_delta, else message_start). */
	stopReason: string | null;
	/** An `error` event's payload, when the recording has one. */
	error?: unknown;
	/** True when the recording reached `message_stop`. */
	complete: boolean;
}

type Json = Record<string, unknown>;
const CLIENT_KINDS = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

/** Extract the facts of one response body. */
export function anthropicFacts(body: Uint8Array): RecordingFacts {
	return factsOf(recordedEvents(body));
}

function factsOf(events: RecordedEvent[]): RecordingFacts {
	const facts: RecordingFacts = {
		texts: [],
		thinking: [],
		toolCalls: [],
		toolCallers: [],
		providerBlockTypes: [],
		providerBlockPayloads: [],
		citations: [],
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		stopReason: null,
		complete: false,
	};
	const blocks = new Map<
		number,
		{ block: Json; text: string; json: string; signature: string; citations: unknown[]; content?: string }
	>();
	const usage: Json = {};
	// The code-execution container, kept as a last provider block of a completed reply (hardening item 11).
	let container: unknown;
	const take = (u: Json | undefined) => {
		for (const [key, value] of Object.entries(u ?? {})) if (typeof value === "number") usage[key] = value;
		const thinking = (u?.output_tokens_details as Json | null | undefined)?.thinking_tokens;
		if (typeof thinking === "number") facts.reasoningTokens = thinking;
	};
	const close = (
		block: Json,
		text: string,
		json: string,
		signature: string,
		citations: unknown[] = [],
		content?: string,
	) => {
		if (block.type === "text") {
			facts.texts.push(text);
			facts.citations.push(citations);
		} else if (block.type === "thinking") facts.thinking.push({ thinking: text, signature });
		else if (block.type === "tool_use") {
			facts.toolCalls.push({
				id: String(block.id),
				name: String(block.name),
				arguments: json ? JSON.parse(json) : block.input,
			});
			const caller = block.caller as { type?: unknown } | undefined;
			facts.toolCallers.push(caller && caller.type !== "direct" ? caller : undefined);
		} else if (!CLIENT_KINDS.has(String(block.type))) {
			facts.providerBlockTypes.push(String(block.type));
			const payload: { input?: unknown; content?: string } = {};
			if (json) payload.input = JSON.parse(json);
			if (content !== undefined) payload.content = content;
			facts.providerBlockPayloads.push(payload);
		}
	};
	for (const { data } of events) {
		const event = JSON.parse(data) as Json;
		const type = event.type;
		if (type === "message_start") {
			const message = event.message as Json;
			take(message.usage as Json);
			if (message.stop_reason) facts.stopReason = String(message.stop_reason);
			if (message.container) container = message.container;
			for (const block of (message.content as Json[]) ?? [])
				close(block, String(block.text ?? block.thinking ?? ""), "", String(block.signature ?? ""));
		} else if (type === "content_block_start") {
			const block = event.content_block as Json;
			blocks.set(Number(event.index), {
				block,
				text: String(block.text ?? block.thinking ?? ""),
				json: "",
				signature: String(block.signature ?? ""),
				citations: Array.isArray(block.citations) ? [...block.citations] : [],
			});
		} else if (type === "content_block_delta") {
			const open = blocks.get(Number(event.index));
			const delta = event.delta as Json;
			if (!open) continue;
			if (delta.type === "text_delta") open.text += String(delta.text);
			else if (delta.type === "thinking_delta") open.text += String(delta.thinking);
			else if (delta.type === "signature_delta") open.signature += String(delta.signature);
			else if (delta.type === "input_json_delta") open.json += String(delta.partial_json);
			else if (delta.type === "citations_delta") open.citations.push(delta.citation);
			else if (delta.type === "compaction_delta") open.content = (open.content ?? "") + String(delta.content);
		} else if (type === "content_block_stop") {
			const open = blocks.get(Number(event.index));
			if (open) close(open.block, open.text, open.json, open.signature, open.citations, open.content);
			blocks.delete(Number(event.index));
		} else if (type === "message_delta") {
			const delta = event.delta as Json;
			if (delta.stop_reason) facts.stopReason = String(delta.stop_reason);
			if (delta.container) container = delta.container;
			take(event.usage as Json);
		} else if (type === "message_stop") facts.complete = true;
		else if (type === "error") facts.error = event.error;
	}
	if (container && facts.complete) {
		facts.providerBlockTypes.push("container");
		facts.providerBlockPayloads.push({});
	}
	facts.usage = {
		input: Number(usage.input_tokens ?? 0),
		output: Number(usage.output_tokens ?? 0),
		cacheRead: Number(usage.cache_read_input_tokens ?? 0),
		cacheWrite: Number(usage.cache_creation_input_tokens ?? 0),
	};
	return facts;
}
