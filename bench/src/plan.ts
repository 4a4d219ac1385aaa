/**
 * How much each workload runs, for a full run and for `--quick`. A full run follows the issue: 20,000 text
 * deltas, 10,000 tool turns, 64 KB–1 MB of arguments, 5 repetitions each with and without a forced GC, and
 * W4 once warm over 200 batches.
 * `--quick` (under a minute) uses fewer repetitions, smaller sizes and no forced-GC pass; its figures are
 * for a smoke check, not for quoting.
 */

/** One run's schedule. */
export interface Plan {
	quick: boolean;
	/** Measured repetitions per library and mode. */
	reps: number;
	/** Whether each repetition runs in its own process (full) or all in one process (quick). */
	processPerRep: boolean;
	/** The GC modes: `false` none, `true` a forced full GC before each repetition. */
	gcModes: boolean[];
	w1Deltas: number;
	w1Warmup: number;
	w2Turns: number;
	w2Warmup: number;
	/** After this long a W2 run is cut short and reported as "reached turn K". */
	w2BudgetMs: number;
	w3Sizes: number[];
	/** A W3 size that takes longer than this is "did not finish"; larger sizes are not tried. */
	w3TimeoutMs: number;
	/**
	 * W4 once warm: one process per library runs this many batches after its warm-up one; the later half is
	 * what is reported (the per-batch cost of a process that has served many runs).
	 */
	w4WarmBatches: number;
}

/** Of W4's once-warm batches (repetitions 0…n-1, after the warm-up batch), the first one reported. */
export const firstWarmKept = (plan: Plan): number => Math.floor(plan.w4WarmBatches / 2);

const KB = 1024;

/** The schedule for a full run, or for `--quick`. */
export function planFor(quick: boolean): Plan {
	if (quick)
		return {
			quick,
			reps: 3,
			processPerRep: false,
			gcModes: [false],
			w1Deltas: 5_000,
			w1Warmup: 1_000,
			w2Turns: 1_000,
			w2Warmup: 50,
			w2BudgetMs: 1_000,
			w3Sizes: [8 * KB, 16 * KB, 32 * KB, 64 * KB],
			w3TimeoutMs: 1_500,
			w4WarmBatches: 10,
		};
	return {
		quick,
		reps: 5,
		processPerRep: true,
		gcModes: [false, true],
		w1Deltas: 20_000,
		w1Warmup: 2_000,
		w2Turns: 10_000,
		w2Warmup: 300,
		w2BudgetMs: 20_000,
		w3Sizes: [64 * KB, 256 * KB, 512 * KB, 1024 * KB],
		w3TimeoutMs: 20_000,
		w4WarmBatches: 200,
	};
}
