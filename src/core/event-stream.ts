type Waiter<T> = {
	resolve: (step: IteratorResult<T, undefined>) => void;
	reject: (error: unknown) => void;
};

/**
 * A consumer for `EventStream.drain` in the shape of the DOM's `EventListener` object: a long-lived object
 * whose method is called per event. Unlike a closure made per stream, its method is one function for every
 * stream it drains, so the engine's optimized code for the delivery path survives from one stream to the next.
 */
export interface EventSink<T> {
	/** Called once per event, in order, never re-entrantly. */
	handleEvent(event: T): void;
}

/** The consumer attached by `drain`: its sink and how its promise settles. */
type Drain<T> = {
	sink: EventSink<T>;
	resolve: () => void;
	reject: (error: unknown) => void;
};

/**
 * Direct delivery, for the code that produces nearly every event of a drained stream (the message builder, the
 * loop's delta events): `claimDelivery(stream)` returns the drain's sink when `push` would call it at once —
 * drained, nothing queued, not inside the listener, not ended — and marks the listener as running; the caller
 * then calls `sink.handleEvent(event)` itself and, after it, `releaseDelivery(stream)`, or
 * `releaseFailedDelivery(stream, error)` when it threw. Otherwise it returns undefined and the caller pushes.
 * This is `push` with the call into the listener in the caller's own code: V8 keeps call-site feedback per
 * function, and through one shared `push` the calls of every stream into every kind of listener would be
 * one polymorphic site, while each producer's own site sees one kind of listener. Internal: not exported from the
 * package. Set by `EventStream`'s static block, which alone can reach the stream's private members.
 */
export let claimDelivery: <T, R>(stream: EventStream<T, R>) => EventSink<T> | undefined;
/** See `claimDelivery`: the listener returned. */
export let releaseDelivery: <T, R>(stream: EventStream<T, R>) => void;
/** See `claimDelivery`: the listener threw `error`. */
export let releaseFailedDelivery: <T, R>(stream: EventStream<T, R>, error: unknown) => void;

/**
 * Rule E1: a push-based async stream with a final result. Queue operations are O(1) amortized: events sit in
 * an array read through a head index, and the consumed prefix is dropped in one splice once it dominates,
 * so a backlog of 20,000 events never triggers 20,000 `Array.shift` moves. Meant for one consumer: two
 * iterators share (split) the events rather than each seeing all of them.
 */
export class EventStream<T, R> implements AsyncIterable<T> {
	private queue: T[] = [];
	private head = 0;
	// Pending `next()` calls, oldest first. Usually zero or one; a consumer may call `next()` again before the
	// previous promise settled, and every such call must be answered in order.
	private waiters: Waiter<T>[] = [];
	// Set by `drain`: events go straight to its listener instead of through the iterator's promises.
	private drainer: Drain<T> | undefined;
	// True while the drain listener runs: a push from inside it (a re-entrant one) is queued, not delivered
	// inside the running call, so the listener sees events one at a time and in order.
	private delivering = false;
	private finished = false;
	private failure: { error: unknown } | undefined;
	private readonly resultPromise: Promise<R>;
	private resolveResult!: (value: R) => void;
	private rejectResult!: (error: unknown) => void;

	constructor() {
		this.resultPromise = new Promise<R>((resolve, reject) => {
			this.resolveResult = resolve;
			this.rejectResult = reject;
		});
		// Pre-handled: a failed stream nobody awaits must not raise an unhandled-rejection warning.
		this.resultPromise.catch(() => {});
	}

	/** True once `end` or `fail` was called. */
	get done(): boolean {
		return this.finished;
	}

	/** Queue an event. Ignored after the stream ended. */
	push(event: T): void {
		if (this.finished) return;
		const sink = this.claim();
		if (sink === undefined) {
			this.enqueue(event);
			return;
		}
		try {
			sink.handleEvent(event);
		} catch (error) {
			this.releaseFailed(error);
			return;
		}
		this.release();
	}

	/**
	 * The drain's sink when an event may go to it at once — drained, nothing queued, not inside the listener,
	 * not ended — and then marks the listener as running; see `claimDelivery`.
	 */
	private claim(): EventSink<T> | undefined {
		const drainer = this.drainer;
		if (drainer === undefined || this.delivering || this.finished || this.head !== this.queue.length)
			return undefined;
		this.delivering = true;
		return drainer.sink;
	}

	/** The listener returned: hand on what it pushed meanwhile, or the end it reached. */
	private release(): void {
		this.delivering = false;
		if (this.head < this.queue.length || this.finished) this.deliver();
	}

