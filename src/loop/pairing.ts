import type { AgentMessage, AssistantMessage, ToolCall, ToolResultMessage } from "../core/messages.js";
import { placeholderResult } from "../tools/placeholders.js";

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

/** What {@link repairPairing} changed; indexes are those of the messages it was given. */
export interface PairingRepair {
	/** The transcript with every tool call paired (rule I1), but for a last batch left to resume. */
	messages: AgentMessage[];
	/** Tool results dropped: no call of the assistant message before them awaits them. */
	dropped: { index: number; toolCallId: string }[];
	/** Calls that got a `lost` placeholder result, with the index of the assistant message holding them. */
	placeholders: { index: number; call: ToolCall }[];
}

/**
 * Rule I1/I5 for a transcript that was not written by one run — one read back from a file that lost lines:
 * a tool result is kept only when it answers an unanswered call of the latest assistant message before it,
 * and a call left without a result gets a `lost` placeholder (rule A3) before the next user or assistant
 * message. The last assistant message's unanswered calls stay unanswered when `resumeLastBatch` is true: they
 * are the dangling batch a continued run executes (rule L6). Returns the messages themselves, by identity,
 * when nothing needed repair.
 */
export function repairPairing(
	messages: readonly AgentMessage[],
	options: { resumeLastBatch: boolean },
): PairingRepair {
	const out: AgentMessage[] = [];
	const repair: PairingRepair = { messages: out, dropped: [], placeholders: [] };
	let batch: { index: number; timestamp: number; open: Map<string, ToolCall> } | undefined;
	const closeBatch = () => {
		for (const call of batch?.open.values() ?? []) {
			repair.placeholders.push({ index: batch!.index, call });
			out.push(placeholderResult(call, "lost", batch!.timestamp));
		}
		batch = undefined;
	};
	messages.forEach((message, index) => {
		const role = (message as { role?: unknown }).role;
		if (role === "toolResult") {
			const id = (message as ToolResultMessage).toolCallId;
			if (!batch?.open.delete(id)) {
				repair.dropped.push({ index, toolCallId: String(id) });
				return;
			}
		} else if (role === "assistant" || role === "user") {
			closeBatch();
		}
		if (role === "assistant") {
			const assistant = message as AssistantMessage;
			const calls = Array.isArray(assistant.content) ? assistant.content.filter(isToolCall) : [];
			batch = { index, timestamp: assistant.timestamp, open: new Map(calls.map((call) => [call.id, call])) };
		}
		out.push(message);
	});
	if (!options.resumeLastBatch) closeBatch();
	const changed = repair.dropped.length > 0 || repair.placeholders.length > 0;
	return changed ? repair : { ...repair, messages: messages as AgentMessage[] };
}

function isToolCall(block: unknown): block is ToolCall {
	return (block as { type?: unknown } | null)?.type === "toolCall";
}
