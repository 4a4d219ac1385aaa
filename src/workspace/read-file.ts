import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { AgentTool } from "../tools/types.js";
import { withWorkspaceFileErrors } from "./fs-errors.js";
import { NON_UTF8_NAMES, realPath, shownPath } from "./names.js";
import {
	BINARY_SNIFF_BYTES,
	looksBinary,
	textResult,
	throwIfAborted,
	WORKSPACE_DEFAULTS,
	type WorkspaceToolsOptions,
} from "./options.js";
import { resolveInWorkspace, resolveToolPath, workspaceRelative } from "./paths.js";

/** Arguments of `read_file`. */
export interface ReadFileArgs {
	/** The file to read, relative to the working directory. */
	path: string;
	/** First line to return, 1-based (default 1). */
	start_line?: number;
	/** Last line to return, inclusive (default: the end of the file, within the size limit). */
	end_line?: number;
}

/** `details` of a `read_file` result. */
export interface ReadFileDetails {
	/** The path relative to the workspace root. */
	path: string;
	/** The first line returned, 1-based. */
	startLine: number;
	/** The last line returned (`startLine - 1` when none was). */
	endLine: number;
	/** The file's line count, known when the read reached its end. */
	totalLines?: number;
	/** True when the size limit cut the range short. */
	truncated: boolean;
	/** The file's size in bytes. */
	bytes: number;
}

/** `read_file`: a text file or a line range of it, capped at `maxReadBytes` with a note saying how to go on. */
export function readFileTool(options: WorkspaceToolsOptions): AgentTool<ReadFileArgs, ReadFileDetails> {
	const maxBytes = options.maxReadBytes ?? WORKSPACE_DEFAULTS.maxReadBytes;
	return {
		name: "read_file",
		label: "Read file",
		description:
			`Read a text file in the workspace. Optional start_line/end_line (1-based, inclusive) select a range. ` +
			`At most ${maxBytes} bytes are returned; a note then says which line to continue from. ${NON_UTF8_NAMES}`,
		parameters: {
			type: "object",
			properties: {
				path: { type: "string", description: "File path, relative to the working directory." },
				start_line: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
				end_line: { type: "integer", minimum: 1, description: "Last line to read (inclusive)." },
			},
			required: ["path"],
			additionalProperties: false,
		},
		concurrency: "shared",
		execute: (_id, args, signal) =>
			withWorkspaceFileErrors(options.cwd, args.path, async () => {
				const root = await resolveInWorkspace(options.cwd, ".");
				const resolved = await resolveToolPath(options.cwd, args.path);
				const absolute = realPath(resolved);
				const path = workspaceRelative(root, shownPath(resolved));
				const startLine = args.start_line ?? 1;
				if (args.end_line !== undefined && args.end_line < startLine) {
					throw new Error(`end_line (${args.end_line}) is before start_line (${startLine}).`);
				}
				const bytes = await checkTextFile(absolute, path);
				throwIfAborted(signal);
				const range = { startLine, endLine: args.end_line, fileBytes: bytes };
				const read = await readLines(absolute, range, maxBytes, signal);
				if (read.totalLines !== undefined && startLine > Math.max(read.totalLines, 1)) {
					throw new Error(`start_line ${startLine} is past the end of ${path} (${read.totalLines} lines).`);
				}
				const endLine = startLine + read.lines.length - 1;
				const details: ReadFileDetails = { path, startLine, endLine, truncated: read.truncated, bytes };
				if (read.totalLines !== undefined) details.totalLines = read.totalLines;
				return textResult(read.lines.join("\n") + readNote(details, maxBytes, read.cutLine), details);
			}),
	};
}

/** The note after the text: what was cut and where to continue. Empty when the whole range was returned. */
function readNote(details: ReadFileDetails, maxBytes: number, cutLine: boolean): string {
	if (details.bytes === 0) return "[empty file]";
	if (!details.truncated) return "";
	const cut = cutLine ? ` Line ${details.endLine} was cut at the limit.` : "";
	const next = details.endLine + 1;
	// A cut last line has no line after it: start_line=next would only get a "past the end" error.
	const more = details.totalLines === undefined || next <= details.totalLines;
	return (
		`\n\n[truncated at ${maxBytes} bytes: showing lines ${details.startLine}-${details.endLine}` +
		`${details.totalLines === undefined ? "" : ` of ${details.totalLines}`}.${cut}` +
		`${more ? ` Continue with start_line=${next}.` : " No line follows it."}]`
	);
}

/** Refuse directories and binary files with a clear error; returns the size. */
async function checkTextFile(absolute: string | Buffer, path: string): Promise<number> {
	// stat before open: opening a FIFO for reading would block until something writes to it.
	const stats = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
		if (error.code === "ENOENT") throw new Error(`File not found: ${path}`);
		throw error;
	});
	if (stats.isDirectory()) throw new Error(`${path} is a directory; use list_dir to see its entries.`);
	if (!stats.isFile()) throw new Error(`${path} is not a regular file (a FIFO, socket or device); not read.`);
	const handle = await open(absolute, "r");
	try {
		const head = new Uint8Array(Math.min(BINARY_SNIFF_BYTES, stats.size));
		await handle.read(head, 0, head.length, 0);
		if (looksBinary(head))
			throw new Error(`${path} looks like a binary file (${stats.size} bytes); not shown.`);
		return stats.size;
	} finally {
		await handle.close();
	}
}

