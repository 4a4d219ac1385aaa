import { type ChildProcess, spawn } from "node:child_process";
import { MAX_TIMER_DELAY_MS } from "../core/timer.js";
import { otherGroupsOfSession } from "./process-status.js";

/** How a command run in its own process group ended. */
export interface GroupRun {
	pid: number | undefined;
	exitCode: number | null;
	/** The signal that ended the command's shell, if one did. */
	signal: NodeJS.Signals | null;
	/** Why capstan ended the group, if it did. */
	killedFor?: "timeout" | "abort";
}

/** Options of {@link runInProcessGroup}. */
export interface GroupRunOptions {
	shell: string;
	command: string;
	cwd: string;
	env: Record<string, string | undefined>;
	timeoutMs: number;
	killGraceMs: number;
	signal: AbortSignal;
	onOutput(chunk: Buffer): void;
}

/**
 * Live groups, ended when this process exits: detached children do not get the terminal's signals, so a host
 * that exits mid-command would otherwise leave them running.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * SIGKILL the process group of every shell command still running. Runs by itself on `process.exit`; a host
 * that handles SIGINT/SIGTERM by other means than `process.exit` calls it in its handler (Node runs no
 * `exit` listener when a signal kills it).
 */
export function endRunningCommands(): void {
	for (const pid of liveGroups) signalCommand(pid, "SIGKILL");
	liveGroups.clear();
}

/**
 * `setTimeout` for a delay a host configures: one past {@link MAX_TIMER_DELAY_MS} (`Infinity` for "no limit") would
 * fire after 1 ms instead, so that every command timed out at once.
 */
function after(ms: number, fn: () => void): NodeJS.Timeout {
	return setTimeout(fn, Math.min(ms, MAX_TIMER_DELAY_MS));
}

/**
 * Send a signal to every process the command started: the shell's process group, and (on Linux) every other
 * group of the session the shell leads. Job control (`set -m`, an interactive `bash -i`) puts each background
 * job in a group of its own, which a signal to the shell's group never reaches; they stay in its session. A
 * process that started a session of its own (`setsid`) has left on purpose and is not signalled.
 */
function signalCommand(pid: number, signal: NodeJS.Signals): void {
	signalGroup(pid, signal);
	for (const group of otherGroupsOfSession(pid)) signalGroup(group, signal);
}

/** Send a signal to every process of the group; best effort — a group already gone is the goal. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// ESRCH: nothing left. EPERM cannot happen for our own children; either way there is nothing to do.
	}
}

/**
 * Run `<shell> -c <command>` as the leader of a new session and process group, and settle once every process
 * of the group is gone. A plain `spawn(…, { signal })` kills only the shell and leaves its children
 * (`sleep 30 &`) running and holding the pipes; here abort and timeout send SIGTERM to the whole group (and,
 * on Linux, to the session's other groups: `set -m` jobs), then SIGKILL after a grace. Processes the command
 * leaves in the background are ended the same way once the shell exits. A process that leaves the session on
 * purpose (`setsid`, a daemon) is beyond reach and may outlive the call; the call stops waiting for it.
 */
export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRun> {
	return new Promise((resolve, reject) => new GroupCall(options, resolve, reject).start());
}

/** One command's life: spawn, watch the signal and the clock, end the group, settle once. */
class GroupCall {
	private child: ChildProcess | undefined;
	private readonly run: GroupRun = { pid: undefined, exitCode: null, signal: null };
	private readonly timers: NodeJS.Timeout[] = [];
	private ending = false;
	private settled = false;
	private readonly onAbort = () => this.endGroup("abort");

	constructor(
		private readonly options: GroupRunOptions,
		private readonly resolve: (run: GroupRun) => void,
		private readonly reject: (error: Error) => void,
	) {}

	start(): void {
		const { options } = this;
		try {
			// `exec 2>&1` first: one pipe keeps stdout and stderr in the order the command wrote them.
			this.child = spawn(options.shell, ["-c", `exec 2>&1\n${options.command}`], {
				cwd: options.cwd,
				env: options.env,
				detached: true,
				stdio: ["ignore", "pipe", "ignore"],
			});
		} catch (error) {
			this.reject(error as Error);
			return;
		}
		const child = this.child;
		this.run.pid = child.pid;
		if (child.pid !== undefined) {
			if (!exitHookInstalled) {
				exitHookInstalled = true;
				process.once("exit", endRunningCommands);
			}
			liveGroups.add(child.pid);
		}
		child.stdout?.on("data", options.onOutput);
		child.once("error", (error) => {
			if (child.pid !== undefined || this.settled) return;
			this.settled = true;
			this.cleanup();
			this.reject(new Error(`Could not start ${options.shell}: ${error.message}`));
		});
		child.once("exit", (code, signal) => {
			this.run.exitCode = code;
			this.run.signal = signal;
			this.endGroup();
		});
		child.once("close", () => this.finish());
		this.timers.push(after(options.timeoutMs, () => this.endGroup("timeout")));
		if (options.signal.aborted) this.onAbort();
		else options.signal.addEventListener("abort", this.onAbort, { once: true });
	}

	/** SIGTERM the group now, SIGKILL it after the grace; idempotent. Without a reason: the shell exited. */
	private endGroup(reason?: "timeout" | "abort"): void {
		const { run } = this;
		if (reason && run.killedFor === undefined && run.exitCode === null && run.signal === null) {
			run.killedFor = reason;
		}
		const pid = run.pid;
		if (this.ending || pid === undefined) return;
		this.ending = true;
		signalCommand(pid, "SIGTERM");
		const grace = this.options.killGraceMs;
		this.timers.push(
			after(grace, () => {
				signalCommand(pid, "SIGKILL");
				// A process that left the session (setsid) may still hold the pipe: stop waiting for it.
				this.timers.push(after(grace, () => this.finish()));
			}),
		);
	}

	private finish(): void {
		if (this.settled) return;
		this.settled = true;
		if (this.run.pid !== undefined) signalCommand(this.run.pid, "SIGKILL");
		this.cleanup();
		this.child?.stdout?.destroy();
		this.resolve(this.run);
	}

	private cleanup(): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.options.signal.removeEventListener("abort", this.onAbort);
		if (this.run.pid !== undefined) liveGroups.delete(this.run.pid);
	}
}
