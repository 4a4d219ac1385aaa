/** What every library adapter implements: run one conversation over the fake source, the library's way. */
import type { FakeSource } from "../source.js";
import type { BenchTool } from "../tools.js";

/** One conversation: the prompt "go", the tools, and the source that plays the model. */
export interface Conversation {
	source: FakeSource;
	tools: readonly BenchTool[];
	/** Upper bound on model calls, for libraries that need a turn limit set (their default is lower). */
	maxTurns: number;
	/** Called for every text delta the library hands its user (proves the stream reached the user). */
	onTextDelta?: () => void;
	/**
	 * Called for every event of the run, where the library's events are capstan's (capstan and the reference
	 * loop): the tests compare the two runs' events. Absent in every measured run.
	 */
	onEvent?: (event: { type: string; assistantMessageEvent?: { type: string } }) => void;
}

/** Runs a conversation to its end; rejects when the library reports the run failed. */
export type Driver = (conversation: Conversation) => Promise<void>;

/** The usage every adapter reports is the source's; zero cost (no pricing for a fake model). */
export const ZERO_COST = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
