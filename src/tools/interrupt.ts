/**
 * Rule T10: noticing a queued steering message while a batch runs. The watch only PEEKS (rule A6): dequeuing
 * is the loop's job at the next boundary (rule T12), so an abort in between never loses the message (I3).
 */

/** Read-only view of the steering queue, as the batch needs it. */
export interface SteeringProbe {
	/** True when a steering message is queued. Must not dequeue. */
	peek(): boolean;
	/** Event-driven wake-up: call `listener` when a message is queued; returns an unsubscribe function. */
	subscribe?(listener: () => void): () => void;
}

/** rule T10: poll interval while tools run, when the probe offers no `subscribe`. */
export const STEERING_INTERRUPT_POLL_MS = 250;

/**
 * A running watch over the steering queue for one batch: peek once at the start, then with `subscribe`
 * wake-ups are event-driven for the whole batch; otherwise a timer polls every `STEERING_INTERRUPT_POLL_MS`
 * while `shouldPoll()` holds (some tool is executing), so an idle batch owns no timer. Wake-ups are deferred
 * to a microtask: a host's `steer()` call must not run tool abort handlers synchronously inside itself. A
 * class, not closures: one object per batch instead of five functions made while the code is cold.
 */
export class SteeringWatch {
	private fired = false;
	private stopped = false;
	private timer: ReturnType<typeof setTimeout> | undefined = undefined;
	private readonly unsubscribe: (() => void) | undefined;

	constructor(
		private readonly probe: SteeringProbe,
		private readonly shouldPoll: () => boolean,
		private readonly onSteer: () => void,
	) {
		this.unsubscribe = subscribeSafely(probe, () => {
			void Promise.resolve().then(() => this.check());
		});
		// A message queued before the watch began (e.g. while the reply streamed) sends no wake-up, and a poll
		// would only see it after a whole interval: peek once now.
		this.check();
	}

	/** Peek now; calls `onSteer` (once per watch) if something is queued. */
	check(): void {
		if (this.fired || this.stopped) return;
		let queued: boolean;
		try {
			queued = this.probe.peek();
		} catch {
			// A probe that throws is treated as "nothing queued": a broken queue must not abort the user's tools.
			queued = false;
		}
		if (!queued) return;
		this.fired = true;
		this.clearTimer();
		this.onSteer();
	}

	/** Peek, then re-evaluate the poll timer: after each tool settles (rule T10) and on each poll. */
	recheck(): void {
		this.check();
		this.refresh();
	}

	/** Re-evaluate whether the poll timer should run (call after the set of running tools changed). */
	refresh(): void {
		if (this.unsubscribe || this.fired || this.stopped || this.timer !== undefined || !this.shouldPoll())
			return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.recheck();
		}, STEERING_INTERRUPT_POLL_MS);
	}

	/** Remove the listener and the timer. Idempotent. */
	stop(): void {
		if (this.stopped) return;
		this.stopped = true;
		this.clearTimer();
		try {
			this.unsubscribe?.();
		} catch {
			// The batch is over either way; a failing unsubscribe must not turn its result into a rejection.
		}
	}

	private clearTimer(): void {
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.timer = undefined;
	}
}

/** A `subscribe` that throws falls back to polling rather than failing the batch. */
function subscribeSafely(probe: SteeringProbe, listener: () => void): (() => void) | undefined {
	try {
		return probe.subscribe?.(listener);
	} catch {
		return undefined;
	}
}
