/**
 * Core benchmarks W1–W4 (issue 2). Each figure is printed with a floor measured in the same run: a bare
 * `for await` over the same scripted source with no library in between, so the ratio is what capstan adds.
 */
import {
	type AgentLoopConfig,
	type AgentTool,
	agentLoop,
	type Context,
	type UserMessage,
} from "../src/index.js";
import { type ScriptedReply, scriptedModel } from "../src/testing/index.js";

const user: UserMessage = { role: "user", content: "go", timestamp: 0 };
const emptyContext: Context = { messages: [user] };

/** Median of the samples. */
export function median(samples: number[]): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function floorDrain(replies: ScriptedReply[]): Promise<number> {
	const scripted = scriptedModel(replies, { now: () => 0, record: false });
	const start = performance.now();
	for (let i = 0; i < replies.length; i++) {
		let n = 0;
		for await (const _event of scripted.stream(scripted.model, emptyContext, {})) n++;
		if (n === 0) throw new Error("empty source");
	}
	return performance.now() - start;
}

async function loopDrain(
	replies: ScriptedReply[],
	tools: AgentTool[] = [],
	onEvent?: (type: string) => void,
): Promise<number> {
	const scripted = scriptedModel(replies, { now: () => 0, record: false });
	const config: AgentLoopConfig = { model: scripted.model, streamFn: scripted.stream, now: () => 0 };
	const start = performance.now();
	const stream = agentLoop([user], { messages: [], tools }, config);
	for await (const event of stream) onEvent?.(event.type);
	return performance.now() - start;
}

/** W1: one reply of 20,000 text deltas of 4 chars; ns per delta seen by a subscriber. */
export async function w1(rounds = 9) {
	const reply: ScriptedReply = { content: [{ type: "text", text: "abcd".repeat(20_000) }], chunkSize: 4 };
	const floor: number[] = [];
	const lib: number[] = [];
	for (let i = 0; i < rounds; i++) {
		floor.push(await floorDrain([reply]));
		let deltas = 0;
		lib.push(await loopDrain([reply], [], (t) => t === "message_update" && deltas++));
		if (deltas < 20_000) throw new Error(`W1 saw ${deltas} deltas`);
	}
	const f = (median(floor) * 1e6) / 20_000;
	const l = (median(lib) * 1e6) / 20_000;
	return { floorNsPerDelta: f, nsPerDelta: l, ratio: l / f };
}

const trivialTool: AgentTool = {
	name: "noop",
	description: "does nothing",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
};

/**
 * W2: 1,000 turns each with one trivial tool, then a final text; ms per turn for turns 1–20 vs 981–1,000.
 * One run's 20-turn window can catch a GC pause, so each figure is the median over `runs` runs (after warm-up).
 */
export async function w2(turns = 1000, runs = 7) {
	const replies: ScriptedReply[] = [];
	for (let i = 0; i < turns; i++)
		replies.push({ content: [{ type: "toolCall", name: "noop", arguments: {} }] });
	replies.push({ content: [{ type: "text", text: "done" }] });
	const samples = {
		floor: [] as number[],
		total: [] as number[],
		first: [] as number[],
		last: [] as number[],
	};
	for (let run = -2; run < runs; run++) {
		const floorMs = await floorDrain(replies);
		const marks: number[] = [];
		const total = await loopDrain(
			replies,
			[trivialTool],
			(t) => t === "turn_end" && marks.push(performance.now()),
		);
		if (run < 0) continue; // warm-up
		// Turn 1's end has no earlier mark, so the first window is turns 2–21.
		const perTurn = (from: number, to: number) => (marks[to - 1]! - marks[from - 2]!) / (to - from + 1);
		samples.floor.push(floorMs / replies.length);
		samples.total.push(total / replies.length);
		samples.first.push(perTurn(2, 21));
		samples.last.push(perTurn(turns - 19, turns));
	}
	return {
		floorMsPerTurn: median(samples.floor),
		msPerTurnTotal: median(samples.total),
		msPerTurnFirst: median(samples.first),
		msPerTurnLast: median(samples.last),
	};
}

/** Tool arguments of about `bytes` bytes: one long string, or one array of small objects (the worst shape for snapshots). */
function argumentsOfSize(bytes: number, shape: "string" | "array"): Record<string, unknown> {
	if (shape === "string") return { data: "x".repeat(bytes) };
	return { data: Array.from({ length: Math.floor(bytes / 10) }, (_, n) => ({ n: n % 1000 })) };
}

/** W3: one tool call whose arguments are N bytes (one string, or one array) streamed in 64-byte deltas. */
export async function w3(
	sizes = [16, 64, 256, 1024].map((k) => k * 1024),
	rounds = 3,
	shape: "string" | "array" = "string",
) {
	const rows: { bytes: number; floorMs: number; ms: number }[] = [];
	for (const bytes of [...sizes, ...sizes]) {
		const replies: ScriptedReply[] = [
			{
				content: [{ type: "toolCall", name: "noop", arguments: argumentsOfSize(bytes, shape) }],
				chunkSize: 64,
			},
			{ content: [{ type: "text", text: "ok" }] },
		];
		const floor: number[] = [];
		const lib: number[] = [];
		const tool: AgentTool = {
			...trivialTool,
			parameters: { type: "object", properties: { data: { type: "string" } } },
		};
		for (let i = 0; i < rounds; i++) {
			floor.push(await floorDrain(replies));
			lib.push(await loopDrain(replies, [tool]));
		}
		rows.push({ bytes, floorMs: median(floor), ms: median(lib) });
	}
	rows.splice(0, sizes.length); // the first pass over all sizes is JIT warm-up
	const first = rows[0]!;
	const last = rows[rows.length - 1]!;
	const exponent = Math.log(last.ms / first.ms) / Math.log(last.bytes / first.bytes);
	const floorExponent = Math.log(last.floorMs / first.floorMs) / Math.log(last.bytes / first.bytes);
	return { rows, exponent, floorExponent };
}

/** W4: 8 tools × 100 ms in one batch; wall time of the batch vs Promise.all of the same 8 timers. */
export async function w4(rounds = 3) {
	const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
	const floor: number[] = [];
	const lib: number[] = [];
	const tool: AgentTool = {
		...trivialTool,
		execute: async () => {
			await sleep(100);
			return { content: [{ type: "text", text: "slept" }] };
		},
	};
	for (let r = 0; r < rounds; r++) {
		const start = performance.now();
		await Promise.all(Array.from({ length: 8 }, () => sleep(100)));
		floor.push(performance.now() - start);
		const calls = Array.from({ length: 8 }, () => ({
			type: "toolCall" as const,
			name: "noop",
			arguments: {},
		}));
		let first = 0;
		let last = 0;
		await loopDrain([{ content: calls }, { content: [{ type: "text", text: "ok" }] }], [tool], (t) => {
			if (t === "tool_execution_start" && first === 0) first = performance.now();
			if (t === "tool_execution_end") last = performance.now();
		});
		lib.push(last - first);
	}
	return { floorMs: median(floor), batchMs: median(lib) };
}
