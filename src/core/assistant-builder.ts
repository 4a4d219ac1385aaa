/**
 * The partial-message builder every stream function uses (stream scaffolding written once).
 *
 * Snapshots are built by structural sharing (rule L5): every change makes a new message object, a new
 * content array and a new object for the one changed block, and shares every other block. A snapshot handed
 * out in an event is never touched again, and the cost of one event is O(number of blocks), never
 * O(message size): text grows by concatenation (`GrowingText`) and tool arguments come from the incremental parser.
 */

import { claimDelivery, EventStream, releaseDelivery, releaseFailedDelivery } from "./event-stream.js";
import type { AssistantMessageEvent } from "./events.js";
import { GrowingText } from "./growing-text.js";
import { closeInterruptedMessage } from "./interrupt.js";
import type {
	AssistantContent,
	AssistantMessage,
	ErrorKind,
	JsonValue,
	StopDetails,
	TextContent,
	ThinkingContent,
	ToolCall,
	Usage,
} from "./messages.js";
import { emptyUsage } from "./messages.js";
import { IncrementalJsonParser, type JsonParseResult, parseJsonText, wholeObject } from "./partial-json.js";

/** Identity of the reply being built; copied onto the message. */
export interface AssistantBuilderInit {
	/** The wire API, copied to `AssistantMessage.api`. */
	api: string;
	/** The provider, copied to `AssistantMessage.provider`. */
	provider: string;
	/** The model id, copied to `AssistantMessage.model`. */
	model: string;
	/** The message's timestamp, in milliseconds since the Unix epoch. */
	timestamp: number;
}

/** Where the builder sends its events; an `AssistantMessageEventStream` is one. */
export interface AssistantEventSink {
	/** Receives each event as it is built. */
	push(event: AssistantMessageEvent): void;
	/** Receives the final message, once, after the terminal event. */
	end(message: AssistantMessage): void;
}

type BlockKind = "text" | "thinking" | "toolCall";
type OpenBlock = OpenProse | OpenToolCall;

/** An open text or thinking block: its text so far, grown with little for the garbage collector to copy. */
interface OpenProse {
	kind: "text" | "thinking";
	text: GrowingText;
}

interface OpenToolCall {
	kind: "toolCall";
	/**
	 * Made at the first delta that is not a whole JSON object on its own: small arguments usually arrive as
	 * one delta, read with one `JSON.parse` (`wholeObject`), and never need the parser's state machine.
	 */
	parser: IncrementalJsonParser | undefined;
	/** The arguments text while there is no parser: "" before any delta, then the one whole-object delta. */
	text: string;
	/** That delta's value. */
	whole: Record<string, unknown> | undefined;
	// `empty` stands in for arguments until the first key appears, so argument-less deltas share one object.
	empty: Record<string, unknown>;
}

/**
 * Stop details that are a provider's final verdict on a completed reply (rule S5, M4), not an interruption:
 * `fail("error", …)` keeps them instead of rewriting them to `stream_interrupted_after_content`.
 */
const VERDICT_STOP_TYPES = new Set(["refusal", "content_filter", "unknown_stop_reason"]);

