/**
 * Soak (capstan-only, no peer; reliability, not speed): 10,000 turns through the `Agent` on the scripted model — every
 * prompt is a tool turn (one call, run, paired) and a text turn, the transcript reset between prompts so only
 * leaks can grow the heap. Reports the heap slope after forced GC (bytes per turn, least squares over
 * samples) and the timers / handles and subscribers left behind. The runner starts it with `--expose-gc`
 * (`--turns=N` to change the count) and reads its one JSON line.
 */
import { parseArgs } from "node:util";
import { Agent, type AgentTool } from "capstan";
import { scriptedModel } from "capstan/testing";

const TURNS = Number(parseArgs({ options: { turns: { type: "string", default: "10000" } } }).values.turns);
const TURNS_PER_PROMPT = 2;
const SAMPLES = 20;

const echo: AgentTool = {
	name: "echo",
	description: "echo",
	parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
	execute: async (_id, args: { text: string }, _signal, onUpdate) => {
		onUpdate?.({ content: [{ type: "text", text: "…" }] });
		return { content: [{ type: "text", text: args.text }], details: { at: Date.now() } };
	},
};

function gc(): void {
	const collect = (globalThis as { gc?: () => void }).gc;
	if (collect) {
		collect();
		collect();
	}
}

function resources(): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
	return counts;
}

/** Least-squares slope of y over x. */
function slope(points: readonly [number, number][]): number {
	const n = points.length;
	const mx = points.reduce((s, [x]) => s + x, 0) / n;
	const my = points.reduce((s, [, y]) => s + y, 0) / n;
	let num = 0;
	let den = 0;
	for (const [x, y] of points) {
		num += (x - mx) * (y - my);
		den += (x - mx) ** 2;
	}
	return den === 0 ? 0 : num / den;
}

/** Run the soak; returns the figures. */
export async function soak(turns = TURNS) {
	const scripted = scriptedModel(
		({ index }) =>
			index % 2 === 0
				? { content: [{ type: "toolCall", name: "echo", arguments: { text: `t${index}` } }] }
				: { content: [{ type: "text", text: "done ".repeat(20) }], chunkSize: 8 },
		{ record: false },
	);
	const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [echo] });
	let events = 0;
	const before = resources();
	const prompts = Math.ceil(turns / TURNS_PER_PROMPT);
	const every = Math.max(1, Math.floor(prompts / SAMPLES));
	const heap: [number, number][] = [];
	const start = performance.now();
	for (let i = 0; i < prompts; i++) {
		const off = agent.subscribe(() => events++);
		await agent.prompt(`go ${i}`);
		off();
		if (agent.state.messages.length !== 4)
			throw new Error(`prompt ${i}: ${agent.state.messages.length} messages`);
		await agent.reset();
		if (i % every === every - 1) {
			gc();
			heap.push([(i + 1) * TURNS_PER_PROMPT, process.memoryUsage().heapUsed]);
		}
	}
	const ms = performance.now() - start;
	await new Promise((resolve) => setImmediate(resolve));
	const after = resources();
	const leftBehind = Object.fromEntries(
		Object.entries(after)
			.map(([kind, n]) => [kind, n - (before[kind] ?? 0)] as const)
			.filter(([, n]) => n !== 0),
	);
	// The first samples include warm-up (JIT, caches); the slope is taken over the second half.
	const settled = heap.slice(Math.floor(heap.length / 2));
	return {
		turns: prompts * TURNS_PER_PROMPT,
		events,
		msPerTurn: ms / (prompts * TURNS_PER_PROMPT),
		gcExposed: typeof (globalThis as { gc?: unknown }).gc === "function",
		heapStartMb: (heap[0]?.[1] ?? 0) / 2 ** 20,
		heapEndMb: (heap.at(-1)?.[1] ?? 0) / 2 ** 20,
		heapSlopeBytesPerTurn: slope(settled),
		leftBehind,
	};
}

if (import.meta.url === `file://${process.argv[1]}`) {
	soak().then(
		(r) => console.log(JSON.stringify(r)),
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
