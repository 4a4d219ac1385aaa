/**
 * What a durable-execution engine gives the engine-neutral core (`capstan/durable`): a journal of steps and a
 * replay-stable inbox. DBOS, Restate or a host's own engine implement these two; everything else is shared.
 */

/**
 * A journaled step. `fn` runs at most once per `name` to completion: once its result is recorded, every later
 * `run` with that name (in this attempt or a replay after a crash) returns the recorded JSON result without
 * calling `fn`. A crash between the start of `fn` and the record makes a replay call `fn` again — the core
 * turns that into each tool's idempotency rule. Names are unique within a run and used in the same order on
 * every attempt (the loop's step ids are stable: the tool call id, `model:<n>`; a tool call id repeated in a
 * later turn is named `<id>#2`, `<id>#3`, …).
 *
 * The core's `fn` records a step's own failure as its value, so an error `run` throws is the engine's own (a
 * lost connection, a cancel, a refused write): the run stops and the workflow body rejects with it, untouched
 * (docs/durable.md, host rule 8). `fn` throws only to pass such an error on (a start marker that could not be
 * written, an attempt the engine ended while the step ran: `DurableEngine.attemptEnded`); an engine should not
 * record that error as the step's result.
 */
export interface DurableJournal {
	/** Run `fn` as the step `name`, or return its recorded result. */
	run<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** The durable queues a running workflow reads: steering, follow-ups, and the abort request. */
export type DurableTopic = "steer" | "followUp" | "abort";

/**
 * Messages sent to a running workflow from any process, read at deterministic points of the run (the loop's
 * turn boundaries). `take` must be replay-stable: a replay gets exactly what the first attempt got at the same
 * read (DBOS: `DBOS.recv`, which the engine checkpoints; Restate: state read in the handler).
 */
export interface DurableInbox {
	/** Every message queued on `topic` since the previous `take` of that topic, oldest first (may be empty). */
	take(topic: DurableTopic): Promise<unknown[]>;
}
