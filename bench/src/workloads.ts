/**
 * W1–W4: what one repetition of each workload does and measures, for any driver. Each function plans the
 * replies, runs one conversation and checks it really happened (deltas seen, tools run) before returning
 * its figures, so a library that silently skips work cannot look fast.
 */
import { getHeapStatistics } from "node:v8";
import type { Driver } from "./adapters/types.js";
import { FakeSource, type PlannedCall, type Reply, textReply, toolReply } from "./source.js";
import { median } from "./stats.js";
import type { BenchTool } from "./tools.js";

/** Figures of one repetition (which ones depends on the workload). */
export type Figures = Record<string, number>;

/**
 * A repetition's figures renamed for the run after it (`{ ms, firstToolMs }` → `{ nextMs, nextFirstToolMs }`),
 * to sit beside the figures of the repetition they followed.
 */
export function asNext(figures: Figures): Figures {
	return Object.fromEntries(
		Object.entries(figures).map(([key, value]) => [`next${key[0]!.toUpperCase()}${key.slice(1)}`, value]),
	);
}

function check(condition: boolean, message: string): void {
	if (!condition) throw new Error(message);
}

/**
 * Every workload's planned replies, built outside the measured runs (`holdReplies`) and shared by every run of
 * that size: they are read-only. Built inside a measured run, they left the harness's own garbage (W1: 20,000
 * event objects and their arrays) and its own compiling (V8 optimizing the loops that build them) inside the
 * measured window — the floor's figure most of all, since it has the least work of its own.
 */
const planned = new Map<string, readonly Reply[]>();

const plannedKey = (workload: string, size: number) => `${workload}:${size}`;

function plannedReplies(workload: string, size: number, make: () => Reply[]): readonly Reply[] {
	const key = plannedKey(workload, size);
	let replies = planned.get(key);
	if (!replies) {
		replies = make();
		planned.set(key, replies);
	}
	return replies;
}

const W3_WRAPPER = `{"data":""}`.length;

const w1Replies = (deltas: number) =>
	plannedReplies("W1", deltas, () => [textReply(Array.from({ length: deltas }, () => "abcd"))]);
const w2Replies = (turns: number) =>
	plannedReplies("W2", turns, () =>
		Array.from({ length: turns }, (_, i) =>
			toolReply([{ id: `call_${i}`, name: "echo", argumentsJson: `{"value":"v${i}"}` }]),
		),
	);
const w3Replies = (bytes: number) =>
	plannedReplies("W3", bytes, () => {
		const argumentsJson = `{"data":"${"x".repeat(bytes - W3_WRAPPER)}"}`;
		return [toolReply([{ id: "call_big", name: "write", argumentsJson }], 64)];
	});
/**
 * W4's size is the number of tool calls in its reply; 0, what the bench passes, is the workload as specified
 * (`W4_CALLS`). Other counts are for measuring how W4's figure depends on them (`worker.js --size`,
 * `bench:instructions --calls`).
 */
export const W4_CALLS = 8;
const w4Calls = (size: number) => size || W4_CALLS;
const w4Replies = (size: number) =>
	plannedReplies("W4", size, () => {
		const calls: PlannedCall[] = Array.from({ length: w4Calls(size) }, (_, i) => ({
			id: `call_${i}`,
			name: "wait",
			argumentsJson: `{"ms":100}`,
		}));
		return [toolReply(calls)];
	});

const REPLIES_OF: Record<string, (size: number) => readonly Reply[]> = {
	W1: w1Replies,
	W2: w2Replies,
	W3: w3Replies,
	W4: w4Replies,
};

/**
 * Build the replies of `workload` at these sizes now, outside any measured run, and let go of every other
 * size's: W3's sizes run one after another in one process, and holding all of them (3.5 MB) made the
 * garbage collector of a library that copies its arguments on every delta slower for the size being measured.
 */
export function holdReplies(workload: string, sizes: readonly number[]): void {
	const keep = new Set(sizes.map((size) => plannedKey(workload, size)));
	for (const key of planned.keys()) if (!keep.has(key)) planned.delete(key);
	for (const size of sizes) REPLIES_OF[workload]?.(size);
}

// The W1 heap sampler: one function for every run. A closure per run is a new call target each time, and V8
// then deoptimizes the source's generator, which calls it, in the middle of the measured run.
const heap = { peak: 0 };
function sampleHeap(): void {
	const used = getHeapStatistics().used_heap_size;
	if (used > heap.peak) heap.peak = used;
}

