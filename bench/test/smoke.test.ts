/**
 * The harness still works: every library runs every workload at tiny sizes, in this process, and the report
 * renders them. Figures are checked for being there, never for being fast (no timing assertions).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DRIVERS, LIBRARIES, selectLibraries } from "../src/libraries.js";
import { planFor } from "../src/plan.js";
import { renderMarkdown } from "../src/report.js";
import { type Cell, W4_WARM } from "../src/schedule.js";
import { FakeSource, toolReply } from "../src/source.js";
import { growthExponent, median } from "../src/stats.js";
import { asNext, type Figures, W4_CALLS, w1, w2, w3, w4 } from "../src/workloads.js";

describe("stats", () => {
	it("fits the exponent of an exact power law", () => {
		const sizes = [1, 2, 4, 8];
		assert.equal(growthExponent(sizes.map((size) => ({ size, ms: 3 * size }))).toFixed(6), "1.000000");
		assert.equal(growthExponent(sizes.map((size) => ({ size, ms: size * size }))).toFixed(6), "2.000000");
		assert.ok(Number.isNaN(growthExponent([{ size: 1, ms: 1 }])));
	});

	it("takes the median of odd and even counts", () => {
		assert.equal(median([3, 1, 2]), 2);
		assert.equal(median([4, 1, 3, 2]), 2.5);
	});
});

describe("--only", () => {
	it("keeps the floor and the table order, and names what it does not know", () => {
		assert.deepEqual(selectLibraries(undefined), LIBRARIES);
		assert.deepEqual(selectLibraries("pi-agent-core,capstan"), ["floor", "capstan", "pi-agent-core"]);
		assert.throws(() => selectLibraries("capstan,langchain"), /unknown langchain \(known: floor, capstan/);
		// The reference loop is no library: measured only when named.
		assert.ok(!LIBRARIES.includes("reference"));
		assert.deepEqual(selectLibraries("reference,capstan"), ["floor", "capstan", "reference"]);
	});
});

describe("every library, tiny sizes", () => {
	const plan = {
		...planFor(true),
		reps: 1,
		w1Deltas: 50,
		w2Turns: 45,
		w3Sizes: [1024, 2048],
	};
	const cells: Cell[] = [];
	const add = (library: (typeof LIBRARIES)[number], workload: string, size: number, figures: Figures) =>
		cells.push({ library, workload, size, gc: false, reps: [figures] });

	for (const library of [...LIBRARIES, "reference" as const])
		it(`${library} runs W1-W4 and its figures are there`, async () => {
			const driver = await DRIVERS[library]();
			const f1 = await w1(driver, plan.w1Deltas);
			assert.ok(f1.ms! > 0 && Number.isFinite(f1.heapMb));
			add(library, "W1", plan.w1Deltas, { ...f1, ...asNext(await w1(driver, plan.w1Deltas)) });
			const f2 = await w2(driver, plan.w2Turns, Number.POSITIVE_INFINITY);
			assert.equal(f2.turns, plan.w2Turns);
			assert.ok(f2.meanMsPerTurn! > 0 && f2.msPerTurnAt10! > 0 && f2.msPerTurnAtEnd! > 0);
			add(library, "W2", plan.w2Turns, f2);
			for (const size of plan.w3Sizes) {
				const f3 = await w3(driver, size);
				assert.ok(f3.ms! > 0);
				add(library, "W3", size, f3);
			}
			const f4 = await w4(driver);
			// Node's millisecond timers may fire up to 1 ms short of 100 ms after they were set (measured: 99.3).
			assert.ok(f4.ms! >= 99, "the 100 ms tools ran");
			assert.ok(f4.afterToolsMs! >= 0 && f4.afterToolsMs! < f4.ms!, "the run's tail is measured");
			add(library, "W4", 0, { ...f4, ...asNext(await w4(driver)) });
			add(library, W4_WARM, 0, await w4(driver));
		});

	it("W4's size is the number of calls in its reply; 0 is the workload's eight", async () => {
		assert.equal(W4_CALLS, 8);
		for (const library of ["floor", "capstan"] as const) {
			const driver = await DRIVERS[library]();
			// w4 throws unless exactly that many tools started and ended.
			for (const size of [1, 3]) assert.ok((await w4(driver, size)).ms! >= 99, `${library}, ${size} calls`);
		}
	});

	it("the reference loop emits capstan's events, in capstan's order", async () => {
		const calls = [0, 1, 2].map((i) => ({ id: `call_${i}`, name: "wait", argumentsJson: `{"ms":${i}}` }));
		const wait = {
			name: "wait",
			description: "Wait",
			fields: { ms: "number" as const },
			run: async () => "waited",
		};
		const eventsOf = async (library: "capstan" | "reference") => {
			const seen: string[] = [];
			const driver = await DRIVERS[library]();
			await driver({
				source: new FakeSource([toolReply(calls)]),
				tools: [wait],
				maxTurns: 3,
				onEvent: (event) =>
					seen.push([event.type, event.assistantMessageEvent?.type].filter(Boolean).join(":")),
			});
			return seen;
		};
		const capstan = await eventsOf("capstan");
		assert.equal(capstan.filter((type) => type === "tool_execution_end").length, 3);
		assert.deepEqual(await eventsOf("reference"), capstan);
	});

	it("a spent budget serves the final reply instead of the plan, and says so", async () => {
		const source = new FakeSource([toolReply([{ id: "c", name: "echo", argumentsJson: "{}" }])], -1);
		const types: string[] = [];
		for await (const event of source.next()) types.push(event.type);
		assert.deepEqual(types, ["text-start", "text-delta", "text-end", "finish"]);
		assert.equal(source.cutShort, true);
	});

	it("renders every library and every target", () => {
		const info = {
			date: "2026-01-01T00:00:00.000Z",
			node: process.version,
			cpus: 2,
			cpuModel: "test",
			loadAverage: [0, 0, 0],
			versions: {},
			capstanCommit: "test",
		};
		const md = renderMarkdown(cells, plan, LIBRARIES, info, [], []);
		for (const library of LIBRARIES)
			assert.ok(md.includes(`| ${library}`) || md.includes(` ${library} |`), library);
		assert.match(md, /W3 growth exponent/);
		// The run after the measured one (the worker's --again), beside it: W1 ran it here, W3 did not.
		assert.match(md, /\| W1 the same process's next reply \(ms\) \| [\d.]+ \(1\.00×\) \| [\d.]+ \(/);
		assert.match(md, /\| W3 2 KB, the same process's next call \(ms\) \| – \|/);
		assert.match(md, /\| W4 the same process's next batch \(ms over floor\) \| [\d.]+ \| (\+|-)[\d.]+ \|/);
		assert.match(md, /\| W4 the run goes on after the last tool ends \(ms\) \| [\d.]+ \| [\d.]+ \|/);
		assert.match(
			md,
			/\| W4 once warm: batches 7–11 of one process \(ms over floor\) \| [\d.]+ \| (\+|-)[\d.]+ \|/,
		);
		assert.match(md, /\| W4 ≤ floor \+ 0\.5 ms \| (\+|-)[\d.]+ ms \| (pass|\*\*miss\*\*) \|/);
	});
});