interface LinesRead {
	lines: string[];
	truncated: boolean;
	/** The last returned line was itself longer than the limit and was cut. */
	cutLine: boolean;
	totalLines?: number;
}

/** Up to this size a read goes on to the end after its range to count the lines, for the note and the UI. */
const COUNT_LINES_UP_TO_BYTES = 16 * 1024 * 1024;

/**
 * The file's lines as `readline` splits them (at `\n`, `\r\n` or a lone `\r`), each with its length in bytes
 * and its text kept to the first `keepBytes` bytes. A file that is one huge line then costs `keepBytes` of
 * memory: `readline` builds every line whole, and one past 512 MB fails with a RangeError no caller can catch.
 */
async function* linesOf(
	absolute: string | Buffer,
	keepBytes: number,
	signal: AbortSignal,
): AsyncGenerator<{ text: string; bytes: number }> {
	const input = createReadStream(absolute, { signal });
	let parts: Buffer[] = [];
	let kept = 0;
	let bytes = 0;
	let afterCR = false;
	const add = (chunk: Buffer, from: number, to: number): void => {
		bytes += to - from;
		const take = Math.min(to - from, keepBytes - kept);
		if (take > 0) {
			parts.push(chunk.subarray(from, from + take));
			kept += take;
		}
	};
	const take = (): { text: string; bytes: number } => {
		const shown = Buffer.concat(parts);
		// A line cut at `keepBytes` may end inside a character: a StringDecoder holds its first bytes back
		// rather than showing them as U+FFFD.
		const text = kept < bytes ? new StringDecoder("utf8").write(shown) : shown.toString("utf8");
		const line = { text, bytes };
		parts = [];
		kept = 0;
		bytes = 0;
		return line;
	};
	try {
		for await (const chunk of input as AsyncIterable<Buffer>) {
			let start = afterCR && chunk[0] === 0x0a ? 1 : 0;
			afterCR = false;
			let lf = chunk.indexOf(0x0a, start);
			let cr = chunk.indexOf(0x0d, start);
			while (lf !== -1 || cr !== -1) {
				const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
				add(chunk, start, end);
				yield take();
				start = end + 1;
				if (end === cr) {
					if (start === chunk.length) afterCR = true;
					else if (chunk[start] === 0x0a) start++;
				}
				if (lf !== -1 && lf < start) lf = chunk.indexOf(0x0a, start);
				if (cr !== -1 && cr < start) cr = chunk.indexOf(0x0d, start);
			}
			add(chunk, start, chunk.length);
		}
		if (bytes > 0) yield take();
	} finally {
		input.destroy();
	}
}

/** The `\n` that joins a line to those before it; the first line has none, so a file of exactly the limit fits. */
const separator = (lines: readonly string[]): number => (lines.length === 0 ? 0 : 1);

/** Stream the file line by line, so a large log costs only the range asked for, not the whole file. */
async function readLines(
	absolute: string | Buffer,
	range: { startLine: number; endLine: number | undefined; fileBytes: number },
	maxBytes: number,
	signal: AbortSignal,
): Promise<LinesRead> {
	const countAll = range.fileBytes <= COUNT_LINES_UP_TO_BYTES;
	const lines: string[] = [];
	let used = 0;
	let lineNo = 0;
	let stopped: { truncated: boolean; cutLine: boolean; at: number } | undefined;
	let reachedEnd = true;
	for await (const { text, bytes } of linesOf(absolute, maxBytes, signal)) {
		lineNo++;
		// Past a cut line of a file too large to count, one more line says whether any follows it: the note
		// must not send the model to a line that is not there.
		if (stopped?.cutLine && !countAll && lineNo > stopped.at) {
			reachedEnd = false;
			break;
		}
		if (stopped !== undefined || lineNo < range.startLine) continue;
		if (range.endLine !== undefined && lineNo > range.endLine) {
			stopped = { truncated: false, cutLine: false, at: lineNo };
		} else if (used + separator(lines) + bytes > maxBytes) {
			// `text` holds at most the line's first `maxBytes` bytes: the cut line as it is shown.
			const cutLine = lines.length === 0;
			if (cutLine) lines.push(text);
			stopped = { truncated: true, cutLine, at: lineNo };
		} else {
			used += separator(lines) + bytes;
			lines.push(text);
		}
		if (stopped !== undefined && !stopped.cutLine && !countAll) {
			reachedEnd = false;
			break;
		}
	}
	throwIfAborted(signal);
	const read: LinesRead = {
		lines,
		truncated: stopped?.truncated ?? false,
		cutLine: stopped?.cutLine ?? false,
	};
	if (reachedEnd) read.totalLines = lineNo;
	return read;
}
