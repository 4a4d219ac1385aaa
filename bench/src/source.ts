/**
 * The one fake model every library is fed from: precomputed, library-neutral events (text deltas, tool-call
 * starts / argument deltas / ends, a finish with usage), yielded by an async generator — one microtask hop
 * per event, no I/O, no timers. Each adapter translates these events into its own library's model
 * interface, so what differs between libraries is only what the library itself does with them.
 */

/** One event of a model reply, in no library's vocabulary. */
export type NeutralEvent =
	| { type: "text-start" }
	| { type: "text-delta"; delta: string }
	| { type: "text-end" }
	| { type: "tool-start"; id: string; name: string }
	| { type: "tool-delta"; id: string; delta: string }
	| { type: "tool-end"; id: string }
	| { type: "finish"; reason: "stop" | "tool-use"; usage: { input: number; output: number } };

/** A whole reply: its events in order. */
export type Reply = readonly NeutralEvent[];

/** A reply of one text block streamed in the given deltas. */
export function textReply(deltas: readonly string[]): Reply {
	return [
		{ type: "text-start" },
		...deltas.map((delta): NeutralEvent => ({ type: "text-delta", delta })),
		{ type: "text-end" },
		{ type: "finish", reason: "stop", usage: { input: 10, output: deltas.length } },
	];
}

/** A call of one tool, its arguments' JSON text cut into deltas of `chunk` characters. */
export interface PlannedCall {
	id: string;
	name: string;
	argumentsJson: string;
}

/** A reply asking for the given tool calls, arguments streamed in `chunk`-character deltas. */
export function toolReply(calls: readonly PlannedCall[], chunk = 64): Reply {
	const events: NeutralEvent[] = [];
	for (const call of calls) {
		events.push({ type: "tool-start", id: call.id, name: call.name });
		for (let at = 0; at < call.argumentsJson.length; at += chunk)
			events.push({ type: "tool-delta", id: call.id, delta: call.argumentsJson.slice(at, at + chunk) });
		events.push({ type: "tool-end", id: call.id });
	}
	events.push({ type: "finish", reason: "tool-use", usage: { input: 10, output: 10 } });
	return events;
}

const FINAL_REPLY = textReply(["done"]);

/**
 * Serves the planned replies in order, one per model call, and stamps the time each call starts (the
 * per-turn clock, the same for every library). After the last planned reply — or once `budgetMs` has run
 * out — every further call gets a short final text reply, so a library that is too slow ends its run
 * cleanly and reports how far it got instead of being killed.
 */
export class FakeSource {
	/** `performance.now()` at the start of each model call. */
	readonly callStarts: number[] = [];
	private readonly startedAt = performance.now();
	/** True once the budget cut the plan short. */
	cutShort = false;

	/**
	 * @param budgetMs after this long, remaining planned replies are replaced by the final one.
	 * @param probe called every 256 events (the W1 heap sampler); not called when absent.
	 */
	constructor(
		private readonly replies: readonly Reply[],
		private readonly budgetMs = Number.POSITIVE_INFINITY,
		private readonly probe?: () => void,
	) {}

	/** Number of model calls served so far. */
	get calls(): number {
		return this.callStarts.length;
	}

	/** The next reply as an async stream of neutral events. */
	next(): AsyncGenerator<NeutralEvent> {
		const index = this.callStarts.length;
		const now = performance.now();
		this.callStarts.push(now);
		let reply = this.replies[index] ?? FINAL_REPLY;
		if (index < this.replies.length && now - this.startedAt > this.budgetMs) {
			this.cutShort = true;
			reply = FINAL_REPLY;
		}
		return this.probe ? probed(reply, this.probe) : replay(reply);
	}
}

async function* replay(events: Reply): AsyncGenerator<NeutralEvent> {
	for (const event of events) yield event;
}

async function* probed(events: Reply, probe: () => void): AsyncGenerator<NeutralEvent> {
	for (let i = 0; i < events.length; i++) {
		if ((i & 255) === 0) probe();
		yield events[i]!;
	}
	probe();
}
