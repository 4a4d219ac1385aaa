import { type ChildProcess, spawn } from "node:child_process";

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

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.once("exit", () => {
		for (const pid of liveGroups) signalGroup(pid, "SIGKILL");
	});
}

/** Send a signal to every process of the group; a group already gone is not an error. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
	}
}

/**
 * Run `<shell> -c <command>` as the leader of a new process group and settle once every process of the group
 * is gone. A plain `spawn(…, { signal })` kills only the shell and leaves its children (`sleep 30 &`) running
 * and holding the pipes; here abort and timeout send SIGTERM to the whole group, then SIGKILL after a grace.
 * Processes the command leaves in the background are ended the same way once the shell exits, so nothing
 * outlives the call.
 */
export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRun> {
	return new Promise((resolve, reject) => {
		let child: ChildProcess;
		try {
			child = spawn(options.shell, ["-c", options.command], {
				cwd: options.cwd,
				env: options.env,
				detached: true,
				stdio: ["ignore", "pipe", "pipe"],
			});
		} catch (error) {
			reject(error);
			return;
		}
		const pid = child.pid;
		const run: GroupRun = { pid, exitCode: null, signal: null };
		if (pid !== undefined) {
			installExitHook();
			liveGroups.add(pid);
		}
		const timers: NodeJS.Timeout[] = [];
		let ending = false;
		/** SIGTERM the group now, SIGKILL it after the grace; idempotent. */
		const endGroup = (reason?: "timeout" | "abort") => {
			if (reason && run.killedFor === undefined && run.exitCode === null && run.signal === null) {
				run.killedFor = reason;
			}
			if (ending || pid === undefined) return;
			ending = true;
			signalGroup(pid, "SIGTERM");
			timers.push(
				setTimeout(() => {
					signalGroup(pid, "SIGKILL");
					// A process that left the group (setsid) may still hold the pipes: stop waiting for them.
					timers.push(setTimeout(() => finish(), options.killGraceMs));
				}, options.killGraceMs),
			);
		};
		const onAbort = () => endGroup("abort");
		let settled = false;
		const finish = () => {
			if (settled) return;
			settled = true;
			for (const timer of timers) clearTimeout(timer);
			options.signal.removeEventListener("abort", onAbort);
			if (pid !== undefined) {
				signalGroup(pid, "SIGKILL");
				liveGroups.delete(pid);
			}
			child.stdout?.destroy();
			child.stderr?.destroy();
			resolve(run);
		};
		child.stdout?.on("data", options.onOutput);
		child.stderr?.on("data", options.onOutput);
		child.once("error", (error) => {
			if (pid === undefined) {
				settled = true;
				options.signal.removeEventListener("abort", onAbort);
				reject(new Error(`Could not start ${options.shell}: ${error.message}`));
			}
		});
		child.once("exit", (code, signal) => {
			run.exitCode = code;
			run.signal = signal;
			endGroup();
		});
		child.once("close", finish);
		timers.push(setTimeout(() => endGroup("timeout"), options.timeoutMs));
		if (options.signal.aborted) onAbort();
		else options.signal.addEventListener("abort", onAbort, { once: true });
	});
}

/** Whether the group still has a live process (for tests and hosts that want to check nothing is left). */
export function processGroupAlive(pid: number): boolean {
	try {
		process.kill(-pid, 0);
		return true;
	} catch {
		return false;
	}
}
