/**
 * The Restate server the tests use (started by `scripts/services/restate.sh`, which `.ci/run` runs), worker
 * processes, and waiting on files. Without a server the suites skip with a message saying how to start one;
 * under `CAPSTAN_REQUIRE_SERVICES=1` (CI) a missing server fails them instead.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { REPO_ROOT } from "../../providers/support/fixtures.js";
import { countLines, type WorkerConfig } from "./agent.js";

/** Where the Restate server listens. */
export interface RestateUrls {
	ingressUrl: string;
	adminUrl: string;
}

/** The server from the environment, if one was started. */
export function restateFromEnv(): RestateUrls | undefined {
	const ingressUrl = process.env.CAPSTAN_TEST_RESTATE_URL;
	const adminUrl = process.env.CAPSTAN_TEST_RESTATE_ADMIN_URL;
	return ingressUrl && adminUrl ? { ingressUrl, adminUrl } : undefined;
}

/** `describe` with the Restate server, or a skip (a failure under CAPSTAN_REQUIRE_SERVICES=1) without one. */
export function describeWithRestate(name: string, body: (urls: RestateUrls) => void): void {
	const urls = restateFromEnv();
	if (urls) {
		describe(name, () => body(urls));
		return;
	}
	const missing =
		'no Restate server: CAPSTAN_TEST_RESTATE_URL and CAPSTAN_TEST_RESTATE_ADMIN_URL are unset (run `eval "$(scripts/services/restate.sh start)"` first)';
	if (process.env.CAPSTAN_REQUIRE_SERVICES === "1") {
		describe(name, () => {
			it("needs its Restate server", () => {
				throw new Error(`CAPSTAN_REQUIRE_SERVICES=1 but ${missing}`);
			});
		});
		return;
	}
	console.warn(`skipping "${name}": ${missing}`);
	describe.skip(name, () => body({ ingressUrl: "", adminUrl: "" }));
}

/** A fresh temporary directory. */
export function tempDir(prefix: string): string {
	return mkdtempSync(join(tmpdir(), `capstan-${prefix}-`));
}

/** A unique Restate object name for one test (parallel files must never share a service name). */
export function uniqueName(prefix: string): string {
	return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** A port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
		});
	});
}

/** A worker process, started and registered. */
export interface WorkerProcess {
	child: ChildProcess;
	url: string;
	/** SIGKILL, and wait until the process is gone. */
	kill(): Promise<void>;
}

/** Start a worker process and wait for `READY` (it has registered itself with the server by then). */
export function startWorker(config: WorkerConfig): Promise<WorkerProcess> {
	const child = spawn(
		process.execPath,
		["--import", "tsx", join(REPO_ROOT, "test/restate/support/worker.ts"), JSON.stringify(config)],
		{ cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
	);
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	const kill = async () => {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		await exited;
	};
	let output = "";
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			void kill();
			reject(new Error(`the worker did not start within 30 s:\n${output}`));
		}, 30_000);
		child.stderr?.on("data", (chunk: Buffer) => {
			output += chunk.toString("utf8");
		});
		child.stdout?.on("data", (chunk: Buffer) => {
			output += chunk.toString("utf8");
			const ready = /READY (\S+)/.exec(output);
			if (ready?.[1]) {
				clearTimeout(timer);
				resolve({ child, url: ready[1], kill });
			}
		});
		child.once("exit", (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`the worker exited (${code ?? signal}) before it was ready:\n${output}`));
		});
	});
}

