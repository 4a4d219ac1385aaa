/**
 * OpenAI Responses stream decoding: wire events → builder calls (rule E2). One decoder per HTTP response.
 *
 * Items are keyed by `output_index`, never by `item_id`: proxies rotate item ids between the events of one
 * item (GitHub Copilot), and servers finish items out of order (xAI, OpenRouter). Each item's content slot is
 * taken when the item is added, so content keeps the provider's output order.
 *
 * - `message` → one text block per content part (`output_text` or `refusal`); annotations become citations;
 *   the item id (and `phase`) is kept in the text signature for replay.
 * - `function_call` → a tool call: `id` = `call_id`, signature = item id; arguments stream from
 *   `function_call_arguments.delta` and are settled by `.done` (some servers send only `.done`).
 * - `reasoning` → a `ProviderBlock` holding the whole item (encrypted content, replayed unchanged), plus a
 *   thinking block for its summary text or raw reasoning text.
 * - every other item (server tools, compaction, MCP, …) → a `ProviderBlock`, filled in when it is done.
 *   That includes `custom_tool_call` (xAI runs `x_search` that way, server-side): capstan declares only
 *   function tools, so a custom-tool call is never one for the loop to run.
 * - Unknown event types are ignored.
 */
import type { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import type { JsonValue } from "../../core/messages.js";
import type { Model } from "../../core/model.js";
import { finishWithStop, mapStopReason, type StopReasonTable } from "../base/stop-reason.js";
import { buildUsage } from "../base/usage.js";
import { streamError } from "./errors.js";
import { encodeItemRef } from "./item-refs.js";
import { OPENAI_RESPONSES_API } from "./request.js";
import type {
	Response,
	ResponseOutputItem,
	ResponseOutputMessage,
	ResponseStreamEvent,
	ResponseUsage,
} from "./wire.js";

interface TextSlot {
	block: number;
	open: boolean;
	refusal: boolean;
}

type ItemState =
	| { kind: "message"; parts: Map<number, TextSlot>; signature?: string | undefined }
	| { kind: "function_call"; block: number; open: boolean }
	| {
			kind: "reasoning";
			provider: number;
			id?: string;
			done: boolean;
			thinking?: number;
			open: boolean;
			lastPart?: string;
	  }
	| { kind: "other"; provider: number; id?: string; done: boolean };

/** `response.incomplete` reasons (rule M4). */
const INCOMPLETE_REASONS: StopReasonTable = {
	max_output_tokens: { reason: "length" },
	content_filter: {
		reason: "error",
		details: { type: "content_filter" },
		errorMessage: "the response was stopped by the provider's content filter",
	},
};

/** Whether the decoder is done with the response. */
export type DecodeResult = "continue" | "finished";

/** Decodes one Responses stream into an `AssistantMessageBuilder`. */
export class ResponsesStreamDecoder {
	private readonly items = new Map<number, ItemState>();
	private toolCalls = 0;
	private refusal: string | undefined;

	constructor(
		private readonly builder: AssistantMessageBuilder,
		private readonly model: Model,
	) {}

	/** Feed one parsed event. Throws a `ProviderError` for `error` and `response.failed`. */
	handle(event: ResponseStreamEvent): DecodeResult {
		switch (event.type) {
			case "response.created":
			case "response.in_progress":
			case "response.queued":
				this.takeResponseId(event.response);
				return "continue";
			case "response.completed":
				this.takeResponseId(event.response);
				this.complete(event.response);
				return "finished";
			case "response.incomplete":
				this.takeResponseId(event.response);
				this.incomplete(event.response);
				return "finished";
			case "response.failed":
				this.setUsage(event.response?.usage);
				throw streamError(event.response?.error ?? { message: "the response failed" });
			case "error":
				throw streamError(event);
			default:
				this.content(event);
				return "continue";
		}
	}

	/** Item and content events; unknown types fall through untouched. */
	private content(event: ResponseStreamEvent): void {
		switch (event.type) {
			case "response.output_item.added":
				this.itemAt(event.output_index, event.item);
				break;
			case "response.output_item.done":
				this.itemDone(event.output_index, event.item);
				break;
			case "response.content_part.added":
				if (event.part?.type === "output_text" || event.part?.type === "refusal")
					this.textSlot(event.output_index, event.content_index, event.part.type === "refusal");
				break;
			case "response.output_text.delta":
				this.appendText(event.output_index, event.content_index, event.delta, false);
				break;
			case "response.refusal.delta":
				this.appendText(event.output_index, event.content_index, event.delta, true);
				break;
			case "response.output_text.done":
				this.settleText(event.output_index, event.content_index, event.text, false);
				break;
			case "response.refusal.done":
				this.settleText(event.output_index, event.content_index, event.refusal, true);
				break;
			case "response.content_part.done":
				if (event.part?.type === "output_text")
					this.settleText(event.output_index, event.content_index, event.part.text, false);
				else if (event.part?.type === "refusal")
					this.settleText(event.output_index, event.content_index, event.part.refusal, true);
				break;
			case "response.output_text.annotation.added": {
				const slot = this.textSlot(event.output_index, event.content_index, false);
				if (slot) this.builder.addCitation(slot.block, event.annotation as JsonValue);
				break;
			}
			case "response.reasoning_summary_text.delta":
				this.appendThinking(event.output_index, `summary:${event.summary_index}`, event.delta);
				break;
			case "response.reasoning_text.delta":
				this.appendThinking(event.output_index, `content:${event.content_index}`, event.delta);
				break;
			case "response.function_call_arguments.delta":
				this.appendArguments(event.output_index, event.delta);
				break;
			case "response.function_call_arguments.done":
				this.endArguments(event.output_index, event.arguments);
				break;
		}
	}

	/** The terminal response's id wins: proxies may rotate it (GitHub Copilot). */
	private takeResponseId(response: Response | undefined): void {
		if (typeof response?.id === "string") this.builder.setResponseId(response.id);
	}

	/** The item state at `index`, created from `item` when the stream did not announce it. */
	private itemAt(index: number, item: ResponseOutputItem | undefined): ItemState | undefined {
		const known = this.items.get(index);
		if (known || !item) return known;
		let state: ItemState;
		if (item.type === "message")
			state = {
				kind: "message",
				parts: new Map(),
				signature: encodeItemRef({ id: item.id, phase: item.phase ?? undefined }),
			};
		else if (item.type === "function_call") {
			const signature = encodeItemRef({ id: item.id, namespace: item.namespace });
			const block = this.builder.startToolCall(item.call_id, item.name, signature);
			state = { kind: "function_call", block, open: true };
			this.toolCalls++;
		} else if (item.type === "reasoning") {
			state = {
				kind: "reasoning",
				provider: this.providerBlock(item),
				id: item.id,
				done: false,
				open: false,
			};
		} else state = { kind: "other", provider: this.providerBlock(item), id: itemId(item), done: false };
		this.items.set(index, state);
		return state;
	}

	/**
	 * Reserve the item's place. Until its `output_item.done` the block carries `status: "in_progress"`, so
	 * an item cut off by an error or abort is never replayed half-built (request building skips it).
	 */
	private providerBlock(item: ResponseOutputItem): number {
		const pending = { ...(item as unknown as Record<string, JsonValue>), status: "in_progress" };
		return this.builder.addProviderBlock(OPENAI_RESPONSES_API, pending);
	}

	private itemDone(index: number, item: ResponseOutputItem): void {
		const state = this.itemAt(index, item);
		if (!state) return;
		if (state.kind === "message" && item.type === "message") this.messageDone(state, item);
		else if (state.kind === "function_call" && item.type === "function_call") {
			if (state.open) this.endArguments(index, item.arguments);
			const signature = encodeItemRef({ id: item.id, namespace: item.namespace });
			if (signature !== undefined) this.builder.setToolCallSignature(state.block, signature);
		} else if (state.kind === "reasoning") {
			if (state.thinking === undefined && item.type === "reasoning") {
				// A summary that arrived only with the finished item still belongs in the reply.
				const text = (item.summary ?? []).map((part) => part.text).join("\n\n");
				if (text.length > 0) this.appendThinking(index, "summary:0", text);
			}
			if (state.open && state.thinking !== undefined) this.builder.endThinking(state.thinking);
			state.open = false;
			state.done = true;
			this.builder.setProviderBlockData(state.provider, item as unknown as JsonValue);
		} else if (state.kind === "other") {
			state.done = true;
			this.builder.setProviderBlockData(state.provider, item as unknown as JsonValue);
		}
	}

	private messageDone(state: { parts: Map<number, TextSlot> }, item: ResponseOutputMessage): void {
		const signature = encodeItemRef({ id: item.id, phase: item.phase ?? undefined });
		(item.content ?? []).forEach((part, contentIndex) => {
			const slot = state.parts.get(contentIndex);
			if (!slot) return;
			if (part.type === "output_text") {
				this.settleSlot(slot, part.text);
				const citations = this.builder.message.content[slot.block];
				if (citations?.type === "text" && !citations.citations)
					for (const annotation of part.annotations ?? [])
						this.builder.addCitation(slot.block, annotation as unknown as JsonValue);
			} else if (part.type === "refusal") this.settleSlot(slot, part.refusal);
		});
		for (const slot of state.parts.values()) {
			if (slot.open) this.closeSlot(slot);
			if (signature !== undefined) this.builder.setTextSignature(slot.block, signature);
		}
	}

	private textSlot(index: number, contentIndex: number, refusal: boolean): TextSlot | undefined {
		let state = this.items.get(index);
		// A delta without its `output_item.added` (lenient servers): treat the item as a message.
		if (!state) {
			state = { kind: "message", parts: new Map() };
			this.items.set(index, state);
		}
		if (state.kind !== "message") return undefined;
		let slot = state.parts.get(contentIndex);
		if (!slot) {
			slot = { block: this.builder.startText(), open: true, refusal };
			state.parts.set(contentIndex, slot);
			// Known from the start, so a reply cut off mid-text still pairs with its reasoning item on replay.
			if (state.signature !== undefined) this.builder.setTextSignature(slot.block, state.signature);
		}
		slot.refusal ||= refusal;
		return slot;
	}

	private appendText(index: number, contentIndex: number, delta: string, refusal: boolean): void {
		const slot = this.textSlot(index, contentIndex, refusal);
		if (!slot?.open || typeof delta !== "string" || delta.length === 0) return;
		this.builder.appendText(slot.block, delta);
	}

	/** `*.done` carries the whole text: when it extends what the deltas gave, the rest is appended first. */
	private settleText(index: number, contentIndex: number, text: string, refusal: boolean): void {
		const slot = this.textSlot(index, contentIndex, refusal);
		if (slot) this.settleSlot(slot, text);
	}

	private settleSlot(slot: TextSlot, text: string | undefined): void {
		if (!slot.open) return;
		const block = this.builder.message.content[slot.block];
		const current = block?.type === "text" ? block.text : "";
		if (typeof text === "string" && text.length > current.length && text.startsWith(current))
			this.builder.appendText(slot.block, text.slice(current.length));
		this.closeSlot(slot);
	}

	private closeSlot(slot: TextSlot): void {
		slot.open = false;
		this.builder.endText(slot.block);
		if (!slot.refusal) return;
		const block = this.builder.message.content[slot.block];
		if (block?.type === "text") this.refusal = (this.refusal ?? "") + block.text;
	}

	private appendThinking(index: number, part: string, delta: string): void {
		const state = this.items.get(index);
		if (state?.kind !== "reasoning" || typeof delta !== "string" || delta.length === 0) return;
		if (state.thinking === undefined) {
			state.thinking = this.builder.startThinking();
			state.open = true;
		} else if (!state.open) return;
		// Summary parts are separate paragraphs of one thinking block.
		if (state.lastPart !== undefined && state.lastPart !== part)
			this.builder.appendThinking(state.thinking, "\n\n");
		state.lastPart = part;
		this.builder.appendThinking(state.thinking, delta);
	}

	private appendArguments(index: number, delta: string): void {
		const state = this.items.get(index);
		if (state?.kind !== "function_call" || !state.open || typeof delta !== "string") return;
		this.builder.appendToolCallArguments(state.block, delta);
	}

	private endArguments(index: number, finalArguments: string | undefined): void {
		const state = this.items.get(index);
		if (state?.kind !== "function_call" || !state.open) return;
		state.open = false;
		this.builder.endToolCall(state.block, typeof finalArguments === "string" ? finalArguments : undefined);
	}

	private setUsage(usage: ResponseUsage | null | undefined): void {
		if (!usage) return;
		const cached = usage.input_tokens_details?.cached_tokens ?? 0;
		const details = usage.input_tokens_details as { cache_write_tokens?: number } | undefined;
		const cacheWrite = details?.cache_write_tokens ?? 0;
		const counts = {
			input: (usage.input_tokens ?? 0) - cached - cacheWrite,
			output: usage.output_tokens ?? 0,
			cacheRead: cached,
			cacheWrite,
			...(usage.output_tokens_details?.reasoning_tokens === undefined
				? {}
				: { reasoning: usage.output_tokens_details.reasoning_tokens }),
		};
		this.builder.setUsage(buildUsage(counts, this.model));
	}

	private complete(response: Response | undefined): void {
		this.setUsage(response?.usage);
		this.settleFromSnapshot(response);
		if (this.refusal !== undefined) {
			this.builder.setStopDetails({ type: "refusal", explanation: this.refusal });
			this.builder.fail("error", `the model refused: ${this.refusal}`);
			return;
		}
		this.builder.done(this.toolCalls > 0 ? "toolUse" : "stop");
	}

	/**
	 * Items a server never sent `output_item.done` for are taken from the terminal response's `output`,
	 * matched by id (not position: a trimmed or filtered stream shifts positions).
	 */
	private settleFromSnapshot(response: Response | undefined): void {
		const output = Array.isArray(response?.output) ? response.output : [];
		for (const state of this.items.values()) {
			if ((state.kind !== "reasoning" && state.kind !== "other") || state.done || state.id === undefined)
				continue;
			const item = output.find((candidate) => itemId(candidate) === state.id);
			if (!item) continue;
			state.done = true;
			this.builder.setProviderBlockData(state.provider, item as unknown as JsonValue);
		}
	}

	private incomplete(response: Response | undefined): void {
		this.setUsage(response?.usage);
		this.settleFromSnapshot(response);
		const reason = response?.incomplete_details?.reason;
		finishWithStop(this.builder, mapStopReason(reason, INCOMPLETE_REASONS));
	}
}

function itemId(item: ResponseOutputItem): string | undefined {
	const id = (item as { id?: unknown }).id;
	return typeof id === "string" ? id : undefined;
}
