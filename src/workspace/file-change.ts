import { readFile, stat } from "node:fs/promises";
import { structuredPatch } from "diff";
import { withWorkspaceFileErrors } from "./fs-errors.js";
import type { WorkspaceToolsOptions } from "./options.js";
import { resolveInWorkspace, resolveToolPath, workspaceRelative } from "./paths.js";

/** Arguments of `write_file`. */
export interface WriteFileArgs {
	/** The file to write, relative to the working directory. */
	path: string;
	/** The file's whole new text. */
	content: string;
}

/** Arguments of `edit_file`. */
export interface EditFileArgs {
	/** The file to edit, relative to the working directory. */
	path: string;
	/** Exact text to replace; must occur exactly once in the file, unless `replace_all` is true. */
	old_string: string;
	/** The text that replaces it, taken literally. */
	new_string: string;
	/** Replace every occurrence of `old_string` (left to right, none overlapping) instead of requiring one (default false). */
	replace_all?: boolean;
}

/**
 * A planned change to one file, computed without writing: what `write_file`/`edit_file` would do. A host's
 * confirmation prompt shows `diff` before the tool runs ({@link previewFileChange}).
 */
export interface FileChange {
	/** Real absolute path. */
	absolute: string;
	/** Path relative to the workspace root. */
	path: string;
	/** The current text, or undefined when the file does not exist yet. */
	before: string | undefined;
	/** The text the file would hold. */
	after: string;
	/** Unified diff (`--- a/path`, `+++ b/path`, hunks with 3 lines of context); empty when nothing changes. */
	diff: string;
	/** Lines the change adds. */
	added: number;
	/** Lines the change removes. */
	removed: number;
	/** `edit_file` only: the occurrences of `old_string` replaced (1 unless `replace_all` was set). */
	replacements?: number;
}

// `ignoreBOM`: a byte-order mark stays in the text, so it is written back too.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The bytes as UTF-8 text, or undefined when they are not valid UTF-8. */
function strictUtf8(bytes: Uint8Array): string | undefined {
	try {
		return UTF8.decode(bytes);
	} catch {
		return undefined;
	}
}

/**
 * Plan `write_file`: the whole new content against what is there now. Over a file whose lines all end in CRLF
 * (or a lone CR), content sent with LF only is written in that ending, as `edit_file` keeps it: models send LF
 * whatever the file holds, and a rewrite should not change every line of a Windows file.
 */
export function planWrite(options: WorkspaceToolsOptions, args: WriteFileArgs): Promise<FileChange> {
	return withWorkspaceFileErrors(options.cwd, args.path, () => planWriteIn(options, args));
}

async function planWriteIn(options: WorkspaceToolsOptions, args: WriteFileArgs): Promise<FileChange> {
	const { absolute, path } = await locate(options, args.path);
	const before = await readFile(absolute, "utf8").catch((error: NodeJS.ErrnoException) => {
		if (error.code === "ENOENT") return undefined;
		if (error.code === "EISDIR") throw new Error(`${path} is a directory; cannot write it as a file.`);
		throw error;
	});
	const eol = before === undefined ? undefined : uniformLineEnding(before);
	const content =
		eol === undefined || args.content.includes("\r") ? args.content : args.content.replace(/\n/g, eol);
	return change(absolute, path, before, content);
}

/**
 * Plan `edit_file`: the one occurrence of `old_string` replaced, or with `replace_all` every one. Throws a clear
 * error when there is none, or (without `replace_all`) more than one.
 */
export function planEdit(options: WorkspaceToolsOptions, args: EditFileArgs): Promise<FileChange> {
	return withWorkspaceFileErrors(options.cwd, args.path, () => planEditIn(options, args));
}

async function planEditIn(options: WorkspaceToolsOptions, args: EditFileArgs): Promise<FileChange> {
	const { absolute, path } = await locate(options, args.path);
	if (args.old_string === "")
		throw new Error("old_string is empty; to create or replace a whole file use write_file.");
	if (args.old_string === args.new_string)
		throw new Error("old_string and new_string are identical; nothing to change.");
	const bytes = await readFile(absolute).catch((error: NodeJS.ErrnoException) => {
		if (error.code === "ENOENT") throw new Error(`File not found: ${path}. To create it use write_file.`);
		if (error.code === "EISDIR") throw new Error(`${path} is a directory, not a file.`);
		throw error;
	});
	// The file goes back as UTF-8: a NUL anywhere, or bytes that are not UTF-8 (Latin-1 text, a binary whose
	// first NUL comes late), would be rewritten outside the edit, each bad byte as U+FFFD.
	const binary = bytes.includes(0);
	const before = binary ? undefined : strictUtf8(bytes);
	if (before === undefined) {
		throw new Error(
			binary
				? `${path} looks like a binary file; edit_file changes text files only.`
				: `${path} is not UTF-8 text; edit_file would change bytes outside the edit. Use shell to edit it.`,
		);
	}
	const { oldText, newText } = matchLineEndings(before, args.old_string, args.new_string);
	if (args.replace_all === true) {
		// split/join, not String.replaceAll: a `$&` or `$1` in the new text must stay literal.
		const parts = before.split(oldText);
		if (parts.length === 1) throw notFound(path);
		return { ...change(absolute, path, before, parts.join(newText)), replacements: parts.length - 1 };
	}
	const count = countOccurrences(before, oldText);
	if (count === 0) throw notFound(path);
	if (count > 1) {
		throw new Error(
			`old_string occurs ${count} times in ${path}; it must match exactly once. Include more surrounding lines to make it unique, or set replace_all to replace every occurrence.`,
		);
	}
	const at = before.indexOf(oldText);
	// Slicing, not String.replace: a `$&` or `$1` in the new text must stay literal.
	const after = before.slice(0, at) + newText + before.slice(at + oldText.length);
	return { ...change(absolute, path, before, after), replacements: 1 };
}