/** Wait (bounded) until the count file has `line` (at least `times` times). */
export async function waitForLine(countFile: string, line: string, times = 1, ms = 30_000): Promise<void> {
	const until = Date.now() + ms;
	while (countLines(countFile).filter((seen) => seen === line).length < times) {
		if (Date.now() > until)
			throw new Error(
				`no "${line}" within ${ms} ms; the count file has:\n${countLines(countFile).join("\n")}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** One row of an invocation's journal, as Restate's admin introspection (`sys_journal`) shows it. */
export interface JournalRow {
	index: number;
	entry_type: string;
	name: string | null;
	entry_json: string;
}

/** The journal of `invocationId`, in order, through the admin API's SQL introspection. */
export async function journalRows(adminUrl: string, invocationId: string): Promise<JournalRow[]> {
	const response = await fetch(`${adminUrl}/query`, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/json" },
		body: JSON.stringify({
			query: `SELECT index, entry_type, name, entry_json FROM sys_journal WHERE id = '${invocationId}' ORDER BY index`,
		}),
	});
	if (!response.ok) throw new Error(`the admin query failed: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { rows: JournalRow[] }).rows;
}

/** The statuses of the invocations of `target` (`service/key/handler`), through the admin API's SQL introspection. */
export async function invocationStatuses(adminUrl: string, target: string): Promise<string[]> {
	const response = await fetch(`${adminUrl}/query`, {
		method: "POST",
		headers: { "content-type": "application/json", accept: "application/json" },
		body: JSON.stringify({ query: `SELECT status FROM sys_invocation WHERE target = '${target}'` }),
	});
	if (!response.ok) throw new Error(`the admin query failed: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { rows: { status: string }[] }).rows.map((row) => row.status);
}

/**
 * Wait (bounded) until Restate has delivered a cancel to `invocationId`: its journal holds the cancel signal
 * (signal 1). Whatever the run's worker proposes after that (a tool's result) comes after the cancel in the
 * journal, so the worker sees the cancel first.
 */
export async function waitForCancelSignal(
	adminUrl: string,
	invocationId: string,
	ms = 30_000,
): Promise<void> {
	const cancelled = (row: JournalRow) =>
		row.entry_type === "Notification: Signal" &&
		JSON.parse(row.entry_json).Notification?.Signal?.id?.Index === 1;
	const until = Date.now() + ms;
	while (!(await journalRows(adminUrl, invocationId)).some(cancelled)) {
		if (Date.now() > until) throw new Error(`no cancel signal in ${invocationId}'s journal within ${ms} ms`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** A private Restate server in its own run directory (for the test that kills the server too). */
export interface PrivateServer extends RestateUrls {
	runDir: string;
	/** SIGKILL the server, and wait until it is gone (or a zombie nobody reaps). */
	kill(): Promise<void>;
	/** Start it (again): a run directory that holds data restarts from that data, on the same ports. */
	start(): void;
	/** Stop it and remove its run directory. */
	stop(): void;
}

/** Whether `pid` runs (a zombie does not: its parent is gone and nothing may reap it). */
function processAlive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
	} catch {
		return false;
	}
}

/** A Restate server of the test's own, through the same script CI uses. */
export function privateServer(): PrivateServer {
	const runDir = join(tempDir("restate-server"), "run");
	const script = join(REPO_ROOT, "scripts/services/restate.sh");
	const env = { ...process.env, CAPSTAN_RESTATE_RUN_DIR: runDir };
	const urls: RestateUrls = { ingressUrl: "", adminUrl: "" };
	const server: PrivateServer = {
		runDir,
		get ingressUrl() {
			return urls.ingressUrl;
		},
		get adminUrl() {
			return urls.adminUrl;
		},
		async kill() {
			const pid = Number(readFileSync(join(runDir, "pid"), "utf8").trim());
			process.kill(pid, "SIGKILL");
			for (let waited = 0; processAlive(pid); waited += 20) {
				if (waited > 10_000) throw new Error(`the Restate server (pid ${pid}) survived SIGKILL for 10 s`);
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
		},
		start() {
			const out = execFileSync("bash", [script, "start"], {
				env,
				encoding: "utf8",
				stdio: ["ignore", "pipe", "pipe"],
			});
			urls.ingressUrl = /CAPSTAN_TEST_RESTATE_URL=(\S+)/.exec(out)?.[1] ?? "";
			urls.adminUrl = /CAPSTAN_TEST_RESTATE_ADMIN_URL=(\S+)/.exec(out)?.[1] ?? "";
			if (!urls.ingressUrl || !urls.adminUrl) throw new Error(`restate.sh start printed no URLs:\n${out}`);
		},
		stop() {
			execFileSync("bash", [script, "stop"], { env, stdio: "ignore" });
		},
	};
	return server;
}
