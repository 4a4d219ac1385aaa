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

/** Waits on every Restate promise of one handler attempt through one race (see the module comment). */
export class RestateAwaiter {
	readonly #waiting = new Set<Waiter>();
	#driving = false;

	/** A plain promise of `promise`'s outcome, safe to await anywhere (also inside a `ctx.run` action). */
	wait<T>(promise: restate.RestatePromise<T>): Promise<T> {
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
			for (const waiter of this.#waiting) waiter.reject(error);
			this.#waiting.clear();
		} finally {
			this.#driving = false;
		}
	}
}

/** A `DurableJournal` over a Restate context: one `ctx.run` entry per step, named by the step's name. */
export function restateJournal(ctx: restate.Context, awaiter: RestateAwaiter): DurableJournal {
	return {
		run: <T>(name: string, fn: () => Promise<T>): Promise<T> => awaiter.wait(ctx.run<T>(name, fn)),
	};
}

/**
 * A `DurableInbox` over the conversation's inbox object. Each `take` is a Restate call, recorded in this
 * run's journal with its answer, so a replay after a crash reads the same messages at the same boundary.
 * Abort requests are taken only when aimed at this run (`invocationId`), so a stale one cannot end a later run.
 */
export function restateInbox(
	ctx: restate.ObjectContext,
	inbox: ConversationInbox,
	invocationId: string,
	awaiter: RestateAwaiter,
): DurableInbox {
	const client = ctx.objectClient(inbox, ctx.key);
	return {
		take: (topic: DurableTopic): Promise<unknown[]> =>
			awaiter.wait(client.take({ topic, invocationId }) as restate.RestatePromise<unknown[]>),
	};
}
