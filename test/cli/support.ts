/**
 * Runs the real `capstan` command as a child process (`src/cli/main.ts` through the tsx loader), in a
 * temporary directory with a clean environment: no API key, HOME and XDG_CONFIG_HOME inside the temp dir,
 * so neither the developer's keys nor their settings can leak into a test. TMPDIR is left alone (tsx keeps
 * its transform cache there); the demo's sandboxes are found in the output and removed after the test.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach } from "vitest";
import { main } from "../../src/cli/command.js";
import type { AgentMessage, ToolResultMessage } from "../../src/core/messages.js";
import { toolCallsOf } from "../../src/core/messages.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";

const MAIN = resolve(REPO_ROOT, "src/cli/main.ts");
const TSX = resolve(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");

const dirs: string[] = [];
const children = new Set<ChildProcessWithoutNullStreams>();

/** Remove the temp dirs and kill leftover children after each test; call once per test file. */
export function cleanUpAfterEach(): void {
	afterEach(() => {
		for (const child of children) child.kill("SIGKILL");
		children.clear();
		for (const dir of new Set(dirs.splice(0))) rmSync(dir, { recursive: true, force: true });
	});
}

/** A fresh working directory for the command (also its HOME). */
export function tempProject(): string {
	const dir = mkdtempSync(join(tmpdir(), "capstan-cli-test-"));
	dirs.push(dir);
	return dir;
}

/** The environment of every run: PATH only, HOME and XDG inside `cwd`, plus `extra`. */
export function cleanEnv(cwd: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return {
		PATH: process.env.PATH ?? "/usr/bin:/bin",
		HOME: cwd,
		XDG_CONFIG_HOME: join(cwd, ".config"),
		...extra,
	};
}

/** Options of a run. */
export interface RunOptions {
	cwd: string;
	/** Written to stdin, which is then closed (default: closed at once, empty). */
	input?: string;
	env?: Record<string, string>;
	/** Run the command under this one, as in `["setpriv", "--bounding-set=-dac_override"]`. */
	under?: readonly string[];
}

/** A finished run. */
export interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Start the command; the caller drives stdin and reads stdout. */
export function startCli(
	args: readonly string[],
	options: Omit<RunOptions, "input">,
): ChildProcessWithoutNullStreams {
	const [program, ...argv] = [...(options.under ?? []), process.execPath, "--import", TSX, MAIN, ...args];
	const child = spawn(program!, argv, {
		cwd: options.cwd,
		env: cleanEnv(options.cwd, options.env),
		stdio: "pipe",
	});
	children.add(child);
	child.stdout.setEncoding("utf8");
	child.stderr.setEncoding("utf8");
	const noteSandboxes = (chunk: string): void => {
		for (const match of chunk.matchAll(/\/[^\s"']*capstan-demo-[A-Za-z0-9]{6}/g)) dirs.push(match[0]);
	};
	child.stdout.on("data", noteSandboxes);
	child.stderr.on("data", noteSandboxes);
	return child;
}

/** Run the command to its end. */
export function runCli(args: readonly string[], options: RunOptions): Promise<RunResult> {
	const child = startCli(args, options);
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: string) => {
		stdout += chunk;
	});
	child.stderr.on("data", (chunk: string) => {
		stderr += chunk;
	});
	child.stdin.end(options.input ?? "");
	return new Promise((resolveRun, reject) => {
		child.on("error", reject);
		child.on("close", (code) => {
			children.delete(child);
			resolveRun({ code, stdout, stderr });
		});
	});
}

/** Run the command with its stdout opened on `path` (e.g. `/dev/full`); resolves to its exit code and stderr. */
export function runCliWithStdout(
	args: readonly string[],
	options: RunOptions,
	path: string,
): Promise<{ code: number | null; stderr: string }> {
	const fd = openSync(path, "w");
	const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
		cwd: options.cwd,
		env: cleanEnv(options.cwd, options.env),
		stdio: ["pipe", fd, "pipe"],
	});
	closeSync(fd); // the child has its own copy
	let stderr = "";
	child.stderr?.setEncoding("utf8");
	child.stderr?.on("data", (chunk: string) => {
		stderr += chunk;
	});
	child.stdin?.end(options.input ?? "");
	return new Promise((resolveRun, reject) => {
		child.on("error", reject);
		child.on("close", (code) => resolveRun({ code, stderr }));
	});
}

/** Resolves with the accumulated stdout once `predicate` holds for it. */
export function waitForOutput(
	child: ChildProcessWithoutNullStreams,
	predicate: (stdout: string) => boolean,
): Promise<string> {
	return new Promise((resolveWait, reject) => {
		let stdout = "";
		const onData = (chunk: string): void => {
			stdout += chunk;
			if (predicate(stdout)) {
				child.stdout.off("data", onData);
				resolveWait(stdout);
			}
		};
		child.stdout.on("data", onData);
		child.once("close", (code) =>
			reject(new Error(`exited (${code}) before the output appeared:\n${stdout}`)),
		);
	});
}

