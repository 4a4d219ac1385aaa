/**
 * One child process: one library, one workload, one size. Warms up, then runs `--reps` measured
 * repetitions (with `--gc`, a forced full GC before each; needs `node --expose-gc`), and prints the figures
 * as one JSON line. The runner starts one of these per library and repetition, so no library's garbage or
 * JIT state leaks into another's figures.
 */
import { parseArgs } from "node:util";
import { DRIVERS, type LibraryName } from "./libraries.js";
import { type Figures, w1, w2, w3, w4 } from "./workloads.js";

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
	},
});

const library = values.lib as LibraryName;
const load = DRIVERS[library];
if (!load) throw new Error(`unknown library ${values.lib}`);
const driver = await load();
const size = Number(values.size);
const warmup = Number(values.warmup) || size;
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
			return w4(driver);
		default:
			throw new Error(`unknown workload ${values.workload}`);
	}
}

const forceGc = (globalThis as { gc?: () => void }).gc;
if (values.gc && !forceGc) throw new Error("--gc needs node --expose-gc");

await once(warmup);
const reps: Figures[] = [];
for (let i = 0; i < Number(values.reps); i++) {
	if (values.gc) forceGc!();
	reps.push(await once(size));
}
const result: WorkerResult = { library, workload: String(values.workload), size, reps };
console.log(JSON.stringify(result));