function notFound(path: string): Error {
	return new Error(
		`old_string was not found in ${path}. It must match the file exactly, including whitespace and indentation; read the file again to copy the text.`,
	);
}

/**
 * The change a `write_file` or `edit_file` call would make, for a confirmation prompt; undefined for any other
 * tool. Throws what the tool would throw (outside the workspace, no unique match, …).
 */
export async function previewFileChange(
	options: WorkspaceToolsOptions,
	toolName: string,
	args: Record<string, unknown>,
): Promise<FileChange | undefined> {
	if (toolName === "write_file") return planWrite(options, args as unknown as WriteFileArgs);
	if (toolName === "edit_file") return planEdit(options, args as unknown as EditFileArgs);
	return undefined;
}

async function locate(
	options: WorkspaceToolsOptions,
	given: string,
): Promise<{ absolute: string; path: string }> {
	const root = await resolveInWorkspace(options.cwd, ".");
	const resolved = await resolveToolPath(options.cwd, given);
	// The write (a temporary file named after the target, renamed over it) works on text paths only.
	if (typeof resolved !== "string") {
		throw new Error(
			`${workspaceRelative(root, resolved.shown)} has a name in it that is not valid UTF-8; write_file and edit_file cannot write there. Use shell (e.g. rename it to a UTF-8 name first).`,
		);
	}
	const absolute = resolved;
	if (absolute === root) throw new Error(`${given} is the workspace directory itself, not a file.`);
	// Resolving drops a final slash: `notes/` would be written as a file `notes`, `a.txt/` edit `a.txt`.
	if (given.endsWith("/"))
		throw new Error(`${given} ends in "/", which names a folder; give the path of a file.`);
	const path = workspaceRelative(root, absolute);
	const stats = await stat(absolute).catch(() => undefined);
	// Reading a FIFO to diff it would block until something writes to it.
	if (stats && !stats.isFile() && !stats.isDirectory()) {
		throw new Error(`${path} is not a regular file (a FIFO, socket or device); refused.`);
	}
	return { absolute, path };
}

/**
 * Models read CRLF and lone-CR (old Mac) files through tools that show plain lines and send LF back; when the
 * LF text does not occur but its spelling in the file's line ending does, edit in that ending. A one-line old
 * text matches as it is, but the lines its new text adds would still end in a bare LF: in a file with that
 * ending throughout they get it too. A file with any CRLF counts as CRLF.
 */
function matchLineEndings(
	file: string,
	oldText: string,
	newText: string,
): { oldText: string; newText: string } {
	const eol = file.includes("\r\n") ? "\r\n" : file.includes("\r") ? "\r" : undefined;
	if (eol === undefined || oldText.includes("\r")) return { oldText, newText };
	const native = (s: string) => s.replace(/\r?\n/g, eol);
	if (file.includes(oldText)) {
		const uniform = uniformLineEnding(file) !== undefined;
		return !oldText.includes("\n") && uniform ? { oldText, newText: native(newText) } : { oldText, newText };
	}
	return file.includes(native(oldText))
		? { oldText: native(oldText), newText: native(newText) }
		: { oldText, newText };
}

/**
 * The line ending a text uses throughout when that is not LF: CRLF (no bare LF line), or a lone CR (no LF at
 * all). Undefined for LF, a mix of LF with another, or no line break.
 */
function uniformLineEnding(text: string): "\r\n" | "\r" | undefined {
	if (text.includes("\r\n")) return /(^|[^\r])\n/.test(text) ? undefined : "\r\n";
	if (text.includes("\r")) return text.includes("\n") ? undefined : "\r";
	return undefined;
}

/** Occurrences, overlapping ones too: in `}\n}\n}` the text `}\n}` could mean either of two places. */
function countOccurrences(text: string, needle: string): number {
	let count = 0;
	for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
	return count;
}

/**
 * How long computing a diff may take. A diff is quadratic in the worst case (every line changed: 10,000
 * lines took 27 s, 20,000 lines 126 s), on the main thread where no abort can reach it.
 */
const DIFF_TIMEOUT_MS = 1_000;

/**
 * Characters of changed text (both sides, context included) diffed at most. Splitting text into lines is
 * linear but not free, and the timeout only starts after it: the lines of a 100 MB file took over 2 s and
 * 1 GB of memory, on the main thread. A larger change is summed up instead.
 */
