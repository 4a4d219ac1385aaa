import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SessionHeader } from "./format.js";
import { loadSession } from "./load.js";

/** One session in a folder, for a picker or `--continue`. */
export interface SessionSummary {
	/** The session file's path. */
	path: string;
	/** The file's header. */
	header: SessionHeader;
	/** Messages in the transcript as loaded: revisions applied, repairs included. */
	messageCount: number;
	/**
	 * The first user message's text on one line (line breaks and control characters as spaces), cut to
	 * {@link PREVIEW_CHARS} characters.
	 */
	preview?: string;
	/** Last write to the file. */
	modifiedAt: Date;
}

/** Characters of the first user message shown in a summary. */
export const PREVIEW_CHARS = 80;

/**
 * The sessions in `dir` (`*.jsonl` files with a valid header), most recently written first. A missing folder
 * is an empty list; files that are not readable sessions are left out.
 */
export function listSessions(dir: string): SessionSummary[] {
	const summaries: SessionSummary[] = [];
	for (const path of sessionFiles(dir)) {
		try {
			summaries.push(summarize(path, statSync(path).mtime));
		} catch {
			// Not a session this capstan can read: a picker shows the others.
		}
	}
	return summaries.sort(newestFirst);
}

/**
 * The most recently written session in `dir`, or undefined when there is none (`capstan --continue`). The
 * newest `*.jsonl` file is the one meant: when it cannot be read (a newer capstan's format, a damaged header)
 * this throws why, rather than going on with an older conversation.
 */
export function latestSession(dir: string): SessionSummary | undefined {
	let newest: SessionFileTime | undefined;
	for (const path of sessionFiles(dir)) {
		const stats = statSync(path, { throwIfNoEntry: false });
		// Removed since the folder was read, a dangling link, or a folder named `*.jsonl`: not a session file.
		if (!stats?.isFile()) continue;
		const candidate = { path, modifiedAt: stats.mtime };
		if (!newest || newestFirst(candidate, newest) < 0) newest = candidate;
	}
	return newest && summarize(newest.path, newest.modifiedAt);
}

/** What orders sessions: a file and its last write. */
interface SessionFileTime {
	path: string;
	modifiedAt: Date;
}

/**
 * The one order of {@link listSessions} and {@link latestSession}, so `--continue` goes on with the session a
 * picker lists first: the last written first; written in the same millisecond, the one whose name sorts last
 * (a name starts with the creation time). Paths are unique in a folder, so the order is total.
 */
function newestFirst(a: SessionFileTime, b: SessionFileTime): number {
	const time = b.modifiedAt.getTime() - a.modifiedAt.getTime();
	if (time !== 0) return time;
	return a.path === b.path ? 0 : a.path > b.path ? -1 : 1;
}

/** The `*.jsonl` files of `dir`; none when it does not exist. */
function sessionFiles(dir: string): string[] {
	try {
		return readdirSync(dir)
			.filter((name) => name.endsWith(".jsonl"))
			.map((name) => join(dir, name));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
		throw error;
	}
}

function summarize(path: string, modifiedAt: Date): SessionSummary {
	const { header, messages } = loadSession(path);
	const summary: SessionSummary = { path, header, messageCount: messages.length, modifiedAt };
	const preview = firstUserText(messages);
	if (preview !== undefined) summary.preview = preview;
	return summary;
}

function firstUserText(messages: readonly unknown[]): string | undefined {
	for (const message of messages) {
		const m = message as { role?: unknown; content?: unknown };
		if (m.role !== "user") continue;
		const text =
			typeof m.content === "string"
				? m.content
				: Array.isArray(m.content)
					? m.content
							.filter((c): c is { type: "text"; text: string } => c?.type === "text")
							.map((c) => c.text)
							.join(" ")
					: "";
		// Control characters (a pasted terminal escape sequence) become spaces like line breaks: a picker prints
		// the preview, and the terminal would run them.
		const flat = text.replace(/[\s\p{Cc}]+/gu, " ").trim();
		if (flat.length <= PREVIEW_CHARS) return flat;
		// Not between the halves of a surrogate pair (an emoji): half of one is not text.
		const cut = flat.slice(0, PREVIEW_CHARS - 1).replace(/[\uD800-\uDBFF]$/, "");
		return `${cut}…`;
	}
	return undefined;
}
