/**
 * Rule L5: the loop owns what it emits and commits. A stream function may keep one message object and
 * mutate it as deltas arrive (many hand-written providers do); the loop therefore never emits or commits a
 * provider's object. It keeps its own snapshot per event by structural sharing — a new message object and
 * content array, a shallow copy of the block the event changed (strings are immutable, so a text block
 * copies in O(1)), every other block shared with the previous snapshot — and rebuilds streaming tool-call
 * arguments from the `toolcall_delta` deltas with its own incremental parser. The final message is copied
 * once (O(size) per reply). Streams marked by `markImmutableSnapshots` (capstan's builder-driven streams)
 * skip all of it: their snapshots already are immutable.
 *
 * Limits: a change a foreign provider makes to a block without an event for that block (e.g. a signature set
 * in place on an earlier block), and its top-level fields after the first event (usage, stop details, response
 * id), show in the loop's snapshots only from the final message on.
 */
import type { AssistantMessageEvent } from "../core/events.js";
import type { AssistantContent, AssistantMessage } from "../core/messages.js";
import { IncrementalJsonParser } from "../core/partial-json.js";
import { toPlainJson } from "../core/plain-json.js";

/** A content event: every event of a reply but the terminal `done`/`error`. */
export type ContentEvent = Exclude<AssistantMessageEvent, { type: "done" } | { type: "error" }>;

/** The loop's own snapshots of one reply. */
export class ReplySnapshots {
	private own: AssistantMessage | undefined;
	private top: AssistantMessage | undefined;
	private trusted: boolean | undefined;
	private readonly parsers = new Map<number, IncrementalJsonParser>();

	/** `isTrusted` is asked once, at the first event: a stream's snapshot guarantee holds for all of it. */
	constructor(private readonly isTrusted: () => boolean) {}

	/** The latest snapshot the loop owns, if any event arrived. */
	get current(): AssistantMessage | undefined {
		return this.own;
	}

	/** True once the first event showed the stream is capstan's own: `take` then hands its events on as they are. */
	get passesThrough(): boolean {
		return this.trusted === true;
	}

	/** What `take` does for an event of a stream that `passesThrough`, without asking again. */
	adopt(event: ContentEvent): void {
		this.own = event.partial;
	}

	/** Take a content event: returns the event to emit, whose `partial` and payloads the loop owns. */
	take(event: ContentEvent): ContentEvent {
		this.trusted ??= this.isTrusted();
		if (this.trusted) {
			this.own = event.partial;
			return event;
		}
		const source = event.partial;
		const previous = this.own?.content ?? [];
		const content = previous.slice(0, Math.min(previous.length, source.content.length));
		// The snapshot reaches as far as this event: a provider that runs ahead of its reader may already hold
		// later blocks in its live message, and those belong to later events. Blocks up to the event's own
		// (silent ones, such as provider blocks, included) are copied once; the event's own is re-copied below.
		const reach = event.type === "start" ? content.length : Math.max(content.length, event.contentIndex + 1);
		for (let i = content.length; i < Math.min(reach, source.content.length); i++)
			content[i] = this.copyBlock(source.content[i]);
		// Top-level fields as of the first event: a provider that runs ahead may already have written its final
		// usage and stop details into the live object; those arrive with the final message.
		this.top ??= withoutVerdict(copyTop(source, []));
		const own: AssistantMessage = { ...this.top, content };
		let emitted: ContentEvent = { ...event, partial: own };
		if (event.type !== "start" && event.contentIndex >= 0 && event.contentIndex < source.content.length) {
			const index = event.contentIndex;
			const block = this.changedBlock(event, content[index], source.content[index]);
			content[index] = block;
			if (event.type === "toolcall_delta" && block.type === "toolCall")
				emitted = { ...event, arguments: block.arguments, partial: own };
			else if (event.type === "toolcall_end" && block.type === "toolCall")
				emitted = { ...event, toolCall: block, partial: own };
		}
		this.own = own;
		return emitted;
	}

