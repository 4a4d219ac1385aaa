/**
 * What W5 and W6 print for the bench runner (one JSON object on the last stdout line) and how a workload
 * script runs each library in a child process of its own, so one library's JIT state, heap and globals (W5
 * swaps `globalThis.fetch`) never colour another's figures.
 */
import { spawn } from "node:child_process";

/** One table cell: a library's figure for one case. */
export interface Row {
	library: string;
	case: string;
	value: number;
	note?: string;
}

/** A target of the issue and whether this run met it. */
export interface Target {
	text: string;
	pass: boolean;
}

/** The runner's contract: the whole result of one workload. */
export interface WorkloadResult {
	workload: string;
	title: string;
	unit: string;
	higherIsBetter: boolean;
	rows: Row[];
	targets: Target[];
}

/** The value after `--name` on the command line, if any. */
export function argValue(name: string, argv: readonly string[] = process.argv): string | undefined {
	const at = argv.indexOf(`--${name}`);
	return at >= 0 ? argv[at + 1] : undefined;
}

/** Whether `--name` is on the command line. */
export function hasFlag(name: string, argv: readonly string[] = process.argv): boolean {
	return argv.includes(`--${name}`);
}

/** Print one JSON line as the last line of stdout (the parent, or the runner, reads only that line). */
export function emit(value: unknown): void {
	process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Run this same script again as `--library <library>` with the same loader flags (tsx's), and parse the JSON
 * on its last stdout line. Its stderr passes through; a failing child rejects with its exit code.
 */
export function runChild(script: string, library: string, extra: readonly string[] = []): Promise<unknown> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [...process.execArgv, script, "--library", library, ...extra], {
			stdio: ["ignore", "pipe", "inherit"],
		});
		let out = "";
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			out += chunk;
		});
		child.on("error", reject);
		child.on("close", (code) => {
			const last = out.trimEnd().split("\n").at(-1) ?? "";
			if (code !== 0) return reject(new Error(`${library}: child exited with ${code}`));
			try {
				resolve(JSON.parse(last));
			} catch {
				reject(
					new Error(
						`${library}: no JSON on the last stdout line (got ${JSON.stringify(last.slice(0, 200))})`,
					),
				);
			}
		});
	});
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
	if (values.length === 0) throw new Error("median of no values");
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2
		? (sorted[mid] as number)
		: ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