/** Tool arguments must be a JSON object; anything else is reported like a JSON problem (rule E4). */
function asArguments(value: unknown): Record<string, unknown> | undefined {
	return value !== null && typeof value === "object" && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/**
 * Builds one streamed assistant message and emits its rule E2 events.
 *
 * - Every stream it drives starts with exactly one `start` (content methods, `done` and `fail` emit it first
 *   when `start()` was not called) and ends with exactly one terminal event; after `done`/`fail` every call
 *   is ignored (start methods then return -1).
 * - Indices are content indices (`contentIndex` in events). A bad index — out of range, the wrong block kind,
 *   or a block already ended — throws an `Error`, so a provider decoder can catch it and fail the stream.
 * - `addRedactedThinking`, `addProviderBlock`, signatures, citations, usage and stop details change the
 *   snapshot without an event of their own (rule E2 has none); the next event carries them.
 *
 * @example
 * ```ts
 * const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
 * const b = new AssistantMessageBuilder({ api, provider, model: model.id, timestamp: Date.now() }, stream);
 * const t = b.startText();
 * b.appendText(t, "Hello");
 * b.done("stop"); // emits text_end, done, and ends the stream with the message
 * ```
 */
export class AssistantMessageBuilder {
	private snapshot: AssistantMessage;
	// Keys the snapshot holds beyond the constructor's, in insertion order: snapshots are built as literals
	// (see `withContent`), and a copy must keep the key order a spread would have kept.
	private readonly extraKeys: ("responseId" | "stopDetails")[] = [];
	private readonly blocks: (OpenBlock | undefined)[] = [];
	/** Content indices of the tool calls that reached `toolcall_end` (ids may repeat within a reply). */
	private readonly completedIndices = new Set<number>();
	private started = false;
	private finished = false;
	// The sink as capstan's own stream, when it is one and its `push` is `EventStream`'s (a subclass may have
	// its own): its events are then delivered with `claimDelivery`.
	private readonly direct: EventStream<AssistantMessageEvent, AssistantMessage> | undefined;

	constructor(
		init: AssistantBuilderInit,
		private readonly stream?: AssistantEventSink,
	) {
		this.direct =
			stream instanceof EventStream && stream.push === EventStream.prototype.push ? stream : undefined;
		this.snapshot = {
			role: "assistant",
			content: [],
			api: init.api,
			provider: init.provider,
			model: init.model,
			usage: emptyUsage(),
			stopReason: "stop",
			timestamp: init.timestamp,
		};
	}

	/** The current snapshot. Never mutated afterwards (rule L5). */
	get message(): AssistantMessage {
		return this.snapshot;
	}

	/** Ids of tool calls that reached `toolcall_end`; the others are dropped on failure (rule A4). */
	get completedToolCallIds(): ReadonlySet<string> {
		const ids = new Set<string>();
		for (const index of this.completedIndices) ids.add((this.snapshot.content[index] as ToolCall).id);
		return ids;
	}

	/** True once `done` or `fail` ran. */
	get isFinished(): boolean {
		return this.finished;
	}

	/** Emit `start`. Idempotent. */
	start(): void {
		if (this.started || this.finished) return;
		this.started = true;
		this.emit({ type: "start", partial: this.snapshot });
	}

	/** Open a text block; returns its content index. */
	startText(): number {
		const index = this.addBlock({ type: "text", text: "" }, { kind: "text", text: new GrowingText() });
		if (index >= 0) this.emit({ type: "text_start", contentIndex: index, partial: this.snapshot });
		return index;
	}

	/** Append visible text to an open text block. */
	appendText(index: number, delta: string): void {
		if (this.finished) return;
		const block = this.openBlock<TextContent>(index, "text");
		this.replace(index, textWith(block, (this.blocks[index] as OpenProse).text.append(delta)));
		this.emit({ type: "text_delta", contentIndex: index, delta, partial: this.snapshot });
	}

	/** Close a text block (emits `text_end`). */
	endText(index: number): void {
		if (this.finished) return;
		const block = this.openBlock<TextContent>(index, "text");
		this.blocks[index] = undefined;
		this.emit({ type: "text_end", contentIndex: index, content: block.text, partial: this.snapshot });
	}

	/** Set the opaque signature of a text block (open or ended). */
	setTextSignature(index: number, signature: string): void {
		if (this.finished) return;
		this.replace(index, { ...this.blockAt<TextContent>(index, "text"), signature });
	}

	/** Attach a provider citation to a text block (open or ended). */
	addCitation(index: number, citation: JsonValue): void {
		if (this.finished) return;
		const block = this.blockAt<TextContent>(index, "text");
		this.replace(index, { ...block, citations: [...(block.citations ?? []), citation] });
	}

	/** Open a thinking block; returns its content index. */
	startThinking(): number {
		const index = this.addBlock(
			{ type: "thinking", thinking: "" },
			{ kind: "thinking", text: new GrowingText() },
		);
		if (index >= 0) this.emit({ type: "thinking_start", contentIndex: index, partial: this.snapshot });
		return index;
	}

	/** Append reasoning text to an open thinking block. */
	appendThinking(index: number, delta: string): void {
		if (this.finished) return;
		const block = this.openBlock<ThinkingContent>(index, "thinking");
		this.replace(index, thinkingWith(block, (this.blocks[index] as OpenProse).text.append(delta)));
		this.emit({ type: "thinking_delta", contentIndex: index, delta, partial: this.snapshot });
	}

	/** Append to a thinking block's signature (providers stream it in pieces); replayed byte for byte. */
	appendThinkingSignature(index: number, signature: string): void {
		if (this.finished) return;
		const block = this.blockAt<ThinkingContent>(index, "thinking");
		this.replace(index, { ...block, signature: (block.signature ?? "") + signature });
	}

	/** Close a thinking block (emits `thinking_end`). */
	endThinking(index: number): void {
		if (this.finished) return;
		const block = this.openBlock<ThinkingContent>(index, "thinking");
		this.blocks[index] = undefined;
		this.emit({ type: "thinking_end", contentIndex: index, content: block.thinking, partial: this.snapshot });
	}

	/** Add a complete redacted-thinking block; returns its content index. No event of its own. */
	addRedactedThinking(data: string): number {
		return this.addBlock({ type: "redactedThinking", data }, undefined);
	}

	/** Open a tool call whose arguments will stream; returns its content index. */
	startToolCall(id: string, name: string, signature?: string): number {
		const empty: Record<string, unknown> = {};
		const block: ToolCall = { type: "toolCall", id, name, arguments: empty };
		if (signature !== undefined) block.signature = signature;
		const index = this.addBlock(block, {
			kind: "toolCall",
			parser: undefined,
			text: "",
			whole: undefined,
			empty,
		});
		if (index >= 0)
			this.emit({ type: "toolcall_start", contentIndex: index, id, name, partial: this.snapshot });
		return index;
	}

	/** Feed a piece of the arguments JSON; the event and the block carry the parser's partial value (rule E4). */
	appendToolCallArguments(index: number, delta: string): void {
		if (this.finished) return;
		const open = this.openToolCall(index);
		let args = open.parser === undefined && open.text === "" ? wholeObject(delta) : undefined;
		if (args) {
			open.text = delta;
			open.whole = args;
		} else args = parsedArguments(open, delta);
		const block = this.snapshot.content[index] as ToolCall;
		if (block.arguments !== args) this.replace(index, toolCallWith(block, args));
		this.emit({
			type: "toolcall_delta",
			contentIndex: index,
			delta,
			arguments: args,
			partial: this.snapshot,
		});
	}

	/**
	 * Close a tool call: its arguments are parsed once (rule E4), from `finalArgumentsJson` when the provider
	 * sends the complete text at the end, else from the streamed deltas. Arguments that are not a valid JSON
	 * object become `{}` with `argumentsError` naming the problem; nothing throws.
	 */
	endToolCall(index: number, finalArgumentsJson?: string): void {
		if (this.finished) return;
		const { parser, text } = this.openToolCall(index);
		const parsed =
			finalArgumentsJson !== undefined
				? parseJsonText(finalArgumentsJson)
				: parser
					? parser.finish()
					: parseJsonText(text);
		const args = parsed.ok ? asArguments(parsed.value) : undefined;
		// A literal, not a rest/spread of the streaming block: once per call, as cold code, where V8's object
		// rest and spread are slow. Same keys in the same order; stale error fields are left behind.
		const block = this.snapshot.content[index] as ToolCall;
		const toolCall: ToolCall = { type: "toolCall", id: block.id, name: block.name, arguments: args ?? {} };
		if ("signature" in block) toolCall.signature = block.signature as string;
		if (!args) markBroken(toolCall, parsed, finalArgumentsJson ?? (parser ? parser.rawText : text));
		this.replace(index, toolCall);
		this.blocks[index] = undefined;
		this.completedIndices.add(index);
		this.emit({ type: "toolcall_end", contentIndex: index, toolCall, partial: this.snapshot });
	}

	/** Set the opaque signature of a tool call (open or ended). */
	setToolCallSignature(index: number, signature: string): void {
		if (this.finished) return;
		this.replace(index, { ...this.blockAt<ToolCall>(index, "toolCall"), signature });
	}

	/** Add a provider-side block the loop does not interpret (rule M3); returns its content index. */
	addProviderBlock(api: string, data: JsonValue): number {
		return this.addBlock({ type: "providerBlock", api, data }, undefined);
	}

	/**
	 * Replace the data of a provider block added earlier. Lets a provider reserve the block's place when the
	 * item starts (keeping content in the provider's output order) and fill in the final item when it ends,
	 * even when items end out of order (OpenAI Responses: xAI, OpenRouter).
	 */
	setProviderBlockData(index: number, data: JsonValue): void {
		if (this.finished) return;
		const block = Number.isInteger(index) ? this.snapshot.content[index] : undefined;
		if (block?.type !== "providerBlock")
			throw new Error(`AssistantMessageBuilder: content index ${index} is not a provider block`);
		this.replace(index, { ...block, data });
	}

	/**
	 * Merge usage numbers. `totalTokens`, when not given, is recomputed as the sum of the four counters;
	 * `cost` is replaced only when given (pricing belongs to the provider layer).
	 */
	setUsage(usage: Partial<Usage>): void {
		if (this.finished) return;
		const merged: Usage = { ...this.snapshot.usage, ...usage };
		if (usage.totalTokens === undefined)
			merged.totalTokens = merged.input + merged.output + merged.cacheRead + merged.cacheWrite;
		this.snapshot = { ...this.snapshot, usage: merged };
	}

	/** Record the provider's response id. */
	setResponseId(id: string): void {
		if (this.finished) return;
		if (!this.extraKeys.includes("responseId")) this.extraKeys.push("responseId");
		this.snapshot = { ...this.snapshot, responseId: id };
	}

	/** Set (or clear, with `undefined`) the finer stop cause (rule M4). */
	setStopDetails(details: StopDetails | undefined): void {
		if (this.finished) return;
		const { stopDetails: _previous, ...rest } = this.snapshot;
		const at = this.extraKeys.indexOf("stopDetails");
		if (at >= 0) this.extraKeys.splice(at, 1);
		if (details) this.extraKeys.push("stopDetails");
		this.snapshot = details ? { ...rest, stopDetails: details } : rest;
	}

	/**
	 * Finish successfully: closes still-open text and thinking blocks (emitting their `*_end`) and still-open
	 * tool calls (parsing their arguments, so a call cut by `length` gets an `argumentsError`), emits `done`,
	 * and ends the stream with the message. Returns the final message.
	 */
	done(reason: "stop" | "toolUse" | "length"): AssistantMessage {
		if (this.finished) return this.snapshot;
		this.start();
		this.blocks.forEach((open, index) => {
			if (open?.kind === "text") this.endText(index);
			else if (open?.kind === "thinking") this.endThinking(index);
			else if (open?.kind === "toolCall") this.endToolCall(index);
		});
		const message: AssistantMessage = { ...this.snapshot, stopReason: reason };
		this.finish(message, { type: "done", reason, message });
		return message;
	}

	/**
	 * Finish as failed (rule E3, A4): tool calls that never reached `toolcall_end` are dropped; with content
	 * left, `stopDetails` becomes `stream_interrupted_after_content` (previous type kept as `raw`). A provider
	 * verdict set before `fail("error")` — `refusal`, `content_filter`, `unknown_stop_reason` — is kept as is:
	 * the reply completed, it was not interrupted (rule S5). Emits `error` and ends the stream.
	 */
	fail(reason: "error" | "aborted", errorMessage: string, errorKind?: ErrorKind): AssistantMessage {
		if (this.finished) return this.snapshot;
		this.start();
		const verdict = this.snapshot.stopDetails;
		const message = closeInterruptedMessage(
			this.snapshot,
			this.completedIndices,
			reason,
			errorMessage,
			errorKind,
		);
		if (reason === "error" && verdict && VERDICT_STOP_TYPES.has(verdict.type)) message.stopDetails = verdict;
		this.finish(message, { type: "error", reason, error: message });
		return message;
	}

	private finish(message: AssistantMessage, event: AssistantMessageEvent): void {
		this.snapshot = message;
		// Finished before the terminal event goes out: a drained listener that aborts on `done` (the abort
		// listener then calls `fail`) must not add a second terminal event or change the result (rule E2).
		this.finished = true;
		this.blocks.length = 0;
		this.emit(event);
		this.stream?.end(message);
	}

	/**
	 * Every event of the message goes through here. To capstan's own stream while it is drained (the loop
	 * drains every reply), the call into the drain's listener is this method's own (see `claimDelivery`).
	 */
	private emit(event: AssistantMessageEvent): void {
		const direct = this.direct;
		const sink = direct === undefined ? undefined : claimDelivery(direct);
		if (direct === undefined || sink === undefined) {
			this.stream?.push(event);
			return;
		}
		try {
			sink.handleEvent(event);
		} catch (error) {
			releaseFailedDelivery(direct, error);
			return;
		}
		releaseDelivery(direct);
	}

	private addBlock(block: AssistantContent, open: OpenBlock | undefined): number {
		if (this.finished) return -1;
		this.start();
		const index = this.snapshot.content.length;
		this.snapshot = this.withContent([...this.snapshot.content, block]);
		this.blocks[index] = open;
		return index;
	}

	/** Swap one block: new message, new content array, every other block shared (rule L5). */
	private replace(index: number, block: AssistantContent): void {
		const previous = this.snapshot.content;
		let content: AssistantContent[];
		// The usual reply has one block (index 0, checked by the caller): a literal instead of a copy.
		if (previous.length === 1) content = [block];
		else {
			content = previous.slice();
			content[index] = block;
		}
		this.snapshot = this.withContent(content);
	}

	/**
	 * The snapshot with new content, built as an object literal: V8's object spread (`{ ...message, content }`)
	 * costs about ten times a literal on every delta. Same keys, same order as the spread.
	 */
	private withContent(content: AssistantContent[]): AssistantMessage {
		const from = this.snapshot;
		const copy: AssistantMessage = {
			role: from.role,
			content,
			api: from.api,
			provider: from.provider,
			model: from.model,
			usage: from.usage,
			stopReason: from.stopReason,
			timestamp: from.timestamp,
		};
		const extra = this.extraKeys;
		for (let i = 0; i < extra.length; i++) {
			if (extra[i] === "responseId") copy.responseId = from.responseId as string;
			else copy.stopDetails = from.stopDetails as StopDetails;
		}
		return copy;
	}

	private blockAt<T extends AssistantContent>(index: number, kind: BlockKind): T {
		const block = Number.isInteger(index) ? this.snapshot.content[index] : undefined;
		if (!block) throw new Error(`AssistantMessageBuilder: no content block at index ${index}`);
		if (block.type !== kind)
			throw new Error(
				`AssistantMessageBuilder: content index ${index} is a ${block.type} block, not ${kind}`,
			);
		return block as T;
	}

	private openBlock<T extends AssistantContent>(index: number, kind: BlockKind): T {
		// The delta path: an open block of this kind is recorded only at a valid index of its own kind (any other
		// number, fractional or out of range, finds nothing here and is judged by `blockAt`; `typeof` keeps out a
		// numeric string from an untyped caller, without a call per delta).
		if (typeof index === "number" && this.blocks[index]?.kind === kind)
			return this.snapshot.content[index] as T;
		throw this.notOpen(index, kind);
	}

	/** The open tool call's own record, checked as in `openBlock` (its block is `snapshot.content[index]`). */
	private openToolCall(index: number): OpenToolCall {
		const open = typeof index === "number" ? this.blocks[index] : undefined;
		if (open?.kind === "toolCall") return open;
		throw this.notOpen(index, "toolCall");
	}

	/** Why `index` names no open block of `kind`: no block there, one of another kind, or one already ended. */
	private notOpen(index: number, kind: BlockKind): Error {
		this.blockAt(index, kind); // throws for the first two
		return new Error(`AssistantMessageBuilder: ${kind} block at index ${index} has already ended`);
	}
}

/** Arguments so far through the call's parser (made on first need); the empty stand-in until an object shows. */
function parsedArguments(open: OpenToolCall, delta: string): Record<string, unknown> {
	const parser = open.parser ?? startParser(open);
	parser.push(delta);
	return asArguments(parser.value) ?? open.empty;
}

/**
 * Rule E4: arguments that are not a JSON object leave `{}`, the problem and the model's exact text (kept only
 * on failure, for diagnosis and recovery). Out of `endToolCall`, which every call runs.
 */
function markBroken(toolCall: ToolCall, parsed: JsonParseResult, text: string): void {
	toolCall.argumentsError = parsed.ok
		? `Tool arguments must be a JSON object, got ${jsonKind(parsed.value)}`
		: `Invalid JSON in tool arguments: ${parsed.error}`;
	toolCall.argumentsText = text;
}

/** The call's parser, started from the whole-object delta read so far without one (not parsed again). */
function startParser(open: OpenToolCall): IncrementalJsonParser {
	const parser = new IncrementalJsonParser();
	if (open.whole) parser.pushWhole(open.text, open.whole);
	open.parser = parser;
	open.text = "";
	open.whole = undefined;
	return parser;
}

/** A text block with new text; a literal unless the block carries optional fields (see `withContent`). */
function textWith(block: TextContent, text: string): TextContent {
	return "signature" in block || "citations" in block ? { ...block, text } : { type: "text", text };
}

/** A thinking block with new text, as `textWith`. */
function thinkingWith(block: ThinkingContent, thinking: string): ThinkingContent {
	return "signature" in block ? { ...block, thinking } : { type: "thinking", thinking };
}

/**
 * A streaming tool call with new partial arguments, as a literal: a signature is its only optional field (and
 * always follows `arguments`); `argumentsError` and `argumentsText` come only with `toolcall_end`.
 */
function toolCallWith(block: ToolCall, args: Record<string, unknown>): ToolCall {
	const copy: ToolCall = { type: "toolCall", id: block.id, name: block.name, arguments: args };
	if ("signature" in block) copy.signature = block.signature as string;
	return copy;
}

function jsonKind(value: unknown): string {
	if (value === null) return "null";
	return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
