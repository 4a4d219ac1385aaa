/**
 * Turns the measured cells into the Markdown tables (value and ratio to the floor per library, each issue
 * target with pass/miss for capstan) and the JSON document written next to them.
 */
import type { LibraryName } from "./libraries.js";
import { firstWarmKept, type Plan } from "./plan.js";
import { type Cell, W4_WARM } from "./schedule.js";
import { growthExponent, median, min } from "./stats.js";

/** The machine and the run, for the header. */
export interface RunInfo {
	date: string;
	node: string;
	cpus: number;
	cpuModel: string;
	loadAverage: number[];
	versions: Partial<Record<LibraryName, string>>;
	capstanCommit: string;
}

/** A W5/W6 script's result line (the contract with those scripts). */
export interface ExternalWorkload {
	workload: string;
	title: string;
	unit: string;
	higherIsBetter: boolean;
	rows: { library: string; case: string; value: number; note?: string }[];
	targets: { text: string; pass: boolean }[];
}

/** One target and how capstan did. */
export interface TargetResult {
	text: string;
	figure: string;
	pass: boolean | undefined;
}

type Stat = "median" | "min";
const PEERS: LibraryName[] = ["pi-agent-core", "openai-agents", "ai-sdk"];

class Cells {
	constructor(private readonly cells: readonly Cell[]) {}

	find(library: LibraryName, workload: string, size: number, gc: boolean): Cell | undefined {
		return this.cells.find(
			(c) => c.library === library && c.workload === workload && c.size === size && c.gc === gc,
		);
	}

	value(library: LibraryName, workload: string, size: number, gc: boolean, key: string, stat: Stat): number {
		const cell = this.find(library, workload, size, gc);
		if (!cell || cell.problem) return Number.NaN;
		const samples = cell.reps.map((r) => r[key]).filter((v): v is number => v !== undefined);
		return stat === "median" ? median(samples) : min(samples);
	}
}