	/** The final message, copied once unless the stream is trusted (rule L5: nothing later can change it). */
	final(message: AssistantMessage): AssistantMessage {
		this.trusted ??= this.isTrusted();
		if (this.trusted) return message;
		const copy = toPlainJson(message);
		return copy !== null && typeof copy === "object" && !Array.isArray(copy)
			? (copy as unknown as AssistantMessage)
			: message;
	}

	private changedBlock(
		event: Exclude<ContentEvent, { type: "start" }>,
		mine: AssistantContent | undefined,
		source: AssistantContent | undefined,
	): AssistantContent {
		if (!source) return mine ?? { type: "text", text: "" };
		if (source.type !== "toolCall") return textLike(event, mine, source);
		const index = event.contentIndex;
		if (event.type === "toolcall_start") {
			this.parsers.set(index, new IncrementalJsonParser());
			return { ...source, arguments: {} };
		}
		if (event.type === "toolcall_end") {
			this.parsers.delete(index);
			return this.copyBlock(event.toolCall);
		}
		if (event.type === "toolcall_delta") {
			const parser = this.parsers.get(index) ?? new IncrementalJsonParser();
			this.parsers.set(index, parser);
			parser.push(event.delta);
			const value = parser.value;
			const args =
				value !== null && typeof value === "object" && !Array.isArray(value)
					? (value as Record<string, unknown>)
					: mine?.type === "toolCall"
						? mine.arguments
						: {};
			return { ...source, arguments: args };
		}
		return mine ?? this.copyBlock(source);
	}

	/** A block seen whole (new, or a finished tool call): a deep copy, once. */
	private copyBlock(block: AssistantContent | undefined): AssistantContent {
		if (!block) return { type: "text", text: "" };
		if (block.type === "text" || block.type === "thinking" || block.type === "redactedThinking")
			return copyFlat(block);
		return (toPlainJson(block) as unknown as AssistantContent) ?? { type: "text", text: "" };
	}
}

/**
 * A text or thinking block as of this event: grown from the loop's own previous block by the event's delta
 * (and set from `text_end`'s content), so the snapshot is what the event said even when the provider's live
 * object has moved on since; other fields (signature, citations) are copied from the provider's block.
 */
function textLike(
	event: Exclude<ContentEvent, { type: "start" }>,
	mine: AssistantContent | undefined,
	source: AssistantContent,
): AssistantContent {
	const block = copyFlat(source);
	if (block.type === "text") {
		const before = mine?.type === "text" && event.type !== "text_start" ? mine.text : "";
		if (event.type === "text_delta") block.text = before + event.delta;
		else if (event.type === "text_end") block.text = event.content;
		else block.text = before;
	} else if (block.type === "thinking") {
		const before = mine?.type === "thinking" && event.type !== "thinking_start" ? mine.thinking : "";
		if (event.type === "thinking_delta") block.thinking = before + event.delta;
		else if (event.type === "thinking_end") block.thinking = event.content;
		else block.thinking = before;
	}
	return block;
}

/** A text-like block: strings copy by reference; only `citations` is a nested array (copied shallowly). */
function copyFlat(block: AssistantContent): AssistantContent {
	if (block.type === "toolCall" || block.type === "providerBlock")
		return toPlainJson(block) as unknown as AssistantContent;
	if (block.type === "text" && block.citations) return { ...block, citations: block.citations.slice() };
	return { ...block };
}

/** A reply's verdict fields belong to its final message; a mid-stream snapshot never carries them. */
function withoutVerdict(message: AssistantMessage): AssistantMessage {
	const { stopDetails: _details, errorMessage: _message, errorKind: _kind, ...rest } = message;
	return rest;
}

/**
 * The message with the loop's own content: its nested records (usage, cost, stop details) copied, all O(1).
 * Spread first so every key keeps the provider's order (a transcript must not depend on who built it).
 */
function copyTop(source: AssistantMessage, content: AssistantContent[]): AssistantMessage {
	const copy: AssistantMessage = { ...source, content };
	if (source.usage) copy.usage = { ...source.usage, cost: { ...source.usage.cost } };
	if (source.stopDetails) copy.stopDetails = { ...source.stopDetails };
	return copy;
}
