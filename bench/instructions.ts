/**
 * `npm run bench:instructions` (at the repository root): W4's tool batch counted in CPU instructions instead
 * of milliseconds. Each library's second and third batch (the timed W4 figure and its "next") run under
 * valgrind's callgrind, which counts the instructions of the process's main thread between two marks. The
 * count does not move with the machine's load or Node's millisecond timers, as W4's milliseconds do, but it
 * is not exact either: V8's background threads (compiling, marking) finish at different points of the main
 * thread's work from run to run, which moves a second batch by a few percent and can double a third, so each
 * library runs `--runs` times (default 3) and the median run is shown, with the range. The V8 work inside a
 * batch (tiering, object literals the runtime builds, inline-cache misses, lazy compiling, garbage
 * collection) is broken out, so a change to capstan's per-batch code can be judged without a timing run's
 * noise. Needs valgrind (Debian's `valgrind` package); about 30 s per library and run.
 *
 * Flags: `--only=capstan,pi-agent-core` (the floor always runs), `--runs=N`, `--no-build`, and `--calls=N`: a
 * reply of N tool calls instead of W4's eight, to see how the count depends on them (docs/performance.md: one
 * call). Prints Markdown, also written to `results/instructions.md` and `.json` — except with `--calls`, whose
 * figures are not W4's.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { prepareWorkers } from "./build.js";
import { CALLGRIND_ARGS, type CallgrindDump, parseCallgrind, V8_WORK, v8Breakdown } from "./src/callgrind.js";
import { type LibraryName, selectLibraries } from "./src/libraries.js";
import { median } from "./src/stats.js";
import { W4_CALLS } from "./src/workloads.js";

const here = fileURLToPath(new URL(".", import.meta.url));

const { values } = parseArgs({
	options: {
		only: { type: "string" },
		runs: { type: "string", default: "3" },
		calls: { type: "string" },
		"no-build": { type: "boolean", default: false },
	},
});

interface Counted {
	library: LibraryName;
	second: CallgrindDump;
	third: CallgrindDump;
}

function valgrindVersion(): string {
	const probe = spawnSync("valgrind", ["--version"], { encoding: "utf8" });
	if (probe.error || probe.status !== 0)
		throw new Error("bench:instructions needs valgrind on the PATH (Debian: apt-get install valgrind)");
	return probe.stdout.trim();
}

/** Run one library's worker under callgrind; its main thread's dumps 1 and 2 are batches 2 and 3. */
function count(library: LibraryName, dir: string, index: number, calls: number): Counted {
	const prefix = join(dir, `${library}-${index}`);
	const worker = join(here, "dist", "instructions-worker.js");
	const run = spawnSync(
		"valgrind",
		[
			...CALLGRIND_ARGS,
			`--callgrind-out-file=${prefix}`,
			process.execPath,
			worker,
			`--lib=${library}`,
			`--calls=${calls}`,
		],
		{ encoding: "utf8", timeout: 600_000 },
	);
	if (run.status !== 0)
		throw new Error(
			`${library} under callgrind: exit ${run.status ?? run.signal}: ${run.stderr.trim().slice(-500)}`,
		);
	// Thread 1 is the main thread; `.1` and `.2` are the first and second dump. A third means the library
	// itself read its memory use, and the dumps no longer line up with the batches.
	if (existsSync(`${prefix}.3-01`))
		throw new Error(`${library} called process.memoryUsage() during W4: its dumps do not match the batches`);
	const dump = (part: number) => parseCallgrind(readFileSync(`${prefix}.${part}-01`, "utf8"));
	return { library, second: dump(1), third: dump(2) };
}

const millions = (n: number) => (n / 1e6).toFixed(2);

/** A library's runs: the run with the median second batch (its breakdown is shown), and every run's totals. */
interface Library {
	library: LibraryName;
	median: Counted;
	seconds: number[];
	thirds: number[];
}

function summarize(runs: Counted[]): Library {
	const bySecond = [...runs].sort((a, b) => a.second.total - b.second.total);
	return {
		library: runs[0]!.library,
		median: bySecond[(bySecond.length - 1) >> 1]!,
		seconds: runs.map((r) => r.second.total),
		thirds: runs.map((r) => r.third.total),
	};
}

