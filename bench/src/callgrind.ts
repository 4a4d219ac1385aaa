/**
 * Reading valgrind's callgrind output: a dump's total instruction count and the inclusive count of named
 * functions (V8's runtime entries), so `instructions.ts` can say where a library's instructions went. Only
 * the parts of the format callgrind writes with its defaults (`--dump-instr=no`, one event `Ir`) are read:
 * `fn=`/`cfn=` name compression, `calls=` lines and the cost line after each, which is the call's inclusive
 * cost. Format: https://valgrind.org/docs/manual/cl-format.html
 */

/** One dump: its total and every called function's inclusive instructions, summed over its call sites. */
export interface CallgrindDump {
	/** Instructions of the whole dump (`summary:` / `totals:`). */
	total: number;
	/** Inclusive instructions by function name, from the `calls=` records of its callers. */
	inclusive: Map<string, number>;
}

/**
 * How to run a worker under callgrind for these dumps: V8 writes and rewrites its own machine code
 * (`--smc-check`); one file per thread, so the main thread's count stands apart from V8's background
 * compiling and GC threads; counters zeroed at `process.cpuUsage()` (libuv's `uv_getrusage`) and dumped at
 * `process.memoryUsage.rss()` (`uv_resident_set_memory`), the marks `instructions-worker.ts` sets.
 */
export const CALLGRIND_ARGS: readonly string[] = [
	"--tool=callgrind",
	"--smc-check=all-non-file",
	"--separate-threads=yes",
	"--zero-before=uv_getrusage",
	"--dump-before=uv_resident_set_memory",
];

const NAMED = /^\((\d+)\)(?: (.*))?$/;

/** Parse one callgrind dump (a single thread's file when run with `--separate-threads=yes`). */
export function parseCallgrind(text: string): CallgrindDump {
	const names = new Map<string, string>();
	// `(id) name` defines a compressed name, `(id)` refers back to it.
	const nameOf = (token: string): string => {
		const match = NAMED.exec(token);
		if (!match) return token;
		if (match[2] !== undefined) names.set(match[1]!, match[2]);
		return names.get(match[1]!) ?? token;
	};
	const inclusive = new Map<string, number>();
	let total = Number.NaN;
	let callee = "";
	let callPending = false;
	for (const line of text.split("\n")) {
		if (line.startsWith("cfn=")) callee = nameOf(line.slice(4));
		else if (line.startsWith("fn=")) nameOf(line.slice(3));
		else if (line.startsWith("calls=")) callPending = true;
		else if (line.startsWith("summary:") || line.startsWith("totals:")) {
			const value = Number(
				line
					.slice(line.indexOf(":") + 1)
					.trim()
					.split(/\s+/)[0],
			);
			if (Number.isNaN(total) || line.startsWith("summary:")) total = value;
		} else if (callPending && /^[0-9+\-*]/.test(line)) {
			const cost = Number(line.trim().split(/\s+/)[1] ?? 0);
			inclusive.set(callee, (inclusive.get(callee) ?? 0) + cost);
			callPending = false;
		}
	}
	if (Number.isNaN(total)) throw new Error("not a callgrind dump: no summary or totals line");
	return { total, inclusive };
}

/**
 * Where a cold run's instructions go in V8 (Node 20's V8 11.3; the names are V8's C++ functions). Matched by
 * the start of the function name after `v8::internal::`; categories are disjoint in practice (none of these
 * calls another), the rest is the program itself: interpreted or compiled JavaScript and the builtins it calls.
 */
export const V8_WORK: readonly { label: string; functions: readonly string[] }[] = [
	{
		label: "tiering: feedback vectors, Sparkplug compiling, optimization checks",
		functions: ["TieringManager::OnInterruptTick("],
	},
	{ label: "lazy compiling", functions: ["Runtime_CompileLazy("] },
	{
		label: "object literals built by the runtime (no allocation site yet)",
		functions: [
			"Runtime_CreateObjectLiteral(",
			"Runtime_DefineNamedOwnIC_Miss(",
			"Runtime_CreateArrayLiteral(",
		],
	},
	{
		label: "inline-cache misses (loads and stores)",
		functions: [
			"Runtime_LoadIC_Miss(",
			"Runtime_LoadNoFeedbackIC_Miss(",
			"Runtime_KeyedLoadIC_Miss(",
			"Runtime_StoreIC_Miss(",
			"Runtime_KeyedStoreIC_Miss(",
			"Runtime_LoadGlobalIC_Miss(",
			"Runtime_KeyedHasIC_Miss(",
		],
	},
	{ label: "garbage collection", functions: ["Heap::CollectGarbage("] },
];

/** Instructions of each `V8_WORK` category in a dump, and what is left for the program itself. */
export function v8Breakdown(dump: CallgrindDump): { label: string; instructions: number }[] {
	const rows = V8_WORK.map(({ label, functions }) => {
		let instructions = 0;
		for (const [name, cost] of dump.inclusive)
			if (functions.some((f) => name.startsWith(`v8::internal::${f}`))) instructions += cost;
		return { label, instructions };
	});
	const accounted = rows.reduce((sum, row) => sum + row.instructions, 0);
	return [
		...rows,
		{ label: "the program itself (bytecode, compiled code, builtins)", instructions: dump.total - accounted },
	];
}