/** Every line of JSON-lines output, parsed (throws on a line that is not JSON). */
export function jsonLines(text: string): Record<string, unknown>[] {
	return text
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The session files in a folder. */
export function sessionFiles(dir: string): string[] {
	try {
		return readdirSync(dir)
			.filter((name) => name.endsWith(".jsonl"))
			.map((name) => join(dir, name));
	} catch {
		return [];
	}
}

/** The messages of a session file, read with the simplest logic (independent of the loader). */
export function sessionMessages(path: string): AgentMessage[] {
	const lines = readFileSync(path, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "");
	const messages: AgentMessage[] = [];
	for (const line of lines.slice(1)) {
		let entry: { type?: string; message?: AgentMessage; index?: number };
		try {
			entry = JSON.parse(line);
		} catch {
			continue; // a line torn by SIGKILL
		}
		if (entry.type === "message" && entry.message) messages.push(entry.message);
		if (entry.type === "revision" && entry.message && entry.index !== undefined)
			messages[entry.index] = entry.message;
	}
	return messages;
}

/** SPEC I1: every tool call has exactly one result, after the assistant message holding it. */
export function unpairedCalls(messages: readonly AgentMessage[]): string[] {
	const problems: string[] = [];
	const open = new Set<string>();
	const seen = new Set<string>();
	for (const message of messages) {
		const role = (message as { role?: string }).role;
		if (role === "assistant") {
			for (const id of open) problems.push(`${id}: no result before the next reply`);
			open.clear();
			for (const call of toolCallsOf(message as never)) open.add(call.id);
		} else if (role === "toolResult") {
			const id = (message as ToolResultMessage).toolCallId;
			if (!open.delete(id))
				problems.push(`${id}: result without an open call${seen.has(id) ? " (duplicate)" : ""}`);
			seen.add(id);
		}
	}
	for (const id of open) problems.push(`${id}: no result`);
	return problems;
}

/** The balance of start/end pairs in a list of AgentEvents (SPEC L4): empty when balanced. */
export function unbalancedEvents(events: readonly { type: string }[]): string[] {
	const counts = new Map<string, number>();
	for (const { type } of events) {
		const [kind, edge] = [type.replace(/_(start|end)$/, ""), type.match(/_(start|end)$/)?.[1]];
		if (!edge || type === "message_update") continue;
		counts.set(kind, (counts.get(kind) ?? 0) + (edge === "start" ? 1 : -1));
	}
	const problems = [...counts].filter(([, n]) => n !== 0).map(([kind, n]) => `${kind}: ${n}`);
	if (events[events.length - 1]?.type !== "agent_end") problems.push("agent_end is not last");
	return problems;
}

/** A JSON line the RPC mode wrote. */
export type RpcLine = Record<string, unknown> & { type: string };

/** Drives `capstan --rpc`: sends commands, waits for the lines it writes (each line is matched once). */
export class RpcClient {
	readonly lines: RpcLine[] = [];
	private readonly consumed = new Set<number>();
	private readonly waiters = new Set<() => void>();
	private buffer = "";
	readonly exited: Promise<number | null>;

	constructor(readonly child: ChildProcessWithoutNullStreams) {
		child.stdout.on("data", (chunk: string) => {
			this.buffer += chunk;
			let newline = this.buffer.indexOf("\n");
			while (newline >= 0) {
				const line = this.buffer.slice(0, newline);
				this.buffer = this.buffer.slice(newline + 1);
				if (line.trim() !== "") this.lines.push(JSON.parse(line) as RpcLine); // every line must be JSON
				newline = this.buffer.indexOf("\n");
			}
			for (const wake of this.waiters) wake();
		});
		this.exited = new Promise((resolveExit) => child.on("close", (code) => resolveExit(code)));
	}

	/** Write one command line. */
	send(command: Record<string, unknown>): void {
		this.child.stdin.write(`${JSON.stringify(command)}\n`);
	}

	/** Write raw text (for malformed lines). */
	sendRaw(text: string): void {
		this.child.stdin.write(text);
	}

	/** The first line not matched before that satisfies `predicate`, now or when it arrives. */
	waitFor(predicate: (line: RpcLine) => boolean, what = "a matching line"): Promise<RpcLine> {
		return new Promise((resolveLine, reject) => {
			const check = (): boolean => {
				const index = this.lines.findIndex((line, i) => !this.consumed.has(i) && predicate(line));
				if (index < 0) return false;
				this.consumed.add(index);
				this.waiters.delete(wake);
				resolveLine(this.lines[index] as RpcLine);
				return true;
			};
			const wake = (): void => void check();
			if (check()) return;
			this.waiters.add(wake);
			this.exited.then(() => {
				if (this.waiters.delete(wake)) reject(new Error(`capstan --rpc exited before ${what}`));
			});
		});
	}

	/** The response to the command with `id`. */
	response(id: number): Promise<RpcLine> {
		return this.waitFor((line) => line.type === "response" && line.id === id, `the response to #${id}`);
	}

	/** The next AgentEvent of `type` matching `predicate`. */
	event(
		type: string,
		predicate: (event: Record<string, unknown>) => boolean = () => true,
	): Promise<Record<string, unknown>> {
		return this.waitFor(
			(line) =>
				line.type === "event" &&
				(line.event as { type?: string }).type === type &&
				predicate(line.event as Record<string, unknown>),
			`event ${type}`,
		).then((line) => line.event as Record<string, unknown>);
	}

	/** Close stdin (end of commands) and wait for the exit code. */
	end(): Promise<number | null> {
		this.child.stdin.end();
		return this.exited;
	}
}

/**
 * Run the command in this process (`main`) in `cwd` with a clean environment and no input, its output
 * collected; `stdoutIsTerminal` makes its stdout say it is a terminal.
 */
export async function runMain(
	argv: string[],
	cwd: string,
	stdoutIsTerminal = false,
): Promise<{ code: number; stdout: string; stderr: string }> {
	const stdout = Object.assign(new PassThrough(), { isTTY: stdoutIsTerminal });
	const stderr = new PassThrough();
	let out = "";
	let err = "";
	stdout.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	stderr.on("data", (chunk: Buffer) => {
		err += chunk.toString();
	});
	const stdin = new PassThrough();
	stdin.end();
	const code = await main({ argv, env: cleanEnv(cwd), cwd, stdin, stdout, stderr });
	return { code, stdout: out, stderr: err };
}
