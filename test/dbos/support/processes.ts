// Real worker processes for the DBOS tests: `node --import tsx <script>` directly (not through the tsx
// wrapper), so a SIGKILL hits the process that runs the workflow.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { REPO_ROOT } from "../../providers/support/fixtures.js";

/** A spawned script: its output so far, a promise of its exit, and the process. */
export interface Spawned {
	child: ChildProcess;
	/** Standard output and error, interleaved (for failure messages). */
	output(): string;
	/** Standard output only. */
	stdout(): string;
	exited: Promise<number | null>;
}

/** Spawn `test/dbos/support/<script>` with `env` added to ours. */
export function spawnScript(script: string, env: Record<string, string>): Spawned {
	const child = spawn(
		process.execPath,
		["--import", "tsx", resolve(REPO_ROOT, "test/dbos/support", script)],
		{
			cwd: REPO_ROOT,
			env: { ...process.env, ...env },
			stdio: ["ignore", "pipe", "pipe"],
		},
	);
	let output = "";
	let stdout = "";
	child.stdout?.on("data", (chunk) => {
		output += String(chunk);
		stdout += String(chunk);
	});
	child.stderr?.on("data", (chunk) => (output += String(chunk)));
	const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
	return { child, output: () => output, stdout: () => stdout, exited };
}

/** Resolve once `check` holds, polling; fail with `what` and the processes' output after `timeoutMs`. */
export async function waitUntil(
	check: () => boolean,
	what: string,
	processes: Spawned[] = [],
	timeoutMs = 60_000,
): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > until)
			throw new Error(`timed out waiting for ${what}\n${processes.map((p) => p.output()).join("\n---\n")}`);
		await new Promise((done) => setTimeout(done, 25));
	}
}

/** A worker process, resolved once DBOS launched in it. */
export async function startWorker(env: Record<string, string>): Promise<Spawned> {
	const worker = spawnScript("worker.ts", env);
	let exited = false;
	void worker.exited.then(() => (exited = true));
	await waitUntil(() => worker.output().includes("ready ") || exited, "a worker to launch", [worker]);
	if (exited) throw new Error(`the worker exited before it was ready:\n${worker.output()}`);
	return worker;
}

/** Resolve once the file exists. */
export function waitForFile(path: string, processes: Spawned[] = []): Promise<void> {
	return waitUntil(() => existsSync(path), path, processes);
}