	/** The listener threw: it is detached and the drain rejects with its error. */
	private releaseFailed(error: unknown): void {
		const drainer = this.drainer;
		this.delivering = false;
		this.drainer = undefined;
		drainer?.reject(error);
	}

	/** An event that cannot go to a listener now: queued behind the others, or handed to a waiting `next()`. */
	private enqueue(event: T): void {
		if (this.drainer) {
			this.queue.push(event);
			this.deliver();
			return;
		}
		const waiter = this.waiters.shift();
		if (waiter) waiter.resolve({ value: event, done: false });
		else this.queue.push(event);
	}

	/**
	 * End the stream. `result()` resolves with `result`; calling `end()` with no argument at all rejects it
	 * with a clear error instead of leaving it pending forever.
	 */
	end(...args: [result: R] | []): void {
		if (this.finished) return;
		this.finished = true;
		if (args.length === 0) this.rejectResult(new Error("EventStream ended without a result"));
		else this.resolveResult(args[0]);
		this.wakeAtEnd();
	}

	/** End the stream with a failure: queued events are still delivered, then the iterator throws. */
	fail(error: unknown): void {
		if (this.finished) return;
		this.finished = true;
		this.failure = { error };
		this.rejectResult(error);
		this.wakeAtEnd();
	}

	/** The final value; rejects if the stream failed or ended without a result. */
	result(): Promise<R> {
		return this.resultPromise;
	}

	/**
	 * Consume the stream synchronously: `listener` (a function, or an `EventSink`'s `handleEvent`) is called
	 * with each event as it is pushed (with the events already queued at once, before `drain` returns), in
	 * order and never re-entrantly — an event pushed from inside the listener is delivered right after the
	 * listener returns. This replaces `for await`,
	 * without a promise and a microtask hop per event; the stream still has one consumer, so do not iterate it
	 * as well. The returned promise resolves once the stream ended and every event was delivered, or rejects
	 * with the error given to `fail` (after the queued events) or with the first error the listener throws
	 * (the listener is then detached). `result()` is unaffected.
	 */
	drain(listener: ((event: T) => void) | EventSink<T>): Promise<void> {
		if (this.drainer) return Promise.reject(new Error("EventStream.drain: the stream is already drained"));
		const sink = typeof listener === "function" ? { handleEvent: listener } : listener;
		return new Promise<void>((resolve, reject) => {
			this.drainer = { sink, resolve, reject };
			this.deliver();
		});
	}

	private deliver(): void {
		const drainer = this.drainer;
		if (!drainer || this.delivering) return;
		this.delivering = true;
		try {
			while (this.head < this.queue.length) drainer.sink.handleEvent(this.take() as T);
		} catch (error) {
			this.drainer = undefined;
			drainer.reject(error);
			return;
		} finally {
			this.delivering = false;
		}
		if (!this.finished) return;
		this.drainer = undefined;
		if (this.failure) drainer.reject(this.failure.error);
		else drainer.resolve();
	}

	private wakeAtEnd(): void {
		this.deliver();
		const waiters = this.waiters;
		this.waiters = [];
		for (const waiter of waiters) {
			if (this.failure) waiter.reject(this.failure.error);
			else waiter.resolve({ value: undefined, done: true });
		}
	}

	private take(): T | undefined {
		const event = this.queue[this.head] as T;
		this.queue[this.head] = undefined as T;
		this.head++;
		if (this.head === this.queue.length) {
			this.queue.length = 0;
			this.head = 0;
		} else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
			this.queue.splice(0, this.head);
			this.head = 0;
		}
		return event;
	}

	/** Iterate the events with `for await`: queued ones first, then each as it is pushed (one consumer). */
	[Symbol.asyncIterator](): AsyncIterator<T, undefined> {
		return {
			next: (): Promise<IteratorResult<T, undefined>> => {
				if (this.head < this.queue.length) return Promise.resolve({ value: this.take() as T, done: false });
				if (this.failure) return Promise.reject(this.failure.error);
				if (this.finished) return Promise.resolve({ value: undefined, done: true });
				return new Promise((resolve, reject) => {
					this.waiters.push({ resolve, reject });
				});
			},
			return: (): Promise<IteratorResult<T, undefined>> => Promise.resolve({ value: undefined, done: true }),
		};
	}

	static {
		claimDelivery = (stream) => stream.claim();
		releaseDelivery = (stream) => stream.release();
		releaseFailedDelivery = (stream, error) => stream.releaseFailed(error);
	}
}
