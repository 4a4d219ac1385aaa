/**
 * AI SDK stream parts (V2 and V3) → rule E2 events, through the shared `AssistantMessageBuilder` (so partial
 * tool arguments are parsed incrementally, like every built-in provider). Failures are thrown as classified
 * `ProviderError`s; `runProviderStream` turns them into an error message (rule E3).
 */
import type { LanguageModelV2StreamPart, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { AssistantMessageBuilder } from "../core/assistant-builder.js";
import type { JsonValue } from "../core/messages.js";
import type { Model } from "../core/model.js";
import { finishWithStop, type MappedStop } from "../providers/base/stop-reason.js";
import { buildUsage } from "../providers/base/usage.js";
import { classifyAiSdkError } from "./errors.js";
import { mapFinishReason, normalizeUsage, reportsTokens } from "./finish.js";
import {
	AI_SDK_API,
	encodeMetadata,
	mergeMetadata,
	type ProviderMetadata,
	providerToolResult,
	withProviderOptions,
} from "./metadata.js";

/** A stream part of either specification. */
export type AnyStreamPart = LanguageModelV2StreamPart | LanguageModelV3StreamPart;

interface OpenBlock {
	index: number;
	metadata: ProviderMetadata | undefined;
}

/** Feeds one reply's stream parts into a builder; `end()` finishes it once the stream is over. */
export class StreamPartDecoder {
	private readonly texts = new Map<string, OpenBlock>();
	private readonly reasoning = new Map<string, OpenBlock>();
	private readonly toolInputs = new Map<string, OpenBlock>();
	/** Ids of provider-executed tool inputs: the provider runs them, so they are not capstan tool calls. */
	private readonly providerInputs = new Set<string>();
	private lastText = -1;
	private stop: MappedStop | undefined;

	constructor(
		private readonly builder: AssistantMessageBuilder,
		private readonly model: Model,
	) {}

	/** Apply one part. Throws a `ProviderError` for an `error` part. */
	push(part: AnyStreamPart): void {
		switch (part.type) {
			case "text-start":
			case "text-delta":
			case "text-end":
			case "reasoning-start":
			case "reasoning-delta":
			case "reasoning-end":
				this.contentPart(part);
				break;
			case "tool-input-start":
				if (part.providerExecuted) this.providerInputs.add(part.id);
				else this.openToolInput(part.id, part.toolName, part.providerMetadata as ProviderMetadata);
				break;
			case "tool-input-delta": {
				const block = this.toolInputs.get(part.id);
				if (block && part.delta.length > 0) this.builder.appendToolCallArguments(block.index, part.delta);
				break;
			}
			case "tool-call":
				this.toolCall(part);
				break;
			case "tool-result":
				// A preliminary result is replaced by the final one that follows; only that one is replayed.
				if (!("preliminary" in part && part.preliminary))
					this.builder.addProviderBlock(
						AI_SDK_API,
						asJson(providerToolResult(part.toolCallId, part.toolName, part.result, part.isError, meta(part))),
					);
				break;
			case "file":
				this.builder.addProviderBlock(
					AI_SDK_API,
					asJson({
						type: "file",
						mediaType: part.mediaType,
						data: typeof part.data === "string" ? part.data : base64(part.data),
						...withProviderOptions(meta(part)),
					}),
				);
				break;
			case "source":
				// Sources cite the text before them; one that comes before any text has nothing to attach to.
				if (this.lastText >= 0) this.builder.addCitation(this.lastText, asJson(part));
				break;
			case "response-metadata":
				if (part.id) this.builder.setResponseId(part.id);
				break;
			case "finish":
				// A finish without counts (a server that sent no usage) leaves the usage unknown, not zero.
				if (reportsTokens(part.usage))
					this.builder.setUsage(buildUsage(normalizeUsage(part.usage), this.model));
				this.stop = mapFinishReason(part.finishReason);
				break;
			case "error":
				throw classifyAiSdkError(part.error);
			default:
				// `tool-input-end` (the complete `tool-call` part that follows carries the authoritative input, the
				// call ends there), `stream-start` (warnings), `raw` (only sent on request, which this bridge never
				// makes) and V3 `tool-approval-request` (for provider tools, never declared here) carry nothing.
				break;
		}
	}

	/** Text and reasoning parts: blocks keyed by the part id, metadata merged over the block's parts. */
	private contentPart(part: Extract<AnyStreamPart, { type: `${"text" | "reasoning"}-${string}` }>): void {
		const kind = part.type.startsWith("text") ? "text" : "thinking";
		const blocks = kind === "text" ? this.texts : this.reasoning;
		const metadata = part.providerMetadata as ProviderMetadata | undefined;
		if (part.type === "text-end" || part.type === "reasoning-end") {
			this.close(kind, part.id, metadata);
			return;
		}
		const block = blocks.get(part.id) ?? this.open(blocks, part.id, undefined, kind);
		block.metadata = mergeMetadata(block.metadata, metadata);
		if (part.type === "text-delta" && part.delta.length > 0) this.builder.appendText(block.index, part.delta);
		if (part.type === "reasoning-delta" && part.delta.length > 0)
			this.builder.appendThinking(block.index, part.delta);
	}

	/** The stream is over: finish the message with the reported finish reason. */
	end(): void {
		if (!this.stop) {
			finishWithStop(this.builder, {
				reason: "error",
				details: { type: "unknown_stop_reason", raw: "none" },
				errorMessage: "the AI SDK stream ended without a finish part",
				errorKind: "malformed_response",
			});
			return;
		}
		for (const id of [...this.texts.keys()]) this.close("text", id, undefined);
		for (const id of [...this.reasoning.keys()]) this.close("thinking", id, undefined);
		finishWithStop(this.builder, this.stop);
	}

	private open(
		blocks: Map<string, OpenBlock>,
		id: string,
		metadata: unknown,
		kind: "text" | "thinking",
	): OpenBlock {
		const index = kind === "text" ? this.builder.startText() : this.builder.startThinking();
		if (kind === "text") this.lastText = index;
		const block: OpenBlock = { index, metadata: metadata as ProviderMetadata | undefined };
		blocks.set(id, block);
		return block;
	}

	private close(kind: "text" | "thinking", id: string, metadata: ProviderMetadata | undefined): void {
		const blocks = kind === "text" ? this.texts : this.reasoning;
		const block = blocks.get(id);
		if (!block) return;
		blocks.delete(id);
		const signature = encodeMetadata(mergeMetadata(block.metadata, metadata));
		if (kind === "text") {
			if (signature !== undefined) this.builder.setTextSignature(block.index, signature);
			this.builder.endText(block.index);
			return;
		}
		if (signature !== undefined) this.builder.appendThinkingSignature(block.index, signature);
		this.builder.endThinking(block.index);
	}

	private openToolInput(id: string, name: string, metadata: ProviderMetadata | undefined): void {
		const index = this.builder.startToolCall(id, name);
		this.toolInputs.set(id, { index, metadata });
	}

	private toolCall(part: Extract<AnyStreamPart, { type: "tool-call" }>): void {
		if (part.providerExecuted || this.providerInputs.has(part.toolCallId)) {
			// Stored as the prompt part the provider wants back (what the AI SDK's own response messages hold).
			this.builder.addProviderBlock(
				AI_SDK_API,
				asJson({
					type: "tool-call",
					toolCallId: part.toolCallId,
					toolName: part.toolName,
					input: parseOr(part.input),
					providerExecuted: true,
					...withProviderOptions(meta(part)),
				}),
			);
			return;
		}
		const streamed = this.toolInputs.get(part.toolCallId);
		this.toolInputs.delete(part.toolCallId);
		const index = streamed?.index ?? this.builder.startToolCall(part.toolCallId, part.toolName);
		const metadata = mergeMetadata(streamed?.metadata, part.providerMetadata as ProviderMetadata);
		const signature = encodeMetadata(metadata);
		if (signature !== undefined) this.builder.setToolCallSignature(index, signature);
		// Providers send "" for a call without arguments; that is an empty object, not a JSON error.
		this.builder.endToolCall(index, part.input.trim() === "" ? "{}" : part.input);
	}
}

/** A part's provider metadata (V2 file parts have none). */
function meta(part: object): ProviderMetadata | undefined {
	return "providerMetadata" in part ? (part.providerMetadata as ProviderMetadata | undefined) : undefined;
}

function asJson(value: unknown): JsonValue {
	// Stream parts are JSON data by contract (dates aside, which become strings here).
	return JSON.parse(JSON.stringify(value)) as JsonValue;
}

function parseOr(input: string): unknown {
	try {
		return JSON.parse(input);
	} catch {
		return input;
	}
}

/**
 * Bytes as base64 through `btoa`, which every runtime has: Node's `Buffer` is missing on edge runtimes and in
 * browsers, where a file part would otherwise fail the whole reply. Chunked so no call spreads too many arguments.
 */
function base64(bytes: Uint8Array): string {
	let binary = "";
	for (let i = 0; i < bytes.length; i += 0x8000)
		binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
	return btoa(binary);
}
