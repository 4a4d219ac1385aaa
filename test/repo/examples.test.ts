// Every example in examples/ runs as a user would run it (`npx tsx examples/<name>.ts`), offline and with no
// API key, and exits cleanly: the examples are type-checked against the package elsewhere, here they run.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { runTypeScript } from "./readme-blocks.js";

// Multi-process demos against a server (a worker, a client, a crash in between): their APIs run in
// test/dbos and test/restate against real PostgreSQL and Restate servers.
const DEMOS_WITH_SERVERS = new Set(["dbos.ts", "restate.ts"]);
// A hang guard, not a performance bound: tsx's start-up alone can take seconds on a loaded machine.
const TIMEOUT_MS = 60_000;

const examples = readdirSync(join(REPO_ROOT, "examples")).filter((name) => name.endsWith(".ts"));

describe("the examples", () => {
	it("are all run here but the server demos", () => {
		expect(examples.filter((name) => !DEMOS_WITH_SERVERS.has(name)).length).toBeGreaterThanOrEqual(9);
		for (const demo of DEMOS_WITH_SERVERS) expect(examples).toContain(demo);
	});

	describe.concurrent.each(examples.filter((name) => !DEMOS_WITH_SERVERS.has(name)))("%s", (name) => {
		it(
			"runs offline with no API key and exits cleanly",
			async () => {
				const run = await runTypeScript(join("examples", name), [], TIMEOUT_MS);
				const detail = run.stderr.trim() || run.stdout.trim() || "(no output)";
				expect(run.timedOut, `examples/${name} did not finish within ${TIMEOUT_MS / 1000} s`).toBe(false);
				expect(run.code, `examples/${name} failed:\n${detail}`).toBe(0);
				expect(run.stdout.trim(), `examples/${name} printed nothing`).not.toBe("");
			},
			TIMEOUT_MS + 5_000,
		);
	});
});
