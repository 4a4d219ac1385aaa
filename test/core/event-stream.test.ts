import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	claimDelivery,
	EventStream,
	releaseDelivery,
	releaseFailedDelivery,
} from "../../src/core/event-stream.js";
import { expectUnhandledRejections } from "../support/global-handlers.js";

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
	const items: T[] = [];
	for await (const item of stream) items.push(item);
	return items;
}

async function collectUntilThrow<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
	const items: T[] = [];
	try {
		for await (const item of stream) items.push(item);
	} catch (error) {
		return { items, error };
	}
	return { items, error: undefined };
}

/** Let pending microtasks and one macrotask turn run, so a missed wake-up shows as a still-pending promise. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("EventStream (SPEC E1)", () => {
	it("delivers events pushed before and while iterating, then ends", async () => {
		const stream = new EventStream<number, string>();
		stream.push(1);
		stream.push(2);
		const received = collect(stream);
		await settle();
		stream.push(3);
		stream.end("done");
		expect(await received).toEqual([1, 2, 3]);
		expect(await stream.result()).toBe("done");
		expect(stream.done).toBe(true);
	});

	it("ignores events pushed after the end, and a second end or fail", async () => {
		const stream = new EventStream<number, string>();
		stream.push(1);
		stream.end("first");
		stream.push(2);
		stream.end("second");
		stream.fail(new Error("late"));
		expect(await collect(stream)).toEqual([1]);
		expect(await stream.result()).toBe("first");
	});

	it("ignores events pushed after a failure", async () => {
		const stream = new EventStream<number, string>();
		stream.fail(new Error("boom"));
		stream.push(1);
		stream.end("late");
		const { items, error } = await collectUntilThrow(stream);
		expect(items).toEqual([]);
		expect(error).toEqual(new Error("boom"));
	});

	it("resolves result() with the end value, also when awaited before the end", async () => {
		const stream = new EventStream<number, { total: number }>();
		const result = stream.result();
		stream.end({ total: 3 });
		expect(await result).toEqual({ total: 3 });
	});

	it("keeps a falsy or undefined end value: only end() with no argument at all is an error", async () => {
		const stream = new EventStream<number, number | undefined>();
		stream.end(undefined);
		expect(await stream.result()).toBeUndefined();
		const zero = new EventStream<number, number>();
		zero.end(0);
		expect(await zero.result()).toBe(0);
	});

	it("on fail, the iterator delivers queued events first, then throws the failure", async () => {
		const stream = new EventStream<string, string>();
		stream.push("a");
		stream.push("b");
		const failure = new Error("provider dropped");
		stream.fail(failure);
		const { items, error } = await collectUntilThrow(stream);
		expect(items).toEqual(["a", "b"]);
		expect(error).toBe(failure);
		await expect(stream.result()).rejects.toBe(failure);
	});

	it("wakes a waiting iterator with the failure", async () => {
		const stream = new EventStream<string, string>();
		const pending = collectUntilThrow(stream);
		await settle();
		stream.push("a");
		await settle();
		stream.fail(new Error("late failure"));
		expect(await pending).toEqual({ items: ["a"], error: new Error("late failure") });
	});

	it("end() with no argument rejects result() with a clear error instead of hanging", async () => {
		const stream = new EventStream<number, string>();
		stream.push(1);
		stream.end();
		expect(await collect(stream)).toEqual([1]);
		await expect(stream.result()).rejects.toThrow(/ended without a result/);
	});

	it("serves several pending next() calls in order (none is lost)", async () => {
		const stream = new EventStream<number, string>();
		const iterator = stream[Symbol.asyncIterator]();
		const first = iterator.next();
		const second = iterator.next();
		const third = iterator.next();
		stream.push(1);
		stream.push(2);
		stream.end("x");
		await settle();
		expect(await first).toEqual({ value: 1, done: false });
		expect(await second).toEqual({ value: 2, done: false });
		expect(await third).toEqual({ value: undefined, done: true });
	});

	it("rejects every pending next() call on failure", async () => {
		const stream = new EventStream<number, string>();
		const iterator = stream[Symbol.asyncIterator]();
		const first = iterator.next();
		const second = iterator.next();
		stream.fail(new Error("x"));
		await expect(first).rejects.toThrow("x");
		await expect(second).rejects.toThrow("x");
	});

	it("drains 100,000 queued events in order (O(1) amortized queue)", async () => {
		const stream = new EventStream<number, number>();
		const count = 100_000;
		for (let i = 0; i < count; i++) stream.push(i);
		stream.end(count);
		let expected = 0;
		for await (const value of stream) {
			if (value !== expected) throw new Error(`out of order: got ${value}, expected ${expected}`);
			expected++;
			// Interleave pushes while draining: ignored after the end, must not disturb the order.
			if (value % 10_000 === 0) stream.push(-1);
		}
		expect(expected).toBe(count);
		expect(await stream.result()).toBe(count);
	});

	it("keeps order when pushes and reads interleave across the compaction threshold", async () => {
		const stream = new EventStream<number, void>();
		const seen: number[] = [];
		const reader = (async () => {
			for await (const value of stream) seen.push(value);
		})();
		let next = 0;
		for (let round = 0; round < 30; round++) {
			for (let i = 0; i < 700; i++) stream.push(next++);
			if (round % 3 === 0) await settle();
		}
		stream.end();
		await reader;
		expect(seen).toHaveLength(next);
		expect(seen.every((value, i) => value === i)).toBe(true);
	});

	it("return() (a consumer breaking out of for-await) leaves the stream and its result intact", async () => {
		const stream = new EventStream<number, string>();
		stream.push(1);
		stream.push(2);
		for await (const value of stream) if (value === 1) break;
		stream.end("ok");
		expect(await stream.result()).toBe("ok");
	});
});

describe("EventStream rejections are pre-handled (SPEC E1)", () => {
	const unhandled: unknown[] = [];
	const listener = (reason: unknown) => unhandled.push(reason);
	beforeEach(() => {
		unhandled.length = 0;
		process.on("unhandledRejection", listener);
	});
	afterEach(() => {
		process.off("unhandledRejection", listener);
	});

	it("a failed stream nobody awaits raises no unhandled rejection", async () => {
		const stream = new EventStream<number, string>();
		stream.fail(new Error("nobody listens"));
		const noResult = new EventStream<number, string>();
		noResult.end();
		// Unhandled rejections are reported after the microtask queue drains; give it two macrotask turns.
		await settle();
		await settle();
		expect(unhandled).toEqual([]);
		await expect(stream.result()).rejects.toThrow("nobody listens");
	});

	it("the listener would see a genuinely unhandled rejection (the check can fail)", async () => {
		expectUnhandledRejections(1); // on purpose: the suite's global leak check must not count it
		void Promise.reject(new Error("control"));
		await settle();
		await settle();
		expect(unhandled).toHaveLength(1);
	});
});

describe("EventStream.drain: synchronous consumption (SPEC E1)", () => {
	it("hands queued events over at once, then each push in the call that pushed it", async () => {
		const stream = new EventStream<number, string>();
		stream.push(1);
		stream.push(2);
		const seen: number[] = [];
		const drained = stream.drain((n) => seen.push(n));
		expect(seen).toEqual([1, 2]); // before drain() returned
		stream.push(3);
		expect(seen).toEqual([1, 2, 3]); // before push() returned: no microtask hop
		stream.end("done");
		await drained;
		expect(await stream.result()).toBe("done");
	});

	it("never re-enters the listener: an event pushed from inside it follows once it returns", async () => {
		const stream = new EventStream<string, void>();
		const log: string[] = [];
		const drained = stream.drain((event) => {
			log.push(`>${event}`);
			if (event === "a") {
				stream.push("b");
				stream.push("c");
				stream.end();
			}
			log.push(`<${event}`);
		});
		stream.push("a");
		expect(log).toEqual([">a", "<a", ">b", "<b", ">c", "<c"]);
		await drained;
	});

	it("calls an EventSink object's handleEvent with the sink as this", async () => {
		const stream = new EventStream<number, void>();
		const sink = {
			total: 0,
			handleEvent(n: number) {
				this.total += n;
			},
		};
		const drained = stream.drain(sink);
		stream.push(2);
		stream.push(5);
		stream.end();
		await drained;
		expect(sink.total).toBe(7);
	});

	it("after fail, delivers what was queued, then rejects with the failure", async () => {
		const stream = new EventStream<number, void>();
		const seen: number[] = [];
		const drained = stream.drain((n) => {
			seen.push(n);
			if (n === 1) {
				stream.push(2);
				stream.fail(new Error("broken"));
				stream.push(3); // after the end: ignored
			}
		});
		stream.push(1);
		await expect(drained).rejects.toThrow("broken");
		expect(seen).toEqual([1, 2]);
	});

	it("rejects with the listener's error and detaches it; a second drain is refused", async () => {
		const stream = new EventStream<number, void>();
		const seen: number[] = [];
		const drained = stream.drain((n) => {
			seen.push(n);
			throw new Error(`listener broke at ${n}`);
		});
		stream.push(1);
		stream.push(2);
		await expect(drained).rejects.toThrow("listener broke at 1");
		expect(seen).toEqual([1]);
		const again = new EventStream<number, void>();
		void again.drain(() => {});
		await expect(again.drain(() => {})).rejects.toThrow(/already drained/);
	});

	it("resolves at once for a stream that already ended", async () => {
		const stream = new EventStream<number, string>();
		stream.push(1);
		stream.end("r");
		const seen: number[] = [];
		await stream.drain((n) => seen.push(n));
		expect(seen).toEqual([1]);
	});
});

describe("EventStream direct delivery: a producer's own call into the drain (SPEC E1)", () => {
	/** What a producer does with `claimDelivery`: the same contract as `push`, the listener called here. */
	function deliver<T>(stream: EventStream<T, void>, event: T): "direct" | "pushed" {
		const sink = claimDelivery(stream);
		if (sink === undefined) {
			stream.push(event);
			return "pushed";
		}
		try {
			sink.handleEvent(event);
		} catch (error) {
			releaseFailedDelivery(stream, error);
			return "direct";
		}
		releaseDelivery(stream);
		return "direct";
	}

	it("hands out the sink only when push would call it at once", async () => {
		const stream = new EventStream<number, void>();
		expect(claimDelivery(stream)).toBeUndefined(); // not drained: events wait for a reader
		stream.push(1);
		const seen: number[] = [];
		let inside: unknown = "unset";
		const sink = {
			handleEvent(n: number) {
				seen.push(n);
				if (n === 2) inside = claimDelivery(stream); // inside the listener: never re-entered
			},
		};
		const drained = stream.drain(sink);
		expect(seen).toEqual([1]);
		expect(deliver(stream, 2)).toBe("direct");
		expect(inside).toBeUndefined();
		stream.end();
		expect(claimDelivery(stream)).toBeUndefined(); // ended
		await drained;
		expect(seen).toEqual([1, 2]);
	});

	it("keeps push's order: events pushed inside the listener follow it, then the end it reached", async () => {
		const stream = new EventStream<string, void>();
		const log: string[] = [];
		const drained = stream.drain((event) => {
			log.push(`>${event}`);
			if (event === "a") {
				expect(deliver(stream, "b")).toBe("pushed"); // queued: the listener is running
				stream.push("c");
				stream.end();
			}
			log.push(`<${event}`);
		});
		expect(deliver(stream, "a")).toBe("direct");
		expect(log).toEqual([">a", "<a", ">b", "<b", ">c", "<c"]);
		await drained;
	});

	it("a listener that throws is detached and the drain rejects with its error; later events wait", async () => {
		const stream = new EventStream<number, void>();
		const seen: number[] = [];
		const drained = stream.drain((n) => {
			seen.push(n);
			throw new Error(`listener broke at ${n}`);
		});
		expect(deliver(stream, 1)).toBe("direct");
		await expect(drained).rejects.toThrow("listener broke at 1");
		expect(deliver(stream, 2)).toBe("pushed");
		expect(seen).toEqual([1]);
		stream.end();
		const rest: number[] = [];
		for await (const n of stream) rest.push(n);
		expect(rest).toEqual([2]);
	});
});
