/**
 * Running the README's code blocks as written: extract every ```ts / ```typescript block, write it to a file
 * inside the repo (so tsconfig `paths` resolve `capstan` imports to `src/`) and run it with tsx in a child
 * process, offline and with no API key in its environment.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../providers/support/fixtures.js";

/** One fenced block of a Markdown file. `line` and `endLine` are the 1-based lines of its two fences. */
export interface FencedBlock {
	lang: string;
	line: number;
	endLine: number;
	code: string;
}

/** A TypeScript block and, when the README shows what it prints, that output. */
export interface RunnableBlock extends FencedBlock {
	/** The ```text block that follows, with at most one paragraph of prose in between. */
	expected?: FencedBlock;
}

const FENCE = /^(`{3,})\s*([\w-]*)\s*$/;

/** Every fenced block, in file order. An unclosed fence is an error: the README is broken. */
export function fencedBlocks(markdown: string): FencedBlock[] {
	const lines = markdown.split("\n");
	const blocks: FencedBlock[] = [];
	for (let i = 0; i < lines.length; i++) {
		const open = FENCE.exec(lines[i] ?? "");
		if (!open) continue;
		const fence = open[1] ?? "```";
		const close = lines.findIndex((line, j) => j > i && line.trim() === fence);
		if (close < 0) throw new Error(`README.md line ${i + 1}: the code fence is never closed`);
		const code = lines.slice(i + 1, close).join("\n");
		blocks.push({ lang: open[2] ?? "", line: i + 1, endLine: close + 1, code });
		i = close;
	}
	return blocks;
}

/** The blocks to run, each paired with the ```text block that shows its output, if any. */
export function runnableBlocks(markdown: string): RunnableBlock[] {
	const lines = markdown.split("\n");
	const blocks = fencedBlocks(markdown);
	const runnable: RunnableBlock[] = [];
	blocks.forEach((block, index) => {
		if (block.lang !== "ts" && block.lang !== "typescript") return;
		const next = blocks[index + 1];
		const between = next ? lines.slice(block.endLine, next.line - 1) : [];
		const prose = between.join("\n").trim();
		const oneParagraph = !/\n\s*\n/.test(prose);
		runnable.push(next?.lang === "text" && oneParagraph ? { ...block, expected: next } : block);
	});
	return runnable;
}

/** What a block did when run. */
export interface BlockRun {
	stdout: string;
	stderr: string;
	/** Exit code, or undefined when the process was killed. */
	code: number | undefined;
	signal: string | undefined;
	timedOut: boolean;
}

/** Lines as the README shows them: trailing spaces and trailing empty lines are not significant. */
export function outputLines(text: string): string[] {
	const lines = text.split("\n").map((line) => line.trimEnd());
	while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/** The child's environment: nothing that could reach a real provider. */
function offlineEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/(API_KEY|_TOKEN|OLLAMA_MODEL)$/.test(key)) env[key] = value;
	}
	return { ...env, NO_COLOR: "1" };
}

/** A scratch folder inside the repo (gitignored), so the blocks resolve imports exactly as the repo's files do. */
export function scratchDir(): { dir: string; remove(): void } {
	const dir = mkdtempSync(join(REPO_ROOT, ".readme-blocks-"));
	return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Run one block as a file of its own with tsx. Never rejects: every failure is in the returned record. */
export function runBlock(block: FencedBlock, dir: string, timeoutMs: number): Promise<BlockRun> {
	const file = join(dir, `line-${block.line}.ts`);
	writeFileSync(file, `${block.code}\n`);
	return runTypeScript(file, [], timeoutMs);
}

/**
 * Run a TypeScript file of the repo with tsx, offline, from the repo root. Never rejects: every failure is
 * in the returned record.
 */
export function runTypeScript(file: string, args: readonly string[], timeoutMs: number): Promise<BlockRun> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			["--import", "tsx", file, ...args],
			{ cwd: REPO_ROOT, env: offlineEnv(), timeout: timeoutMs, killSignal: "SIGKILL", encoding: "utf8" },
			(error, stdout, stderr) => {
				const failure = error as (Error & { code?: unknown; signal?: unknown; killed?: boolean }) | null;
				resolve({
					stdout,
					stderr,
					code: failure ? (typeof failure.code === "number" ? failure.code : undefined) : 0,
					signal: typeof failure?.signal === "string" ? failure.signal : undefined,
					timedOut: failure?.killed === true,
				});
			},
		);
	});
}

/** Why a run failed, in words that name the block; undefined when it exited cleanly. */
export function failureOf(block: FencedBlock, run: BlockRun, timeoutMs: number): string | undefined {
	const where = `README.md line ${block.line} (the \`\`\`${block.lang} block)`;
	if (run.timedOut)
		return `${where} did not finish within ${timeoutMs / 1000} s: is a timer, a server or an unawaited run left open?\n${run.stderr}`;
	if (run.code === 0) return undefined;
	const how = run.code === undefined ? `was killed by ${run.signal}` : `exited with code ${run.code}`;
	const detail = run.stderr.trim() || run.stdout.trim() || "(no output)";
	return `${where} ${how}:\n${detail}`;
}
