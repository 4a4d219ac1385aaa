/**
 * `instructions.ts`'s reading of callgrind output: name compression, inclusive costs from `calls=` records,
 * the V8 breakdown; and, where valgrind is installed, a real count of the floor's W4 batches under it (the
 * marks the worker sets must be the ones callgrind zeroes and dumps at).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { transpileWorkers } from "../build.js";
import { CALLGRIND_ARGS, parseCallgrind, V8_WORK, v8Breakdown } from "../src/callgrind.js";

const LITERAL = "v8::internal::Runtime_CreateObjectLiteral(int, unsigned long*, v8::internal::Isolate*)";
const TIERING =
	"v8::internal::TieringManager::OnInterruptTick(v8::internal::Handle<v8::internal::JSFunction>)";

// main (10 own) calls the literal runtime 3 times (300 inclusive) and the tiering manager once (50); the
// literal runtime, referred to by its compressed id the second time, calls the tiering manager (5).
const DUMP = `version: 1
creator: callgrind-3.19.0
events: Ir
fl=(1) ???
fn=(1) main
0 10
cfn=(2) ${LITERAL}
calls=3 0
0 300
cfn=(3) ${TIERING}
calls=1 0
0 50
fn=(2)
0 295
cfn=(3)
calls=1 0
0 5
fn=(3)
0 55
summary: 360
`;

describe("callgrind output", () => {
	it("sums each function's inclusive cost over its call sites, names decompressed", () => {
		const dump = parseCallgrind(DUMP);
		assert.equal(dump.total, 360);
		assert.equal(dump.inclusive.get(LITERAL), 300);
		assert.equal(dump.inclusive.get(TIERING), 55);
		assert.equal(dump.inclusive.has("main"), false, "nothing calls main");
	});

	it("breaks a dump into V8's work and the program's, summing to the total", () => {
		const rows = v8Breakdown(parseCallgrind(DUMP));
		assert.equal(rows.length, V8_WORK.length + 1);
		const of = (start: string) => rows.find((r) => r.label.startsWith(start))!.instructions;
		assert.equal(of("object literals"), 300);
		// Counted inclusively, the tiering call made from inside the literal runtime is in both: the
		// categories are only disjoint when V8's entries do not call one another, as they do not in practice.
		assert.equal(of("tiering"), 55);
		assert.equal(of("the program itself"), 360 - 300 - 55);
	});

	it("takes totals: when there is no summary: line, and refuses what is not a dump", () => {
		assert.equal(parseCallgrind("events: Ir\nfn=(1) f\n0 7\ntotals: 7\n").total, 7);
		assert.throws(() => parseCallgrind("hello\n"), /not a callgrind dump/);
	});
});

const valgrind = spawnSync("valgrind", ["--version"]).status === 0;

describe("a real count", { skip: valgrind ? false : "valgrind is not installed" }, () => {
	it("counts the floor's second and third W4 batch on the main thread", async () => {
		await transpileWorkers();
		const dir = mkdtempSync(join(tmpdir(), "capstan-callgrind-test-"));
		try {
			const worker = fileURLToPath(new URL("../dist/instructions-worker.js", import.meta.url));
			const prefix = join(dir, "floor");
			const run = spawnSync(
				"valgrind",
				[...CALLGRIND_ARGS, `--callgrind-out-file=${prefix}`, process.execPath, worker, "--lib=floor"],
				{ encoding: "utf8", timeout: 300_000 },
			);
			assert.equal(run.status, 0, run.stderr.slice(-500));
			const files = readdirSync(dir);
			assert.ok(files.includes("floor.1-01") && files.includes("floor.2-01"), files.join(", "));
			for (const part of [1, 2]) {
				const dump = parseCallgrind(readFileSync(`${prefix}.${part}-01`, "utf8"));
				// A batch is hundreds of thousands of instructions at least; a mark in the wrong place would
				// leave a dump of the process's start-up (tens of millions) or of nothing.
				assert.ok(dump.total > 100_000 && dump.total < 20_000_000, `batch ${part + 1}: ${dump.total}`);
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