const MAX_DIFF_CHARS = 16 * 1024 * 1024;

/** Lines of context around each change, as `diff -u` and git show them. */
const CONTEXT_LINES = 3;

/**
 * Unchanged lines kept on each side of the changed text when diffing only that part. More than the context a
 * hunk shows: where lines repeat, a line diff may place a change a few lines off from where the texts first
 * differ, and its hunk should still get its full context, as in a diff of the whole.
 */
const WINDOW_MARGIN_LINES = 100;

function change(absolute: string, path: string, before: string | undefined, after: string): FileChange {
	const old = before ?? "";
	const window = changedWindow(old, after);
	const oldPart = old.slice(window.start, window.beforeEnd);
	const newPart = after.slice(window.start, window.afterEnd);
	if (oldPart.length + newPart.length > MAX_DIFF_CHARS)
		return replaced(absolute, path, before, after, "too large", window);
	const patch = structuredPatch(`a/${path}`, `b/${path}`, oldPart, newPart, undefined, undefined, {
		context: CONTEXT_LINES,
		timeout: DIFF_TIMEOUT_MS,
	});
	if (!patch) return replaced(absolute, path, before, after, "too many changes", window);
	let added = 0;
	let removed = 0;
	const lines = [before === undefined ? "--- /dev/null" : `--- a/${path}`, `+++ b/${path}`];
	for (const hunk of patch.hunks) {
		// The hunks count from the window's first line. Unified diff convention (GNU, git): an empty range names
		// the line before it, so a new file is `-0,0`.
		const oldStart = window.firstLine + (hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart);
		const newStart = window.firstLine + (hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart);
		lines.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
		for (const line of hunk.lines) {
			if (line.startsWith("+")) added++;
			else if (line.startsWith("-")) removed++;
			lines.push(line);
		}
	}
	const diff = patch.hunks.length === 0 ? "" : `${lines.join("\n")}\n`;
	return { absolute, path, before, after, diff, added, removed };
}

/**
 * Where two texts differ: `[start, beforeEnd)` of `before` became `[start, afterEnd)` of `after`, whole
 * lines with {@link WINDOW_MARGIN_LINES} more on each side (`changed*` without them); everything outside is
 * the same.
 */
interface DiffWindow {
	start: number;
	beforeEnd: number;
	afterEnd: number;
	/** Lines of `before` above `start`: what the window's line numbers are offset by. */
	firstLine: number;
	changedStart: number;
	changedBeforeEnd: number;
	changedAfterEnd: number;
}

/**
 * The window a diff needs, found by a linear scan for the common start and end: a one-line edit of a huge
 * file then diffs a few lines, not all of them.
 */
function changedWindow(before: string, after: string): DiffWindow {
	const shorter = Math.min(before.length, after.length);
	let prefix = 0;
	while (prefix < shorter && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
	let suffix = 0;
	while (
		suffix < shorter - prefix &&
		before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
	)
		suffix++;
	const changedStart = prefix === 0 ? 0 : before.lastIndexOf("\n", prefix - 1) + 1;
	const changedBeforeEnd = lineEnd(before, Math.max(prefix, before.length - suffix - 1));
	let start = changedStart;
	let beforeEnd = changedBeforeEnd;
	for (let i = 0; i < WINDOW_MARGIN_LINES; i++) {
		start = start <= 1 ? 0 : before.lastIndexOf("\n", start - 2) + 1;
		beforeEnd = lineEnd(before, beforeEnd);
	}
	let firstLine = 0;
	for (let at = before.indexOf("\n"); at !== -1 && at < start; at = before.indexOf("\n", at + 1)) firstLine++;
	// A line later than the change's last ends past it, where the texts are the same again: its end in
	// `before` is one in `after`, moved by the growth. (So does the end of the text.)
	return {
		start,
		beforeEnd,
		afterEnd: beforeEnd === before.length ? after.length : beforeEnd + after.length - before.length,
		firstLine,
		changedStart,
		changedBeforeEnd,
		changedAfterEnd: lineEnd(after, Math.max(prefix, after.length - suffix - 1)),
	};
}

/** The end of the line holding `at` (just past its `\n`), or of the text; `at` itself at the end of the text. */
function lineEnd(text: string, at: number): number {
	if (at >= text.length) return text.length;
	const lf = text.indexOf("\n", at);
	return lf === -1 ? text.length : lf + 1;
}

/** A change too large to diff (in time, or at all): its old lines removed, its new ones added, in one line. */
function replaced(
	absolute: string,
	path: string,
	before: string | undefined,
	after: string,
	why: "too large" | "too many changes",
	window: DiffWindow,
): FileChange {
	const count = (text: string) => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
	const removed = count((before ?? "").slice(window.changedStart, window.changedBeforeEnd));
	const added = count(after.slice(window.changedStart, window.changedAfterEnd));
	const from = before === undefined ? "/dev/null" : `a/${path}`;
	const diff = `--- ${from}\n+++ b/${path}\n(${why} to show a diff: ${removed} lines replaced by ${added})\n`;
	return { absolute, path, before, after, diff, added, removed };
}
