/**
 * Reply guards: a check on every finished reply before the loop commits it. This is the hook through which a
 * provider quirk gets discard-and-retry (the Harmony leak guard of rule X4 is one, in `capstan/openai`)
 * while the loop knows only the generic protocol.
 */
import type { AssistantMessage } from "../core/messages.js";
import type { Model, StreamOptions } from "../core/model.js";

/** What to do with one finished reply. */
export type ReplyVerdict =
	/** Commit `message`: the reply itself or a repaired copy. */
	| { type: "commit"; message: AssistantMessage }
	/**
	 * Discard the reply and call the model again: `discarded` is closed for subscribers (`message_end` with
	 * `discarded: true`) and never added to the transcript.
	 */
	| { type: "retry"; discarded: AssistantMessage };

/**
 * Judges the replies of one model; it owns its retry policy (how many, and with which options). The loop
 * still stops after `MAX_REPLY_ATTEMPTS` (8) attempts per turn, committing the last discarded reply.
 */
export interface ReplyGuard {
	/**
	 * Judge a reply. `attempt` is 0 for the first reply of a turn and counts the replies discarded since. A
	 * reply ended by abort or error arrives here too; a guard should commit it (retrying cannot help).
	 */
	check(reply: AssistantMessage, attempt: number): ReplyVerdict;
	/** The stream options of retry `attempt` (≥ 1), from the turn's options. Default: unchanged. */
	retryOptions?(options: StreamOptions, attempt: number): StreamOptions;
}

/**
 * Chooses the guard for a run's model, once per run, before its first model call. `undefined`: replies are
 * committed as they are.
 */
export type ReplyGuardResolver = (model: Model) => ReplyGuard | undefined | Promise<ReplyGuard | undefined>;

/**
 * A guard that keeps asking for retries is cut off after this many attempts per turn: the last discarded reply
 * is committed, so a faulty guard cannot call the model forever.
 */
export const MAX_REPLY_ATTEMPTS = 8;
