import type { AgentMessage, AssistantMessage, ToolCall } from "../core/messages.js";

/** The last assistant message and its tool calls that have no result after it (SPEC T13, L6, I1). */
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
