import { abortReasonText } from "../core/abort.js";
import type { ToolResult } from "../tools/types.js";

/** Settings of the shell tool. */
export interface ShellOptions {
	/**
	 * Default and upper bound of a command's run time, in ms (default 120 000; `Infinity`: no limit). The model
	 * may ask for less.
	 */
	timeoutMs?: number;
	/** Output kept for the model, in bytes (default 64 KiB): the head and the tail, with a note between. */
	maxOutputBytes?: number;
	/**
	 * The command's environment. Default: this process's environment without API keys (`*_API_KEY`), so a command like `env` cannot put a key into the transcript.
	 */
	env?: Record<string, string | undefined>;
	/** The shell that runs the command as `<shell> -c <command>` (default `/bin/bash`, else `/bin/sh`). */
	shell?: string;
	/** After SIGTERM to the process group, wait this long before SIGKILL, in ms (default 2 000). */
	killGraceMs?: number;
}

/** Options shared by every workspace tool. */
export interface WorkspaceToolsOptions {
	/** The workspace root: every path is resolved against it and must stay inside it (symlinks resolved). */
	cwd: string;
	/** Bytes `read_file` returns at most before truncating with a note (default 256 KiB). */
	maxReadBytes?: number;
	/** Entries `list_dir` returns at most (default 1 000). */
	maxListEntries?: number;
	/** Matches `search_text` returns at most (default 200); the model may ask for fewer. */
	maxSearchMatches?: number;
	/** Files larger than this are skipped by `search_text`, in bytes (default 2 MiB). */
	maxSearchFileBytes?: number;
	/**
	 * Longest a `search_text` call may take, in ms (default 60 000; 0 or `Infinity`: no limit). Its regular
	 * expression is matched in a worker thread, so a pattern that backtracks without end (`^(a+)+$`) is
	 * stopped then, with an error, and an abort stops it at once: neither can freeze the host.
	 */
	maxSearchMs?: number;
	/** Settings of the `shell` tool. */
	shell?: ShellOptions;
}

/** The defaults, in one place so the tool descriptions and the code agree. */
export const WORKSPACE_DEFAULTS = {
	maxReadBytes: 256 * 1024,
	maxListEntries: 1000,
	maxSearchMatches: 200,
	maxSearchFileBytes: 2 * 1024 * 1024,
	maxSearchMs: 60_000,
	shellTimeoutMs: 120_000,
	shellMaxOutputBytes: 64 * 1024,
	shellKillGraceMs: 2000,
} as const;

/** A successful text result. */
export function textResult<TDetails>(text: string, details: TDetails): ToolResult<TDetails> {
	return { content: [{ type: "text", text }], details };
}

/** Whether the first bytes of a file look binary (a NUL byte, as git and grep decide). */
export function looksBinary(head: Uint8Array): boolean {
	return head.includes(0);
}

/** Bytes read from the start of a file to decide whether it is binary. */
export const BINARY_SNIFF_BYTES = 8000;

/** Throw the signal's reason when it has fired, so an aborted tool stops between files. */
export function throwIfAborted(signal: AbortSignal): void {
	if (signal.aborted) throw new Error(`Aborted: ${abortReasonText(signal.reason)}`);
}
