import type { Agent, AgentEvent, AgentMessage, AssistantMessage } from "../index.js";
import type { SessionFile } from "./file.js";
import { visible } from "./format.js";

/**
 * Mirror an Agent's transcript into a session file: each message is appended the moment its `message_end`
 * fires (a discarded reply is not, rule X4), and a reply whose tool arguments `beforeToolCall` revised is
 * revised in the file too, so the file always reads back as `agent.state.messages`. Messages the agent
 * already has beyond what the file holds are written first. Returns the unsubscribe function. Only what
 * reaches the agent's transcript is written: not the closing messages of a run `agent.reset()` cut short.
 * Once the transcript no longer continues the file (`agent.reset()`, `agent.replaceMessages()` with other
 * messages), the recording ends and the file keeps the conversation it holds: start a new file.
 *
 * A file that does not hold the start of the agent's transcript (it has more messages than the agent, or one
 * of its messages is not the agent's message at that index: an opened file of another conversation, or of
 * this one edited) is refused before anything is written: the error goes to `options.onError`, or without
 * one is thrown from here. The whole prefix is compared ({@link SessionFile.firstDifference}): once here, and
 * again only when the agent's transcript was replaced; each message written costs only itself.
 *
 * A write that fails (a full disk) ends the recording: the file keeps every message before it, and the error
 * goes to `options.onError` once — by default it is thrown from the subscriber, so the `Agent` reports it
 * (`onSubscriberError`) once, not for every message after it.
 */
export function recordSession(
	agent: Agent,
	file: SessionFile,
	options: RecordSessionOptions = {},
): () => void {
	const existing = agent.state.messages;
	const foreign = foreignFile(existing, file);
	if (foreign !== undefined) {
		const error = new Error(
			`Cannot record into session ${visible(file.path)}: it does not hold this agent's conversation (${foreign}). The file is left as it is; record the agent into a new session file.`,
		);
		if (!options.onError) throw error;
		options.onError(error);
		return () => {};
	}
	for (const message of existing.slice(file.messageCount)) file.append(message);
	/**
	 * The last assistant reply written and its index, to notice its revision at `turn_end`. It starts as the
	 * transcript's own last reply (the file's message i is the agent's message i): a batch that reply left
	 * without results runs on `continue()` (rule L6), and `beforeToolCall` may revise it there (rule T4).
	 */
	let lastReply: { message: AgentMessage; index: number } | undefined;
	for (let i = existing.length - 1; i >= 0 && lastReply === undefined; i--)
		if ((existing[i] as { role?: unknown }).role === "assistant")
			lastReply = { message: existing[i] as AgentMessage, index: i };
	/** The transcript array the file continues: the Agent swaps it on `reset()` and `replaceMessages()`. */
	let recorded = existing;
	let unsubscribe: (() => void) | undefined;
	let failed = false;
	/** End the recording: the file keeps what it holds. */
	const stop = (): void => {
		failed = true;
		unsubscribe?.();
	};
	const record = (event: AgentEvent): void => {
		const transcript = agent.state.messages;
		if (event.type === "message_end" && !event.discarded) {
			// The Agent has already added a message of its transcript; one it did not add is not written.
			if (transcript[transcript.length - 1] !== event.message) return;
			// Reset, replaced, or already written by another recorder of this file: not the file's conversation.
			if (
				transcript.length !== file.messageCount + 1 ||
				(transcript !== recorded && foreignFile(transcript, file) !== undefined)
			) {
				stop();
				return;
			}
			recorded = transcript;
			if ((event.message as { role?: unknown }).role === "assistant") {
				lastReply = { message: event.message, index: file.messageCount };
			}
			file.append(event.message);
		} else if (event.type === "turn_end" && lastReply && event.message !== lastReply.message) {
			if (
				transcript[lastReply.index] === event.message &&
				sameToolCalls(lastReply.message as AssistantMessage, event.message)
			) {
				file.revise(lastReply.index, event.message);
				lastReply = { message: event.message, index: lastReply.index };
			}
		}
	};
	unsubscribe = agent.subscribe((event) => {
		if (failed) return;
		try {
			record(event);
		} catch (error) {
			stop();
			if (!options.onError) throw error;
			options.onError(error);
		}
	});
	return unsubscribe;
}

/** Options of {@link recordSession}. */
export interface RecordSessionOptions {
	/** Called once with the error that ended the recording (a failed write); default: thrown to the `Agent`. */
	onError?: (error: unknown) => void;
}

/**
 * Why `file` does not hold the start of `transcript`, or undefined when it may: the agent must have at least
 * the file's messages, each the same (as JSON, what the file holds) as the file's message at its index.
 */
function foreignFile(transcript: readonly AgentMessage[], file: SessionFile): string | undefined {
	const count = file.messageCount;
	if (count === 0) return undefined;
	if (transcript.length < count) return `it holds ${count} messages, the agent ${transcript.length}`;
	const index = file.firstDifference?.(transcript);
	return index === undefined ? undefined : `its message ${index} is not the agent's message ${index}`;
}

/** The Agent's own test for "the same reply, revised": the same tool call ids (rule T4). */
function sameToolCalls(a: AssistantMessage, b: AssistantMessage): boolean {
	const ids = (m: AssistantMessage) =>
		m.content
			.filter((c) => c.type === "toolCall")
			.map((c) => (c as { id: string }).id)
			.join("\u0000");
	return ids(a) !== "" && ids(a) === ids(b);
}
