import type { AgentMessage, AssistantMessage, ToolCall } from "../core/messages.js";

/** The last assistant message and its tool calls that have no result after it (rule T13, L6, I1). */
export interface DanglingBatch {
	assistant: AssistantMessage;
	calls: ToolCall[];
}

/**
 * Find tool calls of the LAST assistant message that no later `toolResult` answers. Only the last assistant
 * message can dangle: the loop pairs every batch before it asks the model again.
 */
export function findDanglingBatch(messages: readonly AgentMessage[]): DanglingBatch | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as { role?: unknown };
		if (message.role !== "assistant") continue;
		const assistant = message as AssistantMessage;
		const answered = new Set<string>();
		for (let j = i + 1; j < messages.length; j++) {
			const later = messages[j] as { role?: unknown; toolCallId?: unknown };
			if (later.role === "toolResult" && typeof later.toolCallId === "string") answered.add(later.toolCallId);
		}
		const calls: ToolCall[] = [];
		for (const block of assistant.content) {
			if (block.type === "toolCall" && !answered.has(block.id)) calls.push(block);
		}
		return calls.length > 0 ? { assistant, calls } : undefined;
	}
	return undefined;
}

/**
 * Rule I1/T13 defence: a provider that repeats a tool call id within one reply would get two results with
 * the same id, which no provider accepts back. Later duplicates get a deterministic suffix (`<id>_2`, …) so
 * every call keeps exactly one result. Returns the message itself when all ids are distinct (the usual case).
 */
export function withUniqueToolCallIds(message: AssistantMessage): AssistantMessage {
	let seen: Set<string> | undefined;
	let duplicate = false;
	for (const block of message.content) {
		if (block.type !== "toolCall") continue;
		seen ??= new Set();
		if (seen.has(block.id)) duplicate = true;
		seen.add(block.id);
	}
	if (!duplicate || !seen) return message;
	const used = new Set<string>();
	const content = message.content.map((block) => {
		if (block.type !== "toolCall") return block;
		if (!used.has(block.id)) {
			used.add(block.id);
			return block;
		}
		let n = 2;
		while (used.has(`${block.id}_${n}`) || seen.has(`${block.id}_${n}`)) n++;
		const id = `${block.id}_${n}`;
		used.add(id);
		return { ...block, id };
	});
	return { ...message, content };
}