/** W1: one reply of `deltas` text deltas of 4 characters; ms to the end of the run and peak heap growth. */
export async function w1(driver: Driver, deltas: number): Promise<Figures> {
	const replies = w1Replies(deltas);
	const base = getHeapStatistics().used_heap_size;
	heap.peak = base;
	const source = new FakeSource(replies, Number.POSITIVE_INFINITY, sampleHeap);
	let seen = 0;
	const start = performance.now();
	await driver({ source, tools: [], maxTurns: 2, onTextDelta: () => seen++ });
	const ms = performance.now() - start;
	check(seen === deltas, `W1: the user saw ${seen} of ${deltas} text deltas`);
	return { ms, heapMb: (heap.peak - base) / 2 ** 20 };
}

const echo = (counter: { calls: number }): BenchTool => ({
	name: "echo",
	description: "Echo a value back",
	fields: { value: "string" },
	run: async (args) => {
		counter.calls++;
		return `ok ${String(args.value)}`;
	},
});

/**
 * W2: `turns` turns of one trivial validated tool call each, then a final reply; the per-turn clock is the
 * start of each model call. Cut short (and reported as such) after `budgetMs`.
 */
export async function w2(driver: Driver, turns: number, budgetMs: number): Promise<Figures> {
	const counter = { calls: 0 };
	const source = new FakeSource(w2Replies(turns), budgetMs);
	const start = performance.now();
	await driver({ source, tools: [echo(counter)], maxTurns: turns + 2 });
	const ms = performance.now() - start;
	const marks = source.callStarts;
	const reached = counter.calls;
	check(reached >= Math.min(turns, 21), `W2: only ${reached} tool calls ran`);
	check(source.cutShort || reached === turns, `W2: ${reached} of ${turns} tool calls ran`);
	// Turn k (1-based) runs from the start of model call k to the start of call k + 1. Turns are
	// heavy-tailed on a loaded machine (a GC pause or a preemption is one slow turn), hence windows of 20
	// and 100 turns, and the median turn beside the mean.
	const durations = marks.slice(1, reached + 1).map((at, i) => at - marks[i]!);
	const window = (last: number, width: number) => (marks[last]! - marks[last - width]!) / width;
	const figures: Figures = {
		turns: reached,
		cutShort: source.cutShort ? 1 : 0,
		ms,
		meanMsPerTurn: (marks[reached]! - marks[0]!) / reached,
		medianMsPerTurn: median(durations),
		msPerTurnAt10: window(20, 20),
		msPerTurnAtEnd: window(reached, Math.max(1, Math.min(100, reached - 20))),
	};
	if (reached >= 1000) figures.msTo1000 = marks[1000]! - start;
	return figures;
}

/** W3: one call of `bytes` bytes of arguments in 64-byte deltas; ms from the start until the tool runs. */
export async function w3(driver: Driver, bytes: number): Promise<Figures> {
	let toolAt = 0;
	let length = 0;
	const write: BenchTool = {
		name: "write",
		description: "Write the data",
		fields: { data: "string" },
		run: async (args) => {
			toolAt = performance.now();
			length = String(args.data).length;
			return "written";
		},
	};
	const source = new FakeSource(w3Replies(bytes));
	const start = performance.now();
	await driver({ source, tools: [write], maxTurns: 3 });
	const expected = bytes - W3_WRAPPER;
	check(length === expected, `W3: the tool got ${length} of ${expected} characters`);
	return { ms: toolAt - start };
}

/**
 * W4: one reply asking for 8 calls (`size` calls when not 0) of a tool that waits 100 ms (real timers); ms for
 * the whole run, when the first tool started, and how long the run went on after the last tool's timer fired
 * (the library's work on the results and the final reply).
 */
export async function w4(driver: Driver, size = 0): Promise<Figures> {
	const calls = w4Calls(size);
	const starts: number[] = [];
	const ends: number[] = [];
	const wait: BenchTool = {
		name: "wait",
		description: "Wait a while",
		fields: { ms: "number" },
		run: (args) =>
			new Promise((resolve) => {
				starts.push(performance.now());
				setTimeout(() => {
					ends.push(performance.now());
					resolve("waited");
				}, Number(args.ms));
			}),
	};
	const source = new FakeSource(w4Replies(size));
	const start = performance.now();
	await driver({ source, tools: [wait], maxTurns: 3 });
	const end = performance.now();
	check(
		starts.length === calls && ends.length === calls,
		`W4: ${starts.length} of ${calls} tools ran, ${ends.length} ended`,
	);
	return {
		ms: end - start,
		firstToolMs: Math.min(...starts) - start,
		spreadMs: Math.max(...starts) - Math.min(...starts),
		afterToolsMs: end - Math.max(...ends),
	};
}
