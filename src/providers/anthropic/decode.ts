/**
 * Anthropic Messages stream decoding: SSE events → builder calls (rule E2). Handles every block kind seen in
 * the recorded streams: text (citations kept), thinking + signature, redacted thinking, tool_use with
 * streamed `input_json_delta` (the first fragment may be empty), and every server-side block (server_tool_use,
 * *_tool_result, mcp_*, compaction, …) as an opaque `ProviderBlock` kept in order. Also content pre-filled in
 * `message_start`, usage from `message_start` updated by `message_delta`, `ping`, mid-stream `error`.
 */
import type { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import type { JsonValue } from "../../core/messages.js";
import type { Model } from "../../core/model.js";
import { type BodyClassifier, classifyStreamError, ProviderError } from "../base/errors.js";
import { parseEventJson } from "../base/run-stream.js";
import type { SseEvent } from "../base/sse.js";
import { finishWithStop, type MappedStop, mapStopReason, type StopReasonTable } from "../base/stop-reason.js";
import { buildUsage } from "../base/usage.js";
import { ANTHROPIC_API } from "./request.js";
import { readStringDelta } from "./string-delta.js";
import type { RawMessageStreamEvent, StopReason as WireStopReason } from "./wire.js";

/** rule M4 for Anthropic. `refusal` is an `error` turn (rule S5); `pause_turn` a `stop` the loop continues. */
export const ANTHROPIC_STOP_REASONS: StopReasonTable = {
	end_turn: { reason: "stop" },
	stop_sequence: { reason: "stop" },
	tool_use: { reason: "toolUse" },
	max_tokens: { reason: "length" },
	model_context_window_exceeded: { reason: "length", details: { type: "model_context_window_exceeded" } },
	pause_turn: { reason: "stop", details: { type: "pause_turn" } },
	refusal: {
		reason: "error",
		details: { type: "refusal" },
		errorMessage: "The model refused to respond.",
		errorKind: "invalid_request",
	},
} satisfies Partial<Record<WireStopReason, MappedStop>>;

/** Anthropic error bodies: `{type:"error", error:{type, message}}`. */
export const classifyAnthropicError: BodyClassifier = (body, text) => {
	const type = (body as { error?: { type?: unknown } } | undefined)?.error?.type;
	switch (type) {
		case "overloaded_error":
			return { kind: "overloaded" };
		case "rate_limit_error":
			return { kind: "rate_limit" };
		case "authentication_error":
		case "permission_error":
			return { kind: "auth" };
		case "billing_error":
			return { kind: "auth", retryable: false };
		case "timeout_error":
			return { kind: "timeout" };
		case "api_error":
			return { kind: "server" };
		case "invalid_request_error":
		case "request_too_large":
			return /prompt is too long|too many tokens|context/i.test(text)
				? { kind: "context_overflow" }
				: { kind: "invalid_request" };
		default:
			return undefined;
	}
};

type Json = { [key: string]: JsonValue };

type OpenBlock =
	| { kind: "text"; index: number }
	| { kind: "thinking"; index: number }
	| { kind: "tool"; index: number; input: JsonValue | undefined; streamed: boolean }
	| { kind: "provider"; data: Json; json: string; content: string | undefined }
	| { kind: "closed" };

interface WireUsage {
	input_tokens?: number | null;
	output_tokens?: number | null;
	cache_read_input_tokens?: number | null;
	cache_creation_input_tokens?: number | null;
	output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** One response's decoding state. Feed every SSE event to `handle`; call `finish` once it returns true. */
export class AnthropicStreamDecoder {
	private readonly open = new Map<number, OpenBlock>();
	private readonly usage: WireUsage = {};
	private reasoningTokens: number | undefined;
	private stopReason: string | null = null;
	private stopExplanation: string | undefined;
	private stopSequence: string | undefined;
	/** The code-execution container (`{id, expires_at}`): the next request must name it to reuse it. */
	private container: Json | undefined;
	private stopped = false;

	constructor(
		private readonly builder: AssistantMessageBuilder,
		private readonly model: Model,
	) {}

	/** True once `message_stop` arrived. */
	get complete(): boolean {
		return this.stopped;
	}

	/** Decode one SSE event; returns true at `message_stop`. Throws `ProviderError` on `error` events. */
	handle(sse: SseEvent): boolean {
		// Nearly every event is a one-string delta in the API's own serialization: read without the full parse.
		const delta = readStringDelta(sse.data);
		if (delta !== undefined) {
			this.applyDelta(delta.index, delta.delta);
			return false;
		}
		const event = parseEventJson(sse.data) as
			| RawMessageStreamEvent
			| { type: "error"; error?: unknown }
			| { type: "ping" };
		switch (event.type) {
			case "message_start":
				this.builder.setResponseId(event.message.id);
				this.mergeUsage(event.message.usage as WireUsage);
				if (event.message.stop_reason) this.stopReason = event.message.stop_reason;
				this.takeContainer((event.message as { container?: unknown }).container);
				for (const block of event.message.content ?? []) this.addCompleteBlock(block as unknown as Json);
				break;
			case "content_block_start":
				this.startBlock(event.index, event.content_block as unknown as Json);
				break;
			case "content_block_delta":
				this.applyDelta(event.index, event.delta as unknown as Json);
				break;
			case "content_block_stop":
				this.stopBlock(event.index);
				break;
			case "message_delta":
				if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
				this.stopExplanation = explanationOf((event.delta as { stop_details?: unknown }).stop_details);
				if (typeof event.delta.stop_sequence === "string") this.stopSequence = event.delta.stop_sequence;
				this.takeContainer(event.delta.container);
				this.mergeUsage(event.usage as WireUsage);
				break;
			case "message_stop":
				this.stopped = true;
				return true;
			case "error":
				throw classifyStreamError(event, sse.data, classifyAnthropicError);
			default:
				// `ping` and event types newer than this decoder carry nothing we keep.
				break;
		}
		return false;
	}

	/** Finish the message from the recorded stop reason (rule M4); the stream must have reached `message_stop`. */
	finish(): void {
		if (!this.stopped) throw new ProviderError("network", "stream ended unexpectedly", { retryable: false });
		// Request state rather than content; `buildAnthropicRequest` sends it back as `container`.
		if (this.container)
			this.builder.addProviderBlock(ANTHROPIC_API, { ...this.container, type: "container" });
		const mapped = mapStopReason(this.stopReason, ANTHROPIC_STOP_REASONS);
		if (this.stopReason === "stop_sequence" && this.stopSequence !== undefined)
			mapped.details = { type: "stop_sequence", raw: "stop_sequence", stopSequence: this.stopSequence };
		if (this.stopExplanation && mapped.details) {
			mapped.details = { ...mapped.details, explanation: this.stopExplanation };
			if (mapped.reason === "error") mapped.errorMessage = `${mapped.errorMessage} ${this.stopExplanation}`;
		}
		finishWithStop(this.builder, mapped);
	}

	/**
	 * `message_delta` usage overrides `message_start` field by field (a compatible server sent a different
	 * input count there). The top-level counts are the model's own reply: server-side sub-calls reported only
	 * in `usage.iterations` (a compaction pass, an advisor model) are left out, as the API and SDK report them.
	 */
	private mergeUsage(update: WireUsage | undefined): void {
		if (!update) return;
		for (const key of [
			"input_tokens",
			"output_tokens",
			"cache_read_input_tokens",
			"cache_creation_input_tokens",
		] as const) {
			const value = update[key];
			if (typeof value === "number") this.usage[key] = value;
		}
		const thinking = update.output_tokens_details?.thinking_tokens;
		if (typeof thinking === "number") this.reasoningTokens = thinking;
		// Anthropic's input_tokens already excludes cache reads and writes (rule M5).
		this.builder.setUsage(
			buildUsage(
				{
					input: this.usage.input_tokens ?? 0,
					output: this.usage.output_tokens ?? 0,
					cacheRead: this.usage.cache_read_input_tokens ?? 0,
					cacheWrite: this.usage.cache_creation_input_tokens ?? 0,
					...(this.reasoningTokens === undefined ? {} : { reasoning: this.reasoningTokens }),
				},
				this.model,
			),
		);
	}

	private takeContainer(container: unknown): void {
		if (container && typeof container === "object" && typeof (container as Json).id === "string")
			this.container = { ...(container as Json) };
	}

	private startBlock(wireIndex: number, block: Json): void {
		const b = this.builder;
		switch (block.type) {
			case "text": {
				const index = b.startText();
				if (typeof block.text === "string" && block.text) b.appendText(index, block.text);
				if (Array.isArray(block.citations))
					for (const citation of block.citations) b.addCitation(index, citation);
				this.open.set(wireIndex, { kind: "text", index });
				return;
			}
			case "thinking": {
				const index = b.startThinking();
				if (typeof block.thinking === "string" && block.thinking) b.appendThinking(index, block.thinking);
				if (typeof block.signature === "string" && block.signature)
					b.appendThinkingSignature(index, block.signature);
				this.open.set(wireIndex, { kind: "thinking", index });
				return;
			}
			case "redacted_thinking":
				b.addRedactedThinking(String(block.data ?? ""));
				this.open.set(wireIndex, { kind: "closed" });
				return;
			case "tool_use": {
				// A call made from inside code execution (programmatic tool calling) names its caller, which must
				// be replayed; it rides in the call's opaque `signature`. Direct calls need nothing.
				const caller = block.caller as { type?: unknown } | undefined;
				const signature = caller && caller.type !== "direct" ? JSON.stringify(caller) : undefined;
				const index = b.startToolCall(String(block.id), String(block.name), signature);
				this.open.set(wireIndex, { kind: "tool", index, input: block.input, streamed: false });
				return;
			}
			default:
				this.open.set(wireIndex, { kind: "provider", data: { ...block }, json: "", content: undefined });
		}
	}

	private applyDelta(wireIndex: number, delta: Json): void {
		const open = this.open.get(wireIndex);
		if (!open)
			throw new ProviderError("malformed_response", `content_block_delta for unknown block ${wireIndex}`);
		const b = this.builder;
		switch (delta.type) {
			case "text_delta":
				if (open.kind === "text") b.appendText(open.index, String(delta.text ?? ""));
				return;
			case "citations_delta":
				if (open.kind === "text" && delta.citation !== undefined) b.addCitation(open.index, delta.citation);
				return;
			case "thinking_delta":
				if (open.kind === "thinking") b.appendThinking(open.index, String(delta.thinking ?? ""));
				return;
			case "signature_delta":
				if (open.kind === "thinking") b.appendThinkingSignature(open.index, String(delta.signature ?? ""));
				return;
			case "input_json_delta": {
				const fragment = String(delta.partial_json ?? "");
				if (fragment.length === 0) return;
				if (open.kind === "tool") {
					open.streamed = true;
					b.appendToolCallArguments(open.index, fragment);
				} else if (open.kind === "provider") open.json += fragment;
				return;
			}
			case "compaction_delta":
				if (open.kind === "provider" && typeof delta.content === "string")
					open.content = (open.content ?? "") + delta.content;
				return;
			default:
				return;
		}
	}

	private stopBlock(wireIndex: number): void {
		const open = this.open.get(wireIndex);
		this.open.set(wireIndex, { kind: "closed" });
		if (!open)
			throw new ProviderError("malformed_response", `content_block_stop for unknown block ${wireIndex}`);
		const b = this.builder;
		if (open.kind === "text") b.endText(open.index);
		else if (open.kind === "thinking") b.endThinking(open.index);
		else if (open.kind === "tool")
			b.endToolCall(open.index, open.streamed ? undefined : JSON.stringify(open.input ?? {}));
		else if (open.kind === "provider") b.addProviderBlock(ANTHROPIC_API, finalProviderData(open));
	}

	/** A block delivered whole inside `message_start` (seen in programmatic tool-calling continuations). */
	private addCompleteBlock(block: Json): void {
		const wireIndex = -1 - this.open.size;
		this.startBlock(wireIndex, block);
		const open = this.open.get(wireIndex);
		if (open?.kind === "tool") open.streamed = false;
		this.stopBlock(wireIndex);
	}
}

function finalProviderData(open: { data: Json; json: string; content: string | undefined }): Json {
	const data: Json = { ...open.data };
	if (open.json.length > 0) {
		try {
			data.input = JSON.parse(open.json) as JsonValue;
		} catch {
			throw new ProviderError("malformed_response", `unparseable input for ${String(data.type)} block`);
		}
	}
	if (open.content !== undefined) data.content = open.content;
	return data;
}

function explanationOf(details: unknown): string | undefined {
	if (!details || typeof details !== "object") return undefined;
	const explanation = (details as { explanation?: unknown }).explanation;
	return typeof explanation === "string" && explanation ? explanation : undefined;
}
