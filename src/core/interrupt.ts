import type { AssistantMessage, ErrorKind } from "./messages.js";

/**
 * Rule A4: close a reply that ended in error or abort. Tool calls whose arguments never finished streaming
 * (their content index is not in `completedToolCalls`) are dropped; when content remains, `stopDetails.type`
 * becomes `stream_interrupted_after_content` and the original type is kept as `raw`. Returns a new message.
 * Calls are told apart by index, not id: a provider may repeat an id within one reply (rule I1).
 */
export function closeInterruptedMessage(
	partial: AssistantMessage,
	completedToolCalls: ReadonlySet<number>,
	reason: "error" | "aborted",
	errorMessage: string,
	errorKind?: ErrorKind,
): AssistantMessage {
	const content = partial.content.filter(
		(block, index) => block.type !== "toolCall" || completedToolCalls.has(index),
	);
	const message: AssistantMessage = {
		...partial,
		content: content.length === partial.content.length ? partial.content : content,
		stopReason: reason,
		errorMessage,
	};
	if (errorKind) message.errorKind = errorKind;
	else delete message.errorKind;
	if (content.length > 0) {
		const raw = partial.stopDetails?.type ?? partial.stopDetails?.raw;
		message.stopDetails = { type: "stream_interrupted_after_content", ...(raw ? { raw } : {}) };
	}
	return message;
}
