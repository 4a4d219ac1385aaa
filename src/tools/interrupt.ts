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

/** A running watch over the steering queue for one batch. */
export interface SteeringWatch {
	/** Peek now; calls `onSteer` (once per watch) if something is queued. */
	check(): void;
	/** Re-evaluate whether the poll timer should run (call after the set of running tools changed). */
	refresh(): void;
	/** Remove the listener and the timer. Idempotent. */
	stop(): void;
}

/**
 * Watch the steering queue: peek once at the start, then with `subscribe` wake-ups are event-driven for the
 * whole batch; otherwise a
 * timer polls every `STEERING_INTERRUPT_POLL_MS` while `shouldPoll()` holds (some tool is executing), so an
 * idle batch owns no timer. Wake-ups are deferred to a microtask: a host's `steer()` call must not run tool
 * abort handlers synchronously inside itself.
 */
export function watchSteering(
	probe: SteeringProbe,
	shouldPoll: () => boolean,
	onSteer: () => void,
): SteeringWatch {
	let fired = false;
	let stopped = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const check = (): void => {
		if (fired || stopped || !peekSafely(probe)) return;
		fired = true;
		clearTimer();
		onSteer();
	};
	const clearTimer = (): void => {
		if (timer !== undefined) clearTimeout(timer);
		timer = undefined;
	};
	const unsubscribe = subscribeSafely(probe, () => {
		void Promise.resolve().then(check);
	});
	// A message queued before the watch began (e.g. while the reply streamed) sends no wake-up, and a poll
	// would only see it after a whole interval: peek once now.
	check();
	const refresh = (): void => {
		if (unsubscribe || fired || stopped || timer !== undefined || !shouldPoll()) return;
		timer = setTimeout(() => {
			timer = undefined;
			check();
			refresh();
		}, STEERING_INTERRUPT_POLL_MS);
	};
	return {
		check,
		refresh,
		stop() {
			if (stopped) return;
			stopped = true;
			clearTimer();
			try {
				unsubscribe?.();
			} catch {
				// The batch is over either way; a failing unsubscribe must not turn its result into a rejection.
			}
		},
	};
}

/** A `subscribe` that throws falls back to polling rather than failing the batch. */
function subscribeSafely(probe: SteeringProbe, listener: () => void): (() => void) | undefined {
	try {
		return probe.subscribe?.(listener);
	} catch {
		return undefined;
	}
}

/** A probe that throws is treated as "nothing queued": a broken queue must not abort the user's tools. */
function peekSafely(probe: SteeringProbe): boolean {
	try {
		return probe.peek();
	} catch {
		return false;
	}
}