/** Three significant figures at most, thousands grouped. */
export function fmt(n: number): string {
	if (!Number.isFinite(n)) return "–";
	const abs = Math.abs(n);
	const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
	return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const withRatio = (value: number, floor: number) =>
	Number.isFinite(value) && floor > 0 ? `${fmt(value)} (${fmt(value / floor)}×)` : fmt(value);

interface Row {
	label: string;
	cell: (library: LibraryName) => string;
}

function rowsFor(cells: Cells, plan: Plan, gc: boolean, stat: Stat): Row[] {
	const v = (library: LibraryName, workload: string, size: number, key: string) =>
		cells.value(library, workload, size, gc, key, stat);
	const ratioRow = (label: string, workload: string, size: number, key: string): Row => ({
		label,
		cell: (library) => {
			const problem = cells.find(library, workload, size, gc)?.problem;
			if (problem) return problem;
			return withRatio(v(library, workload, size, key), v("floor", workload, size, key));
		},
	});
	// W4's floor row is the floor's own time; every other library's is its time over the floor's.
	const overFloorRow = (label: string, key: string, workload = "W4"): Row => ({
		label,
		cell: (library) => {
			const problem = cells.find(library, workload, 0, gc)?.problem;
			if (problem) return problem;
			const over = v(library, workload, 0, key) - v("floor", workload, 0, key);
			return library === "floor" ? fmt(v(library, workload, 0, key)) : `${over >= 0 ? "+" : ""}${fmt(over)}`;
		},
	});
	const turns = plan.w2Turns;
	const w2Reached = (library: LibraryName) => v(library, "W2", turns, "turns");
	const rows: Row[] = [
		ratioRow(
			`W1 ${plan.w1Deltas.toLocaleString("en-US")} text deltas, one reply (ms)`,
			"W1",
			plan.w1Deltas,
			"ms",
		),
		ratioRow("W1 the same process's next reply (ms)", "W1", plan.w1Deltas, "nextMs"),
		ratioRow("W1 peak heap growth (MB)", "W1", plan.w1Deltas, "heapMb"),
		ratioRow(
			`W2 mean per turn over ${turns.toLocaleString("en-US")} tool turns (ms)`,
			"W2",
			turns,
			"meanMsPerTurn",
		),
		ratioRow("W2 median turn (ms)", "W2", turns, "medianMsPerTurn"),
		ratioRow("W2 per turn, turns 1–20 (ms)", "W2", turns, "msPerTurnAt10"),
		{
			label: `W2 per turn, the last 100 turns before ${turns.toLocaleString("en-US")} (ms)`,
			cell: (library) => {
				const reached = w2Reached(library);
				const base = withRatio(
					v(library, "W2", turns, "msPerTurnAtEnd"),
					v("floor", "W2", turns, "msPerTurnAtEnd"),
				);
				return reached < turns
					? `${base}, cut at turn ${fmt(reached)} (${plan.w2BudgetMs / 1000} s budget)`
					: base;
			},
		},
	];
	if (turns >= 1000) rows.push(ratioRow("W2 time to turn 1,000 (ms)", "W2", turns, "msTo1000"));
	for (const size of plan.w3Sizes)
		rows.push(ratioRow(`W3 ${size / 1024} KB of arguments, until the tool runs (ms)`, "W3", size, "ms"));
	const big = plan.w3Sizes.at(-1)!;
	rows.push(ratioRow(`W3 ${big / 1024} KB, the same process's next call (ms)`, "W3", big, "nextMs"));
	rows.push({
		label: `W3 growth exponent (least squares, log-log)`,
		cell: (library) => {
			const points = plan.w3Sizes
				.map((size) => ({ size, ms: v(library, "W3", size, "ms") }))
				.filter((p) => Number.isFinite(p.ms));
			const k = growthExponent(points);
			return points.length < plan.w3Sizes.length ? `${fmt(k)} (${points.length} sizes)` : fmt(k);
		},
	});
	rows.push(overFloorRow("W4 8 tools × 100 ms in one batch (ms over floor)", "ms"));
	const w4Row = (label: string, key: string, workload = "W4"): Row => ({
		label,
		cell: (library) => fmt(v(library, workload, 0, key)),
	});
	rows.push(w4Row("W4 first tool starts after (ms)", "firstToolMs"));
	rows.push(w4Row("W4 the run goes on after the last tool ends (ms)", "afterToolsMs"));
	rows.push(overFloorRow("W4 the same process's next batch (ms over floor)", "nextMs"));
	// One process per library, run without a forced GC: the row sits in the no-GC table only.
	if (!gc) {
		// Batch 1 is the worker's warm-up, so repetition i is batch i + 2.
		const first = firstWarmKept(plan) + 2;
		const label = `W4 once warm: batches ${first}–${plan.w4WarmBatches + 1} of one process (ms over floor)`;
		rows.push(overFloorRow(label, "ms", W4_WARM));
		rows.push(w4Row("W4 once warm, first tool starts after (ms)", "firstToolMs", W4_WARM));
	}
	return rows;
}

function table(libraries: readonly LibraryName[], rows: Row[], heads: Record<string, string>): string {
	const head = `| workload | ${libraries.map((l) => heads[l] ?? l).join(" | ")} |`;
	const rule = `|---|${libraries.map(() => "---").join("|")}|`;
	return [
		head,
		rule,
		...rows.map((r) => `| ${r.label} | ${libraries.map((l) => r.cell(l)).join(" | ")} |`),
	].join("\n");
}

/** capstan against each issue target, from the no-GC medians (the GC-mode heap figure for the heap target). */
export function targetsFor(
	all: readonly Cell[],
	plan: Plan,
	libraries: readonly LibraryName[],
): TargetResult[] {
	const cells = new Cells(all);
	const v = (library: LibraryName, workload: string, size: number, key: string, gc = false) =>
		cells.value(library, workload, size, gc, key, "median");
	const peers = PEERS.filter((p) => libraries.includes(p));
	const fastest = (workload: string, size: number, key: string) =>
		Math.min(...peers.map((p) => v(p, workload, size, key)).filter(Number.isFinite));
	const check = (text: string, value: number, limit: number, figure: string): TargetResult => ({
		text,
		figure,
		pass: Number.isFinite(value) && Number.isFinite(limit) ? value <= limit : undefined,
	});
	const w1 = v("capstan", "W1", plan.w1Deltas, "ms");
	const w1Floor = v("floor", "W1", plan.w1Deltas, "ms");
	const w1Peer = fastest("W1", plan.w1Deltas, "ms");
	const heapGc = plan.gcModes.includes(true);
	const heap = v("capstan", "W1", plan.w1Deltas, "heapMb", heapGc);
	const heapFloor = v("floor", "W1", plan.w1Deltas, "heapMb", heapGc);
	const turns = plan.w2Turns;
	const w2 = v("capstan", "W2", turns, "meanMsPerTurn");
	const w2Peer = fastest("W2", turns, "meanMsPerTurn");
	const at10 = v("capstan", "W2", turns, "msPerTurnAt10");
	const atEnd = v("capstan", "W2", turns, "msPerTurnAtEnd");
	const reached = v("capstan", "W2", turns, "turns");
	const big = plan.w3Sizes.at(-1)!;
	const w3 = v("capstan", "W3", big, "ms");
	const w3Floor = v("floor", "W3", big, "ms");
	const points = plan.w3Sizes.map((size) => ({ size, ms: v("capstan", "W3", size, "ms") }));
	const exponent = points.every((p) => Number.isFinite(p.ms)) ? growthExponent(points) : Number.NaN;
	const w4Over = v("capstan", "W4", 0, "ms") - v("floor", "W4", 0, "ms");
	return [
		check("W1 ≤ 2.5× floor", w1 / w1Floor, 2.5, `${fmt(w1 / w1Floor)}×`),
		check("W1 ≤ 0.7× the fastest peer", w1 / w1Peer, 0.7, `${fmt(w1 / w1Peer)}×`),
		check(
			`W1 peak heap growth ≤ 2× the floor's${heapGc ? " (forced-GC runs)" : ""}`,
			heap / heapFloor,
			2,
			`${fmt(heap)} MB = ${fmt(heap / heapFloor)}×`,
		),
		check("W2 ≤ 0.6× the fastest peer per turn", w2 / w2Peer, 0.6, `${fmt(w2)} ms = ${fmt(w2 / w2Peer)}×`),
		check(
			`W2 flat to ${turns.toLocaleString("en-US")} turns (last 100 turns ≤ 1.5× turns 1–20)`,
			reached >= turns ? atEnd / at10 : Number.POSITIVE_INFINITY,
			1.5,
			`${fmt(at10)} → ${fmt(atEnd)} ms/turn`,
		),
		check(`W3 ${big / 1024} KB ≤ 3× floor`, w3 / w3Floor, 3, `${fmt(w3)} ms = ${fmt(w3 / w3Floor)}×`),
		check(`W3 exponent ≤ 1.1 over ${plan.w3Sizes.length} sizes`, exponent, 1.1, fmt(exponent)),
		check("W4 ≤ floor + 0.5 ms", w4Over, 0.5, `${w4Over >= 0 ? "+" : ""}${fmt(w4Over)} ms`),
	];
}

function externalSection(w: ExternalWorkload): string {
	const lines = [
		`### ${w.workload} — ${w.title} (${w.unit}, ${w.higherIsBetter ? "higher" : "lower"} is better)`,
		"",
		"| case | library | value | note |",
		"|---|---|---|---|",
		...w.rows.map((r) => `| ${r.case} | ${r.library} | ${fmt(r.value)} | ${r.note ?? ""} |`),
		"",
		...w.targets.map((t) => `- ${t.pass ? "pass" : "**miss**"}: ${t.text}`),
	];
	return lines.join("\n");
}

/** How the figures were taken, in one paragraph (also written to the JSON). */
export function methodText(plan: Plan): string {
	const reps = plan.processPerRep
		? `each of the ${plan.reps} repetitions is a fresh process (after a warm-up run), libraries interleaved per repetition`
		: `${plan.reps} repetitions in one process after a warm-up run`;
	return `Method: one fake model for every library (neutral events precomputed once per process, before its warm-up, and yielded by an async generator with one microtask hop per event), adapted to each library's own model interface; each library driven through its public agent API with validated tool schemas and default settings; the floor is a bare \`for await\` that appends text, parses each call's arguments once with \`JSON.parse\`, runs tools with \`Promise.all\` and keeps a history array. Every library runs in its own process; ${reps}; W3's warm-up call is a quarter of its smallest size, so every size's figure is its process's first call of that size. The rows marked "the same process's next" time one more identical run right after the measured one (W1, W3's largest size, W4): the process's third run of that work, which V8 has optimized further but not always settled. "W4 once warm" is one more process per library that runs ${plan.w4WarmBatches} W4 batches after its warm-up one, timed over the later half: what a process that has served many runs pays per batch.`;
}

/** The whole Markdown report. */
export function renderMarkdown(
	all: readonly Cell[],
	plan: Plan,
	libraries: readonly LibraryName[],
	info: RunInfo,
	external: readonly ExternalWorkload[],
	skipped: readonly string[],
	extraSections: readonly string[] = [],
): string {
	const cells = new Cells(all);
	const heads: Record<string, string> = {};
	for (const l of libraries) heads[l] = info.versions[l] ? `${l} ${info.versions[l]}` : l;
	const targets = targetsFor(all, plan, libraries);
	const parts = [
		`# capstan benchmark${plan.quick ? " — QUICK RUN (fewer repetitions, smaller sizes, no forced-GC pass: a smoke check, not figures to quote)" : ""}`,
		"",
		`${info.date} · Node ${info.node} · ${info.cpus} × ${info.cpuModel} · load average at start ${info.loadAverage.map((n) => n.toFixed(2)).join(" / ")} · capstan ${info.capstanCommit} (built \`dist/\`)`,
		"",
		`${methodText(plan)} Cells show the value and its ratio to the floor.`,
		"",
		`## Median of ${plan.reps} repetitions, no forced GC`,
		"",
		table(libraries, rowsFor(cells, plan, false, "median"), heads),
		"",
		`## Minimum of ${plan.reps} repetitions, no forced GC`,
		"",
		table(libraries, rowsFor(cells, plan, false, "min"), heads),
	];
	if (plan.gcModes.includes(true))
		parts.push(
			"",
			`## Median of ${plan.reps} repetitions, forced full GC before each`,
			"",
			table(libraries, rowsFor(cells, plan, true, "median"), heads),
		);
	parts.push(
		"",
		"## capstan against the targets",
		"",
		"| target | capstan | result |",
		"|---|---|---|",
		...targets.map(
			(t) => `| ${t.text} | ${t.figure} | ${t.pass === undefined ? "n/a" : t.pass ? "pass" : "**miss**"} |`,
		),
	);
	for (const w of external) parts.push("", externalSection(w));
	for (const section of extraSections) parts.push("", section);
	if (skipped.length > 0) parts.push("", ...skipped.map((s) => `- ${s}`));
	return `${parts.join("\n")}\n`;
}
