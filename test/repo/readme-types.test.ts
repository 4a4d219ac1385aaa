// Every TypeScript block in the README type-checks under the repo's strict tsconfig, as a user's file would:
// readme.test.ts runs the blocks with tsx, which strips types without checking them.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { runnableBlocks, scratchDir } from "./readme-blocks.js";

const README = readFileSync(resolve(REPO_ROOT, "README.md"), "utf8");
// A hang guard, not a performance bound: one tsc over the blocks and the sources they import.
const TIMEOUT_MS = 120_000;
const scratch = scratchDir();
afterAll(() => scratch.remove());

describe("the README's code blocks", () => {
	it(
		"type-check under the repo's strict tsconfig",
		async () => {
			const blocks = runnableBlocks(README);
			expect(blocks.length).toBeGreaterThan(0);
			for (const block of blocks)
				writeFileSync(join(scratch.dir, `line-${block.line}.ts`), `${block.code}\n`);
			// The repo's compiler options and `capstan/*` paths, over the blocks alone.
			writeFileSync(
				join(scratch.dir, "tsconfig.json"),
				JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noEmit: true }, include: ["*.ts"] }),
			);
			const tsc = resolve(REPO_ROOT, "node_modules/typescript/bin/tsc");
			const result = await new Promise<{ code: number; output: string }>((done) => {
				execFile(
					process.execPath,
					[tsc, "-p", join(scratch.dir, "tsconfig.json"), "--pretty", "false"],
					{ cwd: REPO_ROOT, timeout: TIMEOUT_MS, encoding: "utf8" },
					(error, stdout, stderr) =>
						done({
							code: error ? Number((error as { code?: unknown }).code ?? 1) : 0,
							output: stdout + stderr,
						}),
				);
			});
			// tsc names each block's file `line-<n>.ts`: n is the README line of the block's opening fence.
			const diagnostics = result.output.replace(/^.*?line-(\d+)\.ts/gm, "README.md block at line $1");
			expect(result.code, diagnostics).toBe(0);
		},
		TIMEOUT_MS + 5_000,
	);
});
