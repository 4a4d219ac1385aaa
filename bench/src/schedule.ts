/**
 * Runs the plan: every library on every workload, one worker process at a time. With `processPerRep`, each
 * repetition is its own process and the libraries are interleaved (round r runs every library once, in an
 * order rotated by r), so a burst of load on a shared machine hits all of them alike instead of one.
 */
import type { LibraryName } from "./libraries.js";
import { firstWarmKept, type Plan } from "./plan.js";
import { runWorker } from "./spawn.js";
import type { Figures } from "./workloads.js";

/** Every repetition of one library on one workload, size and GC mode. */
export interface Cell {
	library: LibraryName;
	workload: string;
	size: number;
	gc: boolean;
	reps: Figures[];
	/** Set when the library did not finish this size in time, or failed. */
	problem?: string;
}

interface WorkloadRun {
	workload: string;
	sizes: number[];
	warmup: number;
	budgetMs?: number;
	killAfterMs: number;
}

function workloadRuns(plan: Plan): WorkloadRun[] {
	return [
		{ workload: "W1", sizes: [plan.w1Deltas], warmup: plan.w1Warmup, killAfterMs: 180_000 },
		{
			workload: "W2",
			sizes: [plan.w2Turns],
			warmup: plan.w2Warmup,
			budgetMs: plan.w2BudgetMs,
			killAfterMs: plan.w2BudgetMs * (plan.processPerRep ? 1 : plan.reps) + 120_000,
		},
		{
			workload: "W3",
			sizes: plan.w3Sizes,
			// Warmed up on a quarter of the smallest size, so every measured size is its process's first call of
			// that size. A warm-up on the smallest size itself made that one point a second call, cheaper than
			// the first calls at the others, and steepened every library's exponent (the floor's read 1.4-1.6).
			warmup: plan.w3Sizes[0]! / 4,
			killAfterMs: plan.w3TimeoutMs * (plan.processPerRep ? 1 : plan.reps) + 15_000,
		},
		{ workload: "W4", sizes: [0], warmup: 0, killAfterMs: 60_000 },
	];
}

/**
 * The cell of W4 once warm: the later half of `plan.w4WarmBatches` batches in one process per library, after
 * the worker's warm-up batch — what a process that has served many runs pays per batch, where the W4 cell
 * holds each process's second batch.
 */
export const W4_WARM = "W4 warm";

const rotate = <T>(items: readonly T[], by: number): T[] =>
	items.map((_, i) => items[(i + by) % items.length]!);

/** Run everything; `log` gets one line per worker. */
export async function measureAll(
	plan: Plan,
	libraries: readonly LibraryName[],
	log: (line: string) => void,
): Promise<Cell[]> {
	const cells = new Map<string, Cell>();
	const cellFor = (library: LibraryName, workload: string, size: number, gc: boolean): Cell => {
		const key = `${workload}|${size}|${gc}|${library}`;
		let cell = cells.get(key);
		if (!cell) {
			cell = { library, workload, size, gc, reps: [] };
			cells.set(key, cell);
		}
		return cell;
	};
	const rounds = plan.processPerRep ? plan.reps : 1;
	for (const run of workloadRuns(plan))
		for (const gc of plan.gcModes) {
			// The smallest size each library did not finish: it is not tried again, nor anything larger.
			const gaveUpAt = new Map<LibraryName, number>();
			for (let round = 0; round < rounds; round++)
				for (const library of rotate(libraries, round))
					for (const group of plan.processPerRep ? run.sizes.map((size) => [size]) : [run.sizes]) {
						const sizes = group.filter((size) => size < (gaveUpAt.get(library) ?? Number.POSITIVE_INFINITY));
						if (sizes.length === 0) continue;
						const outcome = await runWorker({
							library,
							workload: run.workload,
							sizes,
							warmup: run.warmup,
							reps: plan.processPerRep ? 1 : plan.reps,
							gc,
							killAfterMs: run.killAfterMs * sizes.length,
							...(run.budgetMs === undefined ? {} : { budgetMs: run.budgetMs }),
							...(run.workload === "W3" ? { stopAfterMs: plan.w3TimeoutMs } : {}),
							// W2's later turns already are the steady state; a second 10,000-turn run would double it.
							again: run.workload !== "W2",
						});
						for (const size of sizes) {
							const cell = cellFor(library, run.workload, size, gc);
							const result = outcome.results.find((r) => r.size === size);
							const slow = run.workload === "W3" && result?.reps.some((r) => r.ms! > plan.w3TimeoutMs);
							const tag = `${run.workload} ${size || ""} ${library}${gc ? " (gc)" : ""}`;
							if (result && !slow) {
								cell.reps.push(...result.reps);
								log(`${tag}: ${result.reps.map((r) => r.ms!.toFixed(1)).join(", ")} ms`);
								continue;
							}
							cell.problem = slow
								? `did not finish in ${plan.w3TimeoutMs / 1000} s`
								: outcome.problem?.reason === "timeout"
									? "did not finish"
									: `failed: ${outcome.problem?.detail ?? "no result"}`;
							gaveUpAt.set(library, size);
							log(`${tag}: ${cell.problem}`);
							break;
						}
					}
		}
	for (const library of libraries) {
		const batches = plan.w4WarmBatches;
		const outcome = await runWorker({
			library,
			workload: "W4",
			sizes: [0],
			warmup: 0,
			reps: batches,
			gc: false,
			// A batch is 100 ms of timers plus the library's own work (at most some 25 ms in any run so far).
			killAfterMs: batches * 200 + 30_000,
		});
		const cell = cellFor(library, W4_WARM, 0, false);
		const reps = outcome.results[0]?.reps ?? [];
		if (reps.length === batches) {
			cell.reps.push(...reps.slice(firstWarmKept(plan)));
			log(`${W4_WARM} ${library}: ${batches} batches`);
		} else {
			cell.problem = `failed: ${outcome.problem?.detail ?? `${reps.length} of ${batches} batches`}`;
			log(`${W4_WARM} ${library}: ${cell.problem}`);
		}
	}
	return [...cells.values()];
}
