/** Text for an abort reason (rule A5); `fallback` for a bare abort, which carries no text of its own. */
export function abortReasonText(reason: unknown, fallback = "Request was aborted"): string {
	if (typeof reason === "string" && reason.length > 0) return reason;
	if (reason instanceof Error && reason.name !== "AbortError" && reason.message.length > 0)
		return reason.message;
	return fallback;
}

/** The error message of a thrown value, for error results and error messages. */
export function errorText(error: unknown): string {
	if (error instanceof Error) return error.message || error.name;
	if (typeof error === "string") return error;
	try {
		return JSON.stringify(error) ?? String(error);
	} catch {
		return String(error);
	}
}

/**
 * The listeners `subscribeAbort` added to a signal made by `createFannedAbort`, kept on the signal itself under
 * a module-private key. Not in a `WeakMap` keyed by the signal: V8's young-generation collector keeps such an
 * entry's value, and through it the run, alive until the next full collection (see docs/performance.md).
 */
const FANOUT: unique symbol = Symbol("capstan.abortFanout");

type FannedSignal = AbortSignal & { [FANOUT]?: Set<() => void> };

/**
 * Call `listener` once when `signal` aborts; returns the unsubscribe. Listeners of a signal made by
 * `createFannedAbort` run after its event listeners, in subscription order among themselves.
 */
export function subscribeAbort(signal: AbortSignal, listener: () => void): () => void {
	const fanout = (signal as FannedSignal)[FANOUT];
	if (fanout) {
		fanout.add(listener);
		return () => fanout.delete(listener);
	}
	signal.addEventListener("abort", listener, { once: true });
	return () => signal.removeEventListener("abort", listener);
}

/** What `createFannedAbort` returns: an abort signal and the one way to fire it. */
export interface FannedAbort {
	readonly signal: AbortSignal;
	/** Fire the signal (once; later calls do nothing), then run the listeners `subscribeAbort` added. */
	abort(reason?: unknown): void;
}

/**
 * An abort controller with its own fan-out, for a signal the library creates and alone fires: the `Agent`'s
 * control of its run, and the run's own signal. `subscribeAbort` on it skips Node's event-target machinery:
 * Node 20 gives every `AbortSignal` its own hidden class, so `addEventListener` / `removeEventListener` on
 * each run's new signal, once per model call and tool batch, kept deoptimizing and cost more than the work
 * (rule A2: still one listener per stream, now a plain function run right after `abort()`).
 */
export function createFannedAbort(): FannedAbort {
	const controller = new AbortController();
	const listeners = new Set<() => void>();
	(controller.signal as FannedSignal)[FANOUT] = listeners;
	return {
		signal: controller.signal,
		abort(reason?: unknown): void {
			if (controller.signal.aborted) return;
			controller.abort(reason);
			for (const listener of listeners) listener();
			listeners.clear();
		},
	};
}
