import { convertOne } from "../context/convert.js";
import type { AgentMessage, Message } from "../core/messages.js";

/**
 * The run's incremental default conversion (rule C2): the wire messages of its transcript, kept so a long run
 * does not re-convert (or even copy) the whole transcript on every model call (bench W2 must stay flat).
 *
 * This is the one owner of that cache. It converts, it remembers which transcript messages it has seen, and
 * it takes the one in-place edit the transcript allows (a T4 write-back). Messages about to be injected are
 * converted ahead of the transcript and recognised by identity when they land in it; if the transcript ever
 * grows in another order, the log is rebuilt rather than trusted.
 */
export class WireLog {
	readonly #messages: Message[] = [];
	/** Ids of tool calls in replies the conversion did not send (refusals); their results are not sent either. */
	readonly #unsentCalls = new Set<string>();
	/** How many transcript messages are converted. */
	#seen = 0;
	/** Messages converted before they reached the transcript, in order. */
	#ahead: AgentMessage[] = [];

	/**
	 * The wire messages of `transcript` followed by `pending`. Returns the log itself, not a copy:
	 * `Context.messages` is valid for the call only (see `StreamFunction`).
	 */
	sync(transcript: readonly AgentMessage[], pending: readonly AgentMessage[]): Message[] {
		if (transcript.length < this.#seen) return this.#rebuild(transcript, pending);
		for (; this.#seen < transcript.length; this.#seen++) {
			const message = transcript[this.#seen] as AgentMessage;
			if (this.#ahead.length === 0) this.#append(message);
			else if (this.#ahead[0] === message) this.#ahead.shift();
			else return this.#rebuild(transcript, pending);
		}
		const ahead = this.#ahead;
		if (ahead.some((message, i) => pending[i] !== message)) return this.#rebuild(transcript, pending);
		for (let i = ahead.length; i < pending.length; i++) {
			const message = pending[i] as AgentMessage;
			this.#append(message);
			ahead.push(message);
		}
		return this.#messages;
	}

	/** rule T4: a reply already in the transcript was replaced; the log may hold the old object. */
	replace(previous: AgentMessage, next: AgentMessage): void {
		const index = this.#messages.lastIndexOf(previous as Message);
		if (index >= 0) this.#messages[index] = next as Message;
		const aheadIndex = this.#ahead.lastIndexOf(previous);
		if (aheadIndex >= 0) this.#ahead[aheadIndex] = next;
	}

	#append(message: AgentMessage): void {
		const converted = convertOne(message, this.#unsentCalls);
		if (converted) this.#messages.push(converted);
	}

	#rebuild(transcript: readonly AgentMessage[], pending: readonly AgentMessage[]): Message[] {
		this.#messages.length = 0;
		this.#unsentCalls.clear();
		this.#seen = 0;
		this.#ahead = [];
		return this.sync(transcript, pending);
	}
}
