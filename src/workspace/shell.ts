import { existsSync } from "node:fs";
import { abortReasonText } from "../core/abort.js";
import type { AgentTool } from "../tools/types.js";
import { type ShellOptions, textResult, WORKSPACE_DEFAULTS, type WorkspaceToolsOptions } from "./options.js";
import { HeadTailBuffer } from "./output-buffer.js";
import { resolveInWorkspace } from "./paths.js";
import { runInProcessGroup } from "./process-group.js";
import { withoutTerminalEscapes } from "./terminal-escapes.js";

/** Arguments of `shell`. */
export interface ShellArgs {
	/** The command line, run with `<shell> -c` in the working directory. */
	command: string;
	/** Run time limit in ms; capped by the configured timeout. */
	timeout_ms?: number;
}

/** `details` of a `shell` result. */
export interface ShellDetails {
	/** The command line that ran. */
	command: string;
	/** The shell's exit code; null when a signal ended it. */
	exitCode: number | null;
	/** The signal that ended the shell, such as `SIGKILL`; null when it exited. */
	signal: string | null;
	/** True when the time limit ended the command; its process group was killed. */
	timedOut: boolean;
	/** True when the call was aborted while the command ran; its process group was killed. */
	aborted: boolean;
	/** True when output was dropped from the middle. */
	truncated: boolean;
	/** Bytes of output the command produced, kept or not. */
	outputBytes: number;
	/** The process group id (the shell's pid): nothing in that group is left when the call ends. */
	pid?: number;
}

/** Interval between `onUpdate` partials while output streams in; enough for a live view, cheap for the loop. */
const UPDATE_INTERVAL_MS = 100;

/**
 * `shell`: run a command with `<shell> -c` in the workspace. Exclusive and not interruptible by steering (a
 * half-run command is worse than a late one); abort and timeout end its whole process group.
 */
export function shellTool(options: WorkspaceToolsOptions): AgentTool<ShellArgs, ShellDetails> {
	const settings = shellSettings(options.shell ?? {});
	return {
		name: "shell",
		label: "Shell",
		description:
			`Run a shell command (${settings.shell} -c) in the working directory and return its combined ` +
			`stdout and stderr with the exit code. Times out after ${settings.timeoutMs} ms; output beyond ` +
			`${settings.maxOutputBytes} bytes is cut from the middle; terminal escape codes (colours) are removed. ` +
			"Stdin is closed (no interactive prompts); " +
			"background processes end with the command (unless detached with setsid).",
		parameters: {
			type: "object",
			properties: {
				command: { type: "string", description: "The command line to run." },
				timeout_ms: { type: "integer", minimum: 1, description: `Time limit (max ${settings.timeoutMs}).` },
			},
			required: ["command"],
			additionalProperties: false,
		},
		concurrency: "exclusive",
		interruptible: false,
		async execute(_id, args, signal, onUpdate) {
			const cwd = await resolveInWorkspace(options.cwd, ".");
			const output = new HeadTailBuffer(settings.maxOutputBytes);
			const shown = () => withoutTerminalEscapes(output.text());
			const updates = throttle(() => onUpdate(textResult(shown(), partialDetails(args, output))));
			const run = await runInProcessGroup({
				shell: settings.shell,
				command: args.command,
				cwd,
				env: settings.env,
				timeoutMs: Math.min(args.timeout_ms ?? settings.timeoutMs, settings.timeoutMs),
				killGraceMs: settings.killGraceMs,
				signal,
				onOutput(chunk) {
					output.push(chunk);
					updates.request();
				},
			}).finally(() => updates.cancel());
			const details: ShellDetails = {
				command: args.command,
				exitCode: run.exitCode,
				signal: run.signal,
				timedOut: run.killedFor === "timeout",
				aborted: run.killedFor === "abort",
				truncated: output.omitted > 0,
				outputBytes: output.total,
			};
			if (run.pid !== undefined) details.pid = run.pid;
			const text = shown() || "(no output)";
			const separator = text.endsWith("\n") ? "" : "\n";
			const result = textResult(`${text}${separator}${statusLine(details, signal)}`, details);
			// A command that catches SIGTERM may still exit 0; ended by timeout or abort, it did not finish.
			return { ...result, isError: details.exitCode !== 0 || details.timedOut || details.aborted };
		},
	};
}

function statusLine(details: ShellDetails, signal: AbortSignal): string {
	if (details.timedOut) return "[timed out; the command and its processes were killed]";
	if (details.aborted)
		return `[aborted: ${abortReasonText(signal.reason, "by the user")}; the command and its processes were killed]`;
	if (details.exitCode === null) return `[ended by ${details.signal}]`;
	return `[exit code ${details.exitCode}]`;
}

function partialDetails(args: ShellArgs, output: HeadTailBuffer): ShellDetails {
	return {
		command: args.command,
		exitCode: null,
		signal: null,
		timedOut: false,
		aborted: false,
		truncated: output.omitted > 0,
		outputBytes: output.total,
	};
}

interface ShellSettings {
	shell: string;
	timeoutMs: number;
	maxOutputBytes: number;
	killGraceMs: number;
	env: Record<string, string | undefined>;
}

function shellSettings(shell: ShellOptions): ShellSettings {
	return {
		shell: shell.shell ?? (existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh"),
		timeoutMs: shell.timeoutMs ?? WORKSPACE_DEFAULTS.shellTimeoutMs,
		maxOutputBytes: shell.maxOutputBytes ?? WORKSPACE_DEFAULTS.shellMaxOutputBytes,
		killGraceMs: shell.killGraceMs ?? WORKSPACE_DEFAULTS.shellKillGraceMs,
		env: shell.env ?? environmentWithoutKeys(process.env),
	};
}

/**
 * The environment minus API keys (`*_API_KEY`, which covers every variable capstan's providers read) and the
 * variables named in `alsoHidden` (a key variable of another name, e.g. a server's `apiKeyEnv`): a model
 * running `env` must not copy a key into the transcript, the session file or the provider's logs. Other
 * credentials (`GITHUB_TOKEN`, …) stay: the commands the agent runs may need them, and capstan does not own them.
 */
export function environmentWithoutKeys(
	env: Record<string, string | undefined>,
	alsoHidden: readonly string[] = [],
): Record<string, string | undefined> {
	const hidden = new Set(alsoHidden);
	const kept: Record<string, string | undefined> = {};
	for (const [name, value] of Object.entries(env)) {
		if (!/_API_KEY$/i.test(name) && !hidden.has(name)) kept[name] = value;
	}
	return kept;
}

/** Leading and trailing call at most every {@link UPDATE_INTERVAL_MS}; `cancel` drops a pending one. */
function throttle(fn: () => void): { request(): void; cancel(): void } {
	let last = 0;
	let timer: NodeJS.Timeout | undefined;
	const fire = () => {
		timer = undefined;
		last = Date.now();
		fn();
	};
	return {
		request() {
			if (timer !== undefined) return;
			const wait = last + UPDATE_INTERVAL_MS - Date.now();
			if (wait <= 0) fire();
			else timer = setTimeout(fire, wait);
		},
		cancel() {
			if (timer !== undefined) clearTimeout(timer);
			timer = undefined;
		},
	};
}
