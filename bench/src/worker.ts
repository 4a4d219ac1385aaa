/**
 * One child process: one library, one workload, one size or several (`--size=a,b,c`, smallest first). Builds
 * the fake model's replies (each size's before its repetitions, the first size's before the warm-up), warms
 * up, then runs `--reps` measured repetitions of each size (with `--gc`, a forced full GC before each; needs
 * `node --expose-gc`), printing one JSON line per size as it completes; a size slower than `--stop-after` ms
 * ends the list (larger ones would be slower still). With `--again`, one more run of the size follows the
 * last repetition, its figures added to that repetition as `next…` (`nextMs`): the same work once the engine
 * has optimized it, beside the figure that includes the optimizing. The runner starts one of these per library and repetition, so no library's garbage or
 * JIT state leaks into another's figures.
 */
import { parseArgs } from "node:util";
import { DRIVERS, type LibraryName } from "./libraries.js";
import { asNext, type Figures, holdReplies, w1, w2, w3, w4 } from "./workloads.js";

/** What the worker prints. */
export interface WorkerResult {
	library: LibraryName;
	workload: string;
	size: number;
	reps: Figures[];
}

const { values } = parseArgs({
	options: {
		lib: { type: "string" },
		workload: { type: "string" },
		size: { type: "string", default: "0" },
		warmup: { type: "string", default: "0" },
		budget: { type: "string", default: "Infinity" },
		reps: { type: "string", default: "1" },
		gc: { type: "boolean", default: false },
		"stop-after": { type: "string", default: "Infinity" },
		again: { type: "boolean", default: false },
	},
});

const library = values.lib as LibraryName;
const load = DRIVERS[library];
if (!load) throw new Error(`unknown library ${values.lib}`);
const driver = await load();
const sizes = String(values.size).split(",").map(Number);
const warmup = Number(values.warmup) || sizes[0]!;
const stopAfter = Number(values["stop-after"]);
const budget = Number(values.budget);

function once(n: number): Promise<Figures> {
	switch (values.workload) {
		case "W1":
			return w1(driver, n);
		case "W2":
			return w2(driver, n, budget);
		case "W3":
			return w3(driver, n);
		case "W4":
			return w4(driver, n);
		default:
			throw new Error(`unknown workload ${values.workload}`);
	}
}

const forceGc = (globalThis as { gc?: () => void }).gc;
if (values.gc && !forceGc) throw new Error("--gc needs node --expose-gc");

// The fake model's replies are the harness's work: built before the warm-up (a later size's before its own
// repetitions), never inside a measured run.
const workload = String(values.workload);
holdReplies(workload, [warmup, sizes[0]!]);
await once(warmup);
for (const size of sizes) {
	holdReplies(workload, [size]);
	const reps: Figures[] = [];
	for (let i = 0; i < Number(values.reps); i++) {
		if (values.gc) forceGc!();
		reps.push(await once(size));
		if ((reps[i]!.ms ?? 0) > stopAfter) break;
	}
	const last = reps.at(-1)!;
	if (values.again && !((last.ms ?? 0) > stopAfter)) Object.assign(last, asNext(await once(size)));
	const result: WorkerResult = { library, workload: String(values.workload), size, reps };
	console.log(JSON.stringify(result));
	if (reps.some((r) => (r.ms ?? 0) > stopAfter)) break;
}
