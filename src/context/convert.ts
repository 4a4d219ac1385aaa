import type { AgentMessage, AssistantMessage, Message } from "../core/messages.js";

/** SPEC S5/C3: a refused reply stays in the transcript for the host but is never replayed to the model. */
export function isRefusal(message: AssistantMessage): boolean {
	const type = message.stopDetails?.type;
	return type === "refusal" || type === "content_filter";
}

/**
 * SPEC C2: the default AgentMessage → Message conversion. Keeps `user`, `toolResult` and non-refused
 * `assistant` messages; custom roles are dropped (a host renders them by supplying its own converter).
 * Kept messages are passed through by identity, so providers' prefix caches see the same objects.
 */
export function defaultConvertToLlm(messages: readonly AgentMessage[]): Message[] {
	const out: Message[] = [];
	for (const message of messages) {
		const converted = convertOne(message);
		if (converted) out.push(converted);
	}
	return out;
}

/** One message through the default conversion; `undefined` when it is not sent. */
export function convertOne(message: AgentMessage): Message | undefined {
	const role = (message as { role?: unknown }).role;
	if (role === "user" || role === "toolResult") return message as Message;
	if (role === "assistant") return isRefusal(message as AssistantMessage) ? undefined : (message as Message);
	return undefined;
}
