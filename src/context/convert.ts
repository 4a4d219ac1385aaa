import type { AgentMessage, AssistantMessage, Message, ToolResultMessage } from "../core/messages.js";

/** rule S5/C3: a refused reply stays in the transcript for the host but is never replayed to the model. */
export function isRefusal(message: AssistantMessage): boolean {
	const type = message.stopDetails?.type;
	return type === "refusal" || type === "content_filter";
}

/**
 * Rule C2: the default AgentMessage → Message conversion. Keeps `user`, `toolResult` and non-refused
 * `assistant` messages; custom roles are dropped (a host renders them by supplying its own converter).
 * Kept messages are passed through by identity, so providers' prefix caches see the same objects.
 */
export function defaultConvertToLlm(messages: readonly AgentMessage[]): Message[] {
	const unsentCalls = new Set<string>();
	const out: Message[] = [];
	for (const message of messages) {
		const converted = convertOne(message, unsentCalls);
		if (converted) out.push(converted);
	}
	return out;
}

/**
 * One message through the default conversion; `undefined` when it is not sent. A refused reply is not sent
 * (rule C3), and neither are the results pairing its tool calls (rule A3 placeholders): a tool result whose
 * call the provider never saw is rejected by every provider. `unsentCalls` carries the ids of those calls
 * from the reply to its results, across the calls of one conversion. It holds the latest reply's calls only:
 * results follow their own reply, and a later reply may use the same ids again (its results are sent).
 */
export function convertOne(message: AgentMessage, unsentCalls: Set<string>): Message | undefined {
	const role = (message as { role?: unknown }).role;
	if (role === "user") return message as Message;
	if (role === "toolResult") {
		return unsentCalls.size > 0 && unsentCalls.has((message as ToolResultMessage).toolCallId)
			? undefined
			: (message as Message);
	}
	if (role !== "assistant") return undefined;
	const assistant = message as AssistantMessage;
	if (unsentCalls.size > 0) unsentCalls.clear();
	if (!isRefusal(assistant)) return assistant;
	for (const block of assistant.content) if (block.type === "toolCall") unsentCalls.add(block.id);
	return undefined;
}
