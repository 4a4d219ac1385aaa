/**
 * The durable core's two engine interfaces over a Restate handler context: the journal is `ctx.run` (a step's
 * result is recorded by the server before it is handed back, and a replay returns the record without calling
 * the step), and the inbox is a journaled call to the conversation's inbox object.
 *
 * Restate's SDK lets a handler await one Restate promise at a time: two awaited at once (two tools running
 * concurrently, or a step that waits for its own start marker from inside its `ctx.run`) fail with "awaitNext
 * already pending". So every Restate promise of a run goes through one `RestateAwaiter`, which waits on all of
 * them with a single `RestatePromise.race` and hands each result to its caller as a plain promise. Commands
 * are still issued at call time, in call order, which is what Restate's replay matches.
 */
import * as restate from "@restatedev/restate-sdk";
import type { DurableInbox, DurableJournal, DurableTopic } from "../durable/journal.js";
import type { ConversationInbox } from "./inbox.js";

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Waiter {
	promise: restate.RestatePromise<unknown>;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/**
 * Waits on every Restate promise of one handler attempt through one race (see the module comment), and so is
 * the first to learn that the attempt is over: `ended` then fires.
 */
export class RestateAwaiter {
	readonly #waiting = new Set<Waiter>();
	#driving = false;
	/** Why the attempt is over (cancelled, suspended, aborted by the SDK), once it is. */
	#over: { error: unknown } | undefined;
	readonly #ended = new AbortController();

	/**
	 * Fires, with the error that ended the attempt as its reason, once the attempt is over: a wait met
	 * Restate's cancel (or a suspension), or `end` was called. The run's `DurableEngine.attemptEnded`: it
	 * aborts the model call and tools still running, which would otherwise go on after the attempt.
	 */
	get ended(): AbortSignal {
		return this.#ended.signal;
	}

	/**
	 * The attempt is over for a reason no wait saw (Restate closed its connection): every wait fails with
	 * `error` from now on, and `ended` fires. Only the first reason counts.
	 */
	end(error: unknown): void {
		if (this.#over) return;
		this.#over = { error };
		for (const waiter of this.#waiting) waiter.reject(error);
		this.#waiting.clear();
		this.#ended.abort(error);
	}

	/**
	 * A plain promise of `promise`'s outcome, safe to await anywhere (also inside a `ctx.run` action). Once the
	 * attempt is over, every wait fails with the error that ended it: Restate delivers a cancellation to one
	 * await only, and a run that went on would call the model and start new tools after its cancel.
	 */
	wait<T>(promise: restate.RestatePromise<T>): Promise<T> {
		if (this.#over) return Promise.reject(this.#over.error);
		return new Promise<T>((resolve, reject) => {
			this.#waiting.add({ promise, resolve: resolve as (value: unknown) => void, reject });
			void this.#drive();
		});
	}

	async #drive(): Promise<void> {
		if (this.#driving) return;
		this.#driving = true;
		try {
			// Commands issued in the same tick (a batch of tools) join the first race.
			await Promise.resolve();
			while (this.#waiting.size > 0) {
				const waiters = [...this.#waiting];
				const tagged = waiters.map((waiter, index) =>
					waiter.promise.map((value, failure): [number, Settled] =>
						failure === undefined ? [index, { ok: true, value }] : [index, { ok: false, error: failure }],
					),
				);
				const [index, settled] = await restate.RestatePromise.race(tagged);
				const waiter = waiters[index] as Waiter;
				this.#waiting.delete(waiter);
				if (settled.ok) waiter.resolve(settled.value);
				else waiter.reject(settled.error);
			}
		} catch (error) {
			// The attempt is over (suspended, cancelled or aborted by the SDK): nothing waiting can complete in it.
			this.end(error);
		} finally {
			this.#driving = false;
		}
	}

	/** Throw the error that ended the attempt, if one did: the handler must fail with it, writing nothing. */
	throwIfOver(): void {
		if (this.#over) throw this.#over.error;
	}
}

/**
 * A `DurableJournal` over a Restate context: one `ctx.run` entry per step, named by the step's name.
 *
 * The core's `fn` throws only to pass an engine failure on (a tool whose start marker met the cancel that
 * ended the attempt, a step that was running when the attempt ended and was aborted for it), and such an
 * error must not become the step's record (`DurableJournal`). Restate records
 * a `TerminalError` thrown in a `ctx.run` action as the entry's result, and a cancel is one
 * (`CancelledError`, 409): the tool's entry would say it failed with "Cancelled", though it never ran. Any
 * other error would end the attempt as a retryable failure instead of the error the core passes on. So the
 * action hands the error to the step, which rejects with it as itself, and never settles: Restate gets no
 * result for the entry, exactly as if the attempt had ended while the step ran, and the handler fails with
 * the error the core rejects with (rule 8).
 */
export function restateJournal(ctx: restate.Context, awaiter: RestateAwaiter): DurableJournal {
	return {
		run: <T>(name: string, fn: () => Promise<T>): Promise<T> =>
			new Promise<T>((resolve, reject) => {
				const entry = ctx.run<T>(name, async () => {
					try {
						return await fn();
					} catch (error) {
						reject(error);
						return new Promise<T>(() => {});
					}
				});
				awaiter.wait(entry).then(resolve, reject);
			}),
	};
}

/** A `DurableInbox` that can hand back what it took but the run never asked for (see `restateInbox`). */
export interface RestateRunInbox extends DurableInbox {
	/** Steering taken at a boundary and not read by the run (it stopped first): to requeue when the run ends. */
	unreadSteering(): unknown[];
}

/**
 * A `DurableInbox` over the conversation's inbox object. Each read is a Restate call, recorded in this run's
 * journal with its answer, so a replay after a crash reads the same messages at the same boundary. Abort
 * requests are taken only when aimed at this run (`invocationId`), so a stale one cannot end a later run.
 *
 * The core reads a boundary as `take("abort")` then, unless that aborted the run, `take("steer")`: one
 * `boundary` call answers both, and the steering it returns is held for the `take("steer")` that follows.
 * What the run never asks for (it stopped at that boundary, say by its deadline) is handed back by
 * `unreadSteering` and requeued when the run ends. The held messages come from journaled answers, so a
 * replay holds the same ones. A cancelled (or killed) run's steering and follow-ups, read or not, are given
 * back by the inbox object itself, which notes what it hands each run (inbox.ts).
 */
export function restateInbox(
	ctx: restate.ObjectContext,
	inbox: ConversationInbox,
	invocationId: string,
	awaiter: RestateAwaiter,
): RestateRunInbox {
	const client = ctx.objectClient(inbox, ctx.key);
	let held: unknown[] | undefined;
	return {
		async take(topic: DurableTopic): Promise<unknown[]> {
			if (topic === "abort") {
				const read = await awaiter.wait(
					client.boundary({ invocationId }) as restate.RestatePromise<{ abort: unknown[]; steer: unknown[] }>,
				);
				held = [...(held ?? []), ...read.steer];
				return read.abort;
			}
			if (topic === "steer" && held !== undefined) {
				const steering = held;
				held = undefined;
				return steering;
			}
			return awaiter.wait(client.take({ topic, invocationId }) as restate.RestatePromise<unknown[]>);
		},
		unreadSteering: () => held ?? [],
	};
}
