/**
 * The attack kept in the suite (reliability, SPEC I1–I5, L5): random whole runs of the real loop and `Agent`
 * — 1–6 tools per turn in every concurrency class, durations, tool failures and garbage, provider errors and
 * stream faults, steer / follow-up / aside at random times, abort and deadline at random points, resume after
 * a simulated crash (a transcript ending in an unanswered reply) — each played twice: through capstan's own
 * stream (fresh snapshots) and through a stream function that keeps one message and mutates it in place
 * (`mutateInPlace`, pi-ai's style, push-based so it goes on after an abort). SPEC I1–I5 must hold for both,
 * and both must give the same transcript.
 *
 * Reuses the generators, player and invariants of test/loop/properties.test.ts (test/support/loop-*.ts).
 * `RELIABILITY_RUNS` sets the scenarios per run (default 2,000; each is played twice) for long local runs;
 * fast-check prints the seed and the shrunk scenario of a failure, `CAPSTAN_PROPERTY_SEED` replays it. Found
 * failures are kept below as regression tests.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkInvariants } from "../support/loop-invariants.js";
import { type Played, playScenario } from "../support/loop-play.js";
import { type Scenario, type StopPlan, scenarioArb } from "../support/loop-scenarios.js";

const RUNS = Number(process.env.RELIABILITY_RUNS ?? 2_000);
const SEED = process.env.CAPSTAN_PROPERTY_SEED;
const TIMEOUT_MS = Math.max(300_000, RUNS * 200);

afterEach(() => {
	vi.useRealTimers();
});

async function play(scenario: Scenario): Promise<Played & { settled: boolean }> {
	vi.useFakeTimers({ now: 1_700_000_000_000 });
	try {
		return await playScenario(scenario);
	} finally {
		vi.clearAllTimers();
		vi.useRealTimers();
	}
}

/** Abort or deadline at a random point in most runs, so the mutating stream is often cut mid-reply. */
const stopOrNot: fc.Arbitrary<StopPlan> = fc.oneof(
	{ weight: 1, arbitrary: fc.constant({ kind: "none" } as StopPlan) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant("abort" as const),
			at: fc.integer({ min: 0, max: 800 }),
			reason: fc.constantFrom("none" as const, "string" as const, "error" as const),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("deadline" as const), at: fc.integer({ min: 0, max: 800 }) }),
	},
);

describe("reliability: random runs through a fresh-snapshot and a mutate-in-place stream (SPEC I1–I5, L5)", () => {
	it(
		`${RUNS} scenarios × 2 stream functions keep I1–I5 and give the same transcript`,
		async () => {
			await fc.assert(
				fc.asyncProperty(scenarioArb(stopOrNot), async (scenario) => {
					const fresh = await play(scenario);
					checkInvariants(fresh);
					const mutating = await play({ ...scenario, mutatingStream: true });
					checkInvariants(mutating);
					// SPEC L5: how a provider treats its own objects cannot change what the run recorded.
					expect(JSON.stringify(mutating.transcript)).toBe(JSON.stringify(fresh.transcript));
				}),
				{ numRuns: RUNS, ...(SEED !== undefined ? { seed: Number(SEED) } : {}) },
			);
		},
		TIMEOUT_MS,
	);
});
