/**
 * One line per tool call: what it does (the model's stated intent, else a summary of the arguments), how
 * long it took, and a short summary of the result. Synthetic results (skipped, interrupted, aborted) read
 * as "not run", never as a tool failure (rule T11, A3).
 */
import type { UserContent } from "../../core/messages.js";
import type { ToolCallStatus } from "../../tools/types.js";
import type { Palette } from "./ansi.js";

/** Argument keys that best say what a call is about, in order of preference. */
const TELLING_KEYS = ["command", "cmd", "path", "file", "pattern", "query", "url", "name", "target", "text"];

/** A short, single-line description of a call's arguments. */
export function summarizeArgs(args: Record<string, unknown>, limit = 80): string {
	for (const key of TELLING_KEYS) {
		const value = args[key];
		if (typeof value === "string" && value !== "") return oneLine(value, limit);
	}
	const entries = Object.entries(args).filter(([key]) => key !== "i");
	if (entries.length === 0) return "";
	const text = entries
		.map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
		.join(" ");
	return oneLine(text, limit);
}

/** Collapse whitespace and cut to `limit` characters. */
export function oneLine(text: string, limit: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > limit ? `${flat.slice(0, Math.max(0, limit - 1))}…` : flat;
}

/**
 * How a finished call is shown: its status as the user should read it; `unfinished` is a saved call with no
 * result (the session stopped while it ran or waited for approval: resuming runs it).
 */
export type ToolOutcome = ToolCallStatus | "interrupted" | "unfinished" | "lost";

/**
 * The outcome to show, from the event's status and the synthetic details the loop attaches. The loop reports
 * a steer-cut call as `interrupted` itself (rule T10); `aborted` with reason `interrupted` is what runs
 * recorded before it did.
 */
export function toolOutcome(status: ToolCallStatus, details: unknown): ToolOutcome {
	const reason = (details as { synthetic?: unknown; reason?: unknown } | undefined)?.reason;
	if (status === "aborted" && reason === "interrupted") return "interrupted";
	return status;
}

/** The outcome of a saved call, read back from its result message (sessions keep no status field). */
export function savedOutcome(result: { isError: boolean; details?: unknown } | undefined): ToolOutcome {
	if (!result) return "unfinished";
	const details = result.details as { synthetic?: unknown; reason?: unknown; started?: unknown } | undefined;
	if (details?.synthetic !== true) return result.isError ? "error" : "ok";
	if (details.reason === "interrupted") return details.started === true ? "interrupted" : "skipped";
	// A damaged session line took the result with it; the loader put a placeholder in its place.
	if (details.reason === "lost") return "lost";
	return "aborted";
}

/** A short summary of a result: its first non-empty line and how many more lines there are. */
export function summarizeResult(content: readonly UserContent[], limit = 70): string {
	const text = content
		.map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`))
		.join("\n");
	const lines = text.split("\n").filter((line) => line.trim() !== "");
	if (lines.length === 0) return "no output";
	const first = oneLine(lines[0] ?? "", limit);
	const more = lines.length - 1;
	return more > 0 ? `${first} (+${more} line${more === 1 ? "" : "s"})` : first;
}

/** Seconds with one decimal, e.g. `0.3 s`, `12.0 s`; minutes past 100 s. */
export function formatElapsed(ms: number): string {
	const seconds = Math.max(0, ms) / 1000;
	if (seconds < 100) return `${seconds.toFixed(1)} s`;
	return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/** Everything the finished line needs. */
export interface FinishedCall {
	name: string;
	label: string;
	outcome: ToolOutcome;
	/** Unknown for a call read back from a session (sessions keep no timings). */
	elapsedMs?: number;
	content: readonly UserContent[];
}

/** The transcript line of a finished call. */
export function finishedCallLine(call: FinishedCall, s: Palette): string {
	const what = call.label === "" ? s.bold(call.name) : `${s.bold(call.name)} ${call.label}`;
	const known = call.elapsedMs !== undefined;
	const time = known ? formatElapsed(call.elapsedMs ?? 0) : "";
	const took = known ? `· ${time} ` : "";
	const paren = known ? ` (${time})` : "";
	switch (call.outcome) {
		case "ok":
			return `${s.green("✓")} ${what} ${s.dim(`${took}· ${summarizeResult(call.content)}`)}`;
		case "error":
			return `${s.red("✗")} ${what} ${s.dim(`${took}·`)} ${s.red(summarizeResult(call.content))}`;
		case "blocked":
			return `${s.yellow("⊘")} ${what} ${s.yellow(`blocked: ${summarizeResult(call.content)}`)}`;
		case "skipped":
			return `${s.dim("↷")} ${what} ${s.dim("skipped: your message came first (not run)")}`;
		case "interrupted":
			return `${s.yellow("⏹")} ${what} ${s.yellow(`interrupted by your message${paren}`)}`;
		case "aborted":
			return `${s.yellow("⏹")} ${what} ${s.yellow(`aborted${paren}`)}`;
		case "unfinished":
			return `${s.dim("…")} ${what} ${s.dim("no result saved: the session stopped before it finished")}`;
		case "lost":
			return `${s.yellow("?")} ${what} ${s.yellow("result lost with a damaged session line: it may have run")}`;
	}
}
