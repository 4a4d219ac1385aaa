/**
 * Reading a decoded `AssistantMessage` in the shapes the recording-facts extractors produce, so a conformance
 * test compares like with like: text and thinking concatenated, tool calls as `{id, name, arguments}`,
 * provider blocks as their raw data, usage as token counts without cost.
 */
import type { AssistantMessage, Usage } from "../../../src/core/messages.js";

/** A tool call as recordings and tests name it. */
export interface ToolCallFact {
	id: string;
	name: string;
	arguments: unknown;
}

/** Token counts as recordings report them: a message's usage without the derived `cost` and `priceUnknown`. */
export type TokenCounts = Omit<Usage, "cost" | "priceUnknown">;

/** The text of each text block, in order. */
export function textBlocksOf(message: AssistantMessage): string[] {
	return message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
}

/** The visible text of a message (all text blocks, in order). */
export function textOf(message: AssistantMessage): string {
	return textBlocksOf(message).join("");
}

/** The reasoning text of a message (all thinking blocks, in order). */
export function thinkingOf(message: AssistantMessage): string {
	return message.content.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join("");
}

/** Tool calls as `{id, name, arguments}`, in order. */
export function callsOf(message: AssistantMessage): ToolCallFact[] {
	return message.content.flatMap((block) =>
		block.type === "toolCall" ? [{ id: block.id, name: block.name, arguments: block.arguments }] : [],
	);
}

/** The raw `data` of each provider block, in order. */
export function providerDataOf(message: AssistantMessage): unknown[] {
	return message.content.flatMap((block) => (block.type === "providerBlock" ? [block.data] : []));
}

/** The usage counts of a message: everything but the derived `cost` and `priceUnknown`. */
export function tokenCountsOf(
	message: AssistantMessage,
): Omit<AssistantMessage["usage"], "cost" | "priceUnknown"> {
	const { cost: _cost, priceUnknown: _unknown, ...counts } = message.usage;
	return counts;
}
