/** Starting worker processes and reading their JSON lines back (one per size), with a hard time limit. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WorkerResult } from "./worker.js";

// The runner transpiles `src/` to `dist/` and imports this module from `src/`: workers run the JavaScript.
const WORKER = fileURLToPath(new URL("../dist/worker.js", import.meta.url));

/** What the runner asks one worker to do. */
export interface WorkerJob {
	library: string;
	workload: string;
	sizes: number[];
	warmup: number;
	reps: number;
	gc: boolean;
	budgetMs?: number;
	/** The worker stops after a size slower than this. */
	stopAfterMs?: number;
	/** Run each size once more after its repetitions (the worker's `--again`). */
	again?: boolean;
	/** Kill the worker after this long; it then counts as "did not finish". */
	killAfterMs: number;
}

/** The figures of every size the worker completed, and why it stopped early if it did. */
export interface JobOutcome {
	results: WorkerResult[];
	problem?: { reason: "timeout" | "failed"; detail: string };
}

/** Run one worker to its end (or its time limit). Never rejects. */
export function runWorker(job: WorkerJob): Promise<JobOutcome> {
	const args = [
		...(job.gc ? ["--expose-gc"] : []),
		WORKER,
		`--lib=${job.library}`,
		`--workload=${job.workload}`,
		`--size=${job.sizes.join(",")}`,
		`--warmup=${job.warmup}`,
		`--reps=${job.reps}`,
		...(job.gc ? ["--gc"] : []),
		...(job.budgetMs === undefined ? [] : [`--budget=${job.budgetMs}`]),
		...(job.stopAfterMs === undefined ? [] : [`--stop-after=${job.stopAfterMs}`]),
		...(job.again ? ["--again"] : []),
	];
	return new Promise((resolve) => {
		const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk;
		});
		child.stderr.on("data", (chunk: Buffer) => {
			err += chunk;
		});
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			child.kill("SIGKILL");
		}, job.killAfterMs);
		child.on("close", (code) => {
			clearTimeout(timer);
			const results: WorkerResult[] = [];
			for (const line of out.trim().split("\n"))
				if (line.startsWith("{")) results.push(JSON.parse(line) as WorkerResult);
			if (timedOut)
				return resolve({
					results,
					problem: { reason: "timeout", detail: `killed after ${job.killAfterMs} ms` },
				});
			if (code !== 0)
				return resolve({
					results,
					problem: { reason: "failed", detail: `exit ${code}: ${err.trim().slice(-600)}` },
				});
			resolve({ results });
		});
	});
}
