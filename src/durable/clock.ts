/**
 * Rule L13's injectable clock for durable runs. The loop reads `now()` synchronously (message timestamps,
 * deadline checks), so the clock cannot journal each read; instead it only moves with journaled facts: the
 * run's recorded start and the recorded completion time of every step. A replay reads the same records in
 * the same order, so every decision the loop takes from the clock between steps is the same.
 */
export class DurableClock {
	#now: number;

	/** @param start - the run's journaled start time (epoch ms). */
	constructor(start: number) {
		this.#now = start;
	}

	/** The latest journaled time: the start, or the completion of the last step that settled. */
	now(): number {
		return this.#now;
	}

	/**
	 * Take a journaled step's completion time into account. Monotonic (the max), so concurrent tool steps,
	 * whose records a replay reads in call order rather than completion order, cannot move the clock back.
	 */
	observe(at: number): void {
		if (at > this.#now) this.#now = at;
	}
}
