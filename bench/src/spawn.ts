/** Starting worker processes and reading their one JSON line back, with a hard time limit. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WorkerResult } from "./worker.js";

// The runner transpiles `src/` to `dist/` and imports this module from `src/`: workers run the JavaScript.
const WORKER = fileURLToPath(new URL("../dist/worker.js", import.meta.url));

/** What the runner asks one worker to do. */
export interface WorkerJob {
	library: string;
	workload: string;
	size: number;
	warmup: number;
	reps: number;
	gc: boolean;
	budgetMs?: number;
	/** Kill the worker after this long; it then counts as "did not finish". */
	killAfterMs: number;
}

/** A worker's figures, or why there are none. */
export type JobOutcome =
	| { ok: true; result: WorkerResult }
	| { ok: false; reason: "timeout" | "failed"; detail: string };

/** Run one worker to its end (or its time limit). Never rejects. */
export function runWorker(job: WorkerJob): Promise<JobOutcome> {
	const args = [
		...(job.gc ? ["--expose-gc"] : []),
		WORKER,
		`--lib=${job.library}`,
		`--workload=${job.workload}`,
		`--size=${job.size}`,
		`--warmup=${job.warmup}`,
		`--reps=${job.reps}`,
		...(job.gc ? ["--gc"] : []),
		...(job.budgetMs === undefined ? [] : [`--budget=${job.budgetMs}`]),
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
			if (timedOut)
				return resolve({ ok: false, reason: "timeout", detail: `killed after ${job.killAfterMs} ms` });
			const last = out.trim().split("\n").at(-1) ?? "";
			try {
				if (code !== 0) throw new Error(`exit ${code}`);
				resolve({ ok: true, result: JSON.parse(last) as WorkerResult });
			} catch (error) {
				resolve({ ok: false, reason: "failed", detail: `${String(error)}: ${err.trim().slice(-600)}` });
			}
		});
	});
}
