// Every TypeScript block in the README runs as written, and prints what the README says it prints.
import { existsSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import {
	failureOf,
	fencedBlocks,
	outputLines,
	runBlock,
	runnableBlocks,
	scratchDir,
} from "./readme-blocks.js";

const README = readFileSync(resolve(REPO_ROOT, "README.md"), "utf8");
// A hang guard, not a performance bound: under a loaded CI machine a block's tsx start-up alone can take
// seconds. Alone, the whole file takes about 5 s.
const TIMEOUT_MS = 60_000;
const scratch = scratchDir();
afterAll(() => scratch.remove());

describe("the README's code blocks", () => {
	const blocks = runnableBlocks(README);

	it("has a quickstart whose output is shown", () => {
		expect(blocks.length).toBeGreaterThan(0);
		expect(
			blocks[0]?.expected,
			"the first ```ts block is the quickstart; a ```text block shows its output",
		).toBeDefined();
	});

	describe.concurrent.each(blocks)("block at README.md line $line", (block) => {
		it(
			"runs as written and prints what the README shows",
			async () => {
				const run = await runBlock(block, scratch.dir, TIMEOUT_MS);
				const failure = failureOf(block, run, TIMEOUT_MS);
				if (failure) expect.fail(failure);
				if (!block.expected) return;
				expect(
					outputLines(run.stdout),
					`README.md line ${block.line}: what the block printed differs from the \`\`\`text block at line ${block.expected.line}`,
				).toEqual(outputLines(block.expected.code));
			},
			TIMEOUT_MS + 5_000,
		);
	});
});

describe("the README's links", () => {
	it("point at files that exist inside the repo (web addresses aside)", () => {
		const targets = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map(
			(m) => (m[1] as string).split("#")[0] as string,
		);
		const files = targets.filter((target) => target !== "" && !/^[a-z]+:/i.test(target));
		expect(files.length).toBeGreaterThan(0);
		const outside = files.filter((target) =>
			relative(REPO_ROOT, resolve(REPO_ROOT, target)).startsWith(".."),
		);
		expect(outside, "links that leave the repository").toEqual([]);
		expect(
			files.filter((target) => !existsSync(resolve(REPO_ROOT, target))),
			"links to missing files",
		).toEqual([]);
	});

	it("to a section of the README name a heading it has (GitHub's anchors)", () => {
		const anchors = new Set(
			[...README.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
				(m[1] as string)
					.toLowerCase()
					.replace(/[^\p{L}\p{N} _-]/gu, "")
					.replace(/ /g, "-"),
			),
		);
		const inPage = [...README.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1] as string);
		expect(inPage.length).toBeGreaterThan(0);
		expect(inPage.filter((anchor) => !anchors.has(anchor))).toEqual([]);
	});
});

describe("the README block runner", () => {
	it("finds fences with their languages and lines, and pairs output shown after one paragraph", () => {
		const markdown = [
			"# t", // 1
			"```ts", // 2
			"console.log(1);", // 3
			"```", // 4
			"", // 5
			"It prints:", // 6
			"", // 7
			"```text", // 8
			"1", // 9
			"```", // 10
			"```typescript", // 11
			"x;", // 12
			"```", // 13
			"", // 14
			"One paragraph.", // 15
			"", // 16
			"Another.", // 17
			"", // 18
			"```text", // 19
			"not its output", // 20
			"```", // 21
		].join("\n");
		expect(fencedBlocks(markdown).map((b) => [b.lang, b.line, b.endLine])).toEqual([
			["ts", 2, 4],
			["text", 8, 10],
			["typescript", 11, 13],
			["text", 19, 21],
		]);
		const runnable = runnableBlocks(markdown);
		expect(runnable.map((b) => [b.line, b.expected?.line])).toEqual([
			[2, 8],
			[11, undefined],
		]);
		expect(() => fencedBlocks("```ts\nopen")).toThrow(/line 1: the code fence is never closed/);
	});

	it(
		"reports a block that throws with its line and the error",
		async () => {
			const block = { lang: "ts", line: 42, endLine: 44, code: 'throw new Error("boom in the README");' };
			const run = await runBlock(block, scratch.dir, TIMEOUT_MS);
			const failure = failureOf(block, run, TIMEOUT_MS);
			expect(failure).toMatch(/^README\.md line 42 \(the ```ts block\) exited with code 1:/);
			expect(failure).toContain("boom in the README");
		},
		TIMEOUT_MS + 5_000,
	);

	it(
		"runs a block offline: no API key reaches it",
		async () => {
			const block = {
				lang: "ts",
				line: 7,
				endLine: 9,
				code: 'console.log(Object.keys(process.env).filter((k) => k.endsWith("API_KEY")).length);',
			};
			process.env.CAPSTAN_README_TEST_API_KEY = "sentinel";
			try {
				const run = await runBlock(block, scratch.dir, TIMEOUT_MS);
				expect(failureOf(block, run, TIMEOUT_MS)).toBeUndefined();
				expect(outputLines(run.stdout)).toEqual(["0"]);
			} finally {
				delete process.env.CAPSTAN_README_TEST_API_KEY;
			}
		},
		TIMEOUT_MS + 5_000,
	);
});