const range = (values: number[]) =>
	values.length < 2 ? "" : `${millions(Math.min(...values))}–${millions(Math.max(...values))}`;

/** What one batch's reply asks for, as the report's first line says it. */
function batchTools(calls: number): string {
	if (calls === W4_CALLS) return "eight 100 ms tools";
	return `${calls === 1 ? "one 100 ms tool" : `${calls} 100 ms tools`} (W4 has eight)`;
}

function render(rows: Library[], version: string, runs: number, calls: number): string {
	const floor = rows.find((r) => r.library === "floor")!;
	const second = (r: Library) => r.median.second.total;
	const third = (r: Library) => median(r.thirds);
	const ratio = (n: number, of: number) => `${(n / of).toFixed(2)}×`;
	const lines = [
		"# W4 in instructions",
		"",
		`Main-thread instructions (millions) of one W4 batch — ${batchTools(calls)} in one reply, then the final reply — counted by ${version} (callgrind) in ${process.version}: the process's second batch (the timed W4 figure) and its third (the "next" row), the median of ${runs} process${runs === 1 ? "" : "es"} per library, with the range. V8's background threads (optimizing compilers, GC helpers) are not counted; when they finish their work moves the main thread's count a little from run to run.`,
		"",
		"| library | 2nd batch | range | × floor | over floor | 3rd batch | range | × floor |",
		"|---|---|---|---|---|---|---|---|",
		...rows.map(
			(r) =>
				`| ${r.library} | ${millions(second(r))} | ${range(r.seconds)} | ${ratio(second(r), second(floor))} | ${r.library === "floor" ? "" : `+${millions(second(r) - second(floor))}`} | ${millions(third(r))} | ${range(r.thirds)} | ${ratio(third(r), third(floor))} |`,
		),
		"",
		"Where the second batch's instructions go, in the median run (millions; V8's functions counted inclusively):",
		"",
		`| | ${rows.map((r) => r.library).join(" | ")} |`,
		`|---|${rows.map(() => "---").join("|")}|`,
	];
	const breakdowns = rows.map((r) => v8Breakdown(r.median.second));
	const labels = [...V8_WORK.map((w) => w.label), breakdowns[0]!.at(-1)!.label];
	labels.forEach((label, i) => {
		lines.push(`| ${label} | ${breakdowns.map((b) => millions(b[i]!.instructions)).join(" | ")} |`);
	});
	return `${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
	const version = valgrindVersion();
	const runs = Number(values.runs);
	if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: a positive integer, got ${values.runs}`);
	const calls = values.calls === undefined ? W4_CALLS : Number(values.calls);
	if (!Number.isInteger(calls) || calls < 1)
		throw new Error(`--calls: a positive integer, got ${values.calls}`);
	const libraries = selectLibraries(values.only);
	await prepareWorkers(values["no-build"]);
	const dir = mkdtempSync(join(tmpdir(), "capstan-callgrind-"));
	try {
		const counted = new Map<LibraryName, Counted[]>(libraries.map((library) => [library, []]));
		// Interleaved like the timing runs, though a count hardly moves with what ran before.
		for (let run = 0; run < runs; run++)
			for (const library of libraries) {
				console.error(`counting ${library} (${run + 1} of ${runs})…`);
				counted.get(library)!.push(count(library, dir, run, calls));
			}
		const rows = libraries.map((library) => summarize(counted.get(library)!));
		const markdown = render(rows, version, runs, calls);
		if (values.calls !== undefined) {
			console.log(markdown);
			return;
		}
		mkdirSync(join(here, "results"), { recursive: true });
		writeFileSync(join(here, "results", "instructions.md"), markdown);
		const json = rows.map(({ library, median, seconds, thirds }) => ({
			library,
			secondBatch: seconds,
			thirdBatch: thirds,
			medianSecondBatchBreakdown: v8Breakdown(median.second),
		}));
		const info = { date: new Date().toISOString(), node: process.version, valgrind: version, runs };
		writeFileSync(
			join(here, "results", "instructions.json"),
			`${JSON.stringify({ info, rows: json }, null, "\t")}\n`,
		);
		console.log(markdown);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

await main();
