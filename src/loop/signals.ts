import { abortReasonText, createFannedAbort, subscribeAbort } from "../core/abort.js";
import type { SteeringProbe } from "../tools/batch.js";
import type { SignalFacts, StopFacts } from "./outcome.js";
import type { RunState } from "./run-state.js";

/** The abort reason of a run that crossed its deadline (rule A7). */
export class DeadlineExceededError extends Error {
	/** Always `"DeadlineExceededError"`. */
	override readonly name = "DeadlineExceededError";
	constructor() {
		super("Deadline exceeded");
	}
}

/** The run's own signal: fires on external abort or when the deadline passes (rule A1, A7). */
export interface RunSignal {
	signal: AbortSignal;
	/**
	 * `signal.aborted` and `signal.reason`, as plain fields set just before the signal fires. The loop reads
	 * these on every event: Node 20 gives every `AbortSignal` its own hidden class, so reading a new run's
	 * signal makes each reading site polymorphic and deoptimizes the code around it.
	 */
	readonly aborted: boolean;
	readonly reason: unknown;
	/**
	 * Rule I4: rejects once the signal fires; shared by every host hook the run awaits (see `untilAborted`),
	 * built on first need. Kept here, on the run's own object, not in a `WeakMap` keyed by the signal: V8's
	 * young-generation collector keeps a weak map's values alive until the next full collection.
	 */
	abortWake: Promise<never> | undefined;
	dispose(): void;
}

/**
 * Rule A7: throws a `TypeError` for a `deadline` that is neither undefined nor a number of epoch ms. `NaN` (a
 * date string's `Date.parse` gone wrong, say) would end every run at once as `deadline`.
 */
export function checkDeadline(deadline: unknown, where: string): void {
	if (deadline === undefined || (typeof deadline === "number" && !Number.isNaN(deadline))) return;
	throw new TypeError(
		`${where}: deadline must be a time in epoch milliseconds, e.g. Date.now() + 60_000 (received ${typeof deadline === "number" ? "NaN" : typeof deadline})`,
	);
}

/** Combine the caller's signal and the deadline into one signal handed to providers and tools. */
export function createRunSignal(
	external: AbortSignal | undefined,
	deadline: number | undefined,
	now: () => number,
): RunSignal {
	// Rule A2: the loop's own listeners (one per model call and tool batch) are plain functions run right
	// after the signal fired, not event listeners (see `createFannedAbort`).
	const controller = createFannedAbort();
	let unsubscribeExternal: (() => void) | undefined;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const run = {
		signal: controller.signal,
		aborted: false,
		reason: undefined as unknown,
		abortWake: undefined as Promise<never> | undefined,
		dispose() {
			if (timer !== undefined) clearTimeout(timer);
			unsubscribeExternal?.();
		},
	};
	// The only way the run's controller fires: the fields are set first, so abort listeners read them too.
	const fire = (reason: unknown): void => {
		if (run.aborted) return;
		run.aborted = true;
		run.reason = reason;
		controller.abort(reason);
	};
	if (external) {
		if (external.aborted) fire(external.reason);
		// An `Agent`'s signal has a fan-out (see `createFannedAbort`): then no event listener per run.
		else unsubscribeExternal = subscribeAbort(external, () => fire(external.reason));
	}
	if (deadline !== undefined && !run.aborted) {
		// A timer longer than a 32-bit count of ms fires at once (Node warns and uses 1 ms): a deadline weeks
		// away would end the run immediately. Such a wait is taken in steps.
		const wait = (ms: number): void => {
			if (ms <= MAX_TIMER_MS) timer = setTimeout(() => fire(new DeadlineExceededError()), ms);
			else timer = setTimeout(() => wait(ms - MAX_TIMER_MS), MAX_TIMER_MS);
		};
		const remaining = deadline - now();
		if (remaining <= 0) fire(new DeadlineExceededError());
		else wait(remaining);
	}
	return run;
}

/** The longest delay `setTimeout` keeps (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Classify the run signal now: fired or not, by the deadline or not (the one place that tells them apart). */
export function signalFacts(state: RunState): SignalFacts {
	const { aborted, reason } = state.runSignal;
	return {
		aborted,
		deadlineAbort: aborted && reason instanceof DeadlineExceededError,
		abortReason: aborted ? abortReasonText(reason) : "",
	};
}

/** `signalFacts` plus the deadline by the injected clock (rule A7), read only when the deadline did not fire it. */
export function stopFacts(state: RunState): StopFacts {
	const { aborted, deadlineAbort, abortReason } = signalFacts(state);
	const { deadline } = state.config;
	// A literal, not a spread: this runs several times per turn.
	return {
		aborted,
		deadlineAbort,
		abortReason,
		deadlinePassed: deadlineAbort || (deadline !== undefined && state.now() >= deadline),
	};
}

/** rule T10: how the tool batch peeks the steering queue (never dequeues). */
export function steeringProbe(state: RunState): SteeringProbe | undefined {
	const { hasSteeringMessages, onSteeringQueued } = state.config;
	if (!hasSteeringMessages) return undefined;
	// One literal with both keys, not a key added when present: one hidden class for every batch's probe.
	return { peek: hasSteeringMessages, subscribe: onSteeringQueued };
}

/** Thrown when the run is aborted while a host hook is still pending; the run then ends as aborted. */
export class HookAbandonedError extends Error {
	override readonly name = "HookAbandonedError";
	constructor() {
		super("a host hook was still running when the run was aborted");
	}
}

/**
 * Rule I4: await a host hook, but never past an abort — hooks get no signal (or may ignore it), and a run must
 * end within bounded time after abort. The hook keeps running; its late result is ignored. Queue callbacks do
 * not go through here: what they dequeue must never be dropped (rule I3).
 */
export function untilAborted<T>(state: RunState, value: T | Promise<T>): T | Promise<T> {
	if (!(value instanceof Promise)) return value;
	const { signal, runSignal } = state;
	if (runSignal.aborted) return Promise.reject(new HookAbandonedError());
	let wake = runSignal.abortWake;
	if (!wake) {
		// One listener per run, shared by every hook the run awaits (rule A2's spirit).
		wake = new Promise<never>((_, reject) =>
			signal.addEventListener("abort", () => reject(new HookAbandonedError()), { once: true }),
		);
		wake.catch(() => {});
		runSignal.abortWake = wake;
	}
	return Promise.race([value, wake]);
}
