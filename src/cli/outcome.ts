/**
 * How a run's end reads to the person at the terminal: an exit code and, unless it completed, one line
 * saying what went wrong and what to do — never a stack trace. The error kind travels as data on the last
 * assistant message, so nothing here matches provider error strings.
 */
import type { AgentMessage, AssistantMessage } from "../core/messages.js";
import type { AgentEvent } from "../protocol/events.js";

/** Exit codes of the command. */
export const EXIT = {
	ok: 0,
	/** The run ended in an error (provider failure, refusal, deadline). */
	runError: 1,
	/** Bad flags, settings or model choice. */
	usage: 2,
	/** Aborted by Ctrl-C / SIGINT / SIGTERM. */
	interrupted: 130,
} as const;

type AgentEnd = Extract<AgentEvent, { type: "agent_end" }>;

/** The exit code for a finished run. */
export function exitCodeFor(end: AgentEnd): number {
	switch (end.outcome.type) {
		case "completed":
			return EXIT.ok;
		case "aborted":
			return EXIT.interrupted;
		default:
			return EXIT.runError;
	}
}

/** The last assistant message of a run, if any. */
export function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as AssistantMessage;
		if (message.role === "assistant") return message;
	}
	return undefined;
}

function approvalList(pending: readonly { toolName: string; toolCallId: string }[]): string {
	return pending.map((p) => `${p.toolName} (${p.toolCallId})`).join(", ");
}

/** One line for a run that did not complete; undefined when it did. */
export function explainEnd(end: AgentEnd): string | undefined {
	const { outcome } = end;
	if (outcome.type === "completed") return undefined;
	if (outcome.type === "aborted") return `aborted: ${outcome.reason}`;
	if (outcome.type === "deadline") return "stopped: the deadline passed";
	if (outcome.type === "awaiting_approval") return `waiting for approval: ${approvalList(outcome.pending)}`;
	return adviceFor(end) ?? `error: ${lastAssistant(end.messages)?.errorMessage ?? outcome.error}`;
}

/**
 * What to do about a run that ended in an error of a kind with a remedy (a context overflow, a refused key, a
 * busy provider, an unreachable server), in one line that names the error; undefined for any other end, where
 * the error itself is all there is to say.
 */
export function adviceFor(end: AgentEnd): string | undefined {
	const { outcome } = end;
	if (outcome.type !== "error") return undefined;
	const reply = lastAssistant(end.messages);
	const detail = reply?.errorMessage ?? outcome.error;
	switch (reply?.errorKind) {
		case "context_overflow":
			return "the conversation no longer fits the model's context window: start over with /clear (interactive) or a new session (run without --continue/--resume), or pick a model with a larger window";
		case "auth":
			return `the provider refused the API key (${detail}): check the key in your environment`;
		case "rate_limit":
		case "overloaded":
			return `the provider is busy or rate-limiting (${detail}): retry in a moment`;
		case "network":
		case "timeout":
			return `cannot reach the model (${detail}): check the network or the --base-url server`;
		default:
			return undefined;
	}
}

/** The text of an assistant message (its text blocks, joined). */
export function assistantText(message: AssistantMessage | undefined): string {
	if (!message) return "";
	return message.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join("");
}
