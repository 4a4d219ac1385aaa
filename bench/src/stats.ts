/** The few statistics the report needs. */

/** Median of the samples (the mean of the middle two for an even count); NaN when empty. */
export function median(samples: readonly number[]): number {
	if (samples.length === 0) return Number.NaN;
	const sorted = [...samples].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Smallest sample; NaN when empty. */
export function min(samples: readonly number[]): number {
	return samples.length === 0 ? Number.NaN : Math.min(...samples);
}

/**
 * Growth exponent k of time ≈ c·size^k: the least-squares slope of log(time) over log(size). 1 is linear,
 * 2 quadratic. NaN with fewer than two points.
 */
export function growthExponent(points: readonly { size: number; ms: number }[]): number {
	if (points.length < 2) return Number.NaN;
	const xs = points.map((p) => Math.log(p.size));
	const ys = points.map((p) => Math.log(p.ms));
	const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
	const my = ys.reduce((a, b) => a + b, 0) / ys.length;
	let num = 0;
	let den = 0;
	for (let i = 0; i < xs.length; i++) {
		num += (xs[i]! - mx) * (ys[i]! - my);
		den += (xs[i]! - mx) ** 2;
	}
	return num / den;
}
