import { readFile, stat } from "node:fs/promises";
import ignore from "ignore";
import { abortReasonText } from "../core/abort.js";
import type { AgentTool } from "../tools/types.js";
import { withWorkspaceFileErrors } from "./fs-errors.js";
import { LineMatcher, type MatchFile } from "./line-matcher.js";
import { NON_UTF8_NAMES, realPath, shownPath, type ToolPath } from "./names.js";
import {
	BINARY_SNIFF_BYTES,
	looksBinary,
	textResult,
	WORKSPACE_DEFAULTS,
	type WorkspaceToolsOptions,
} from "./options.js";
import { resolveInWorkspace, resolveToolPath, workspaceRelative } from "./paths.js";
import { walkFiles } from "./walk.js";

/** Arguments of `search_text`. */
export interface SearchTextArgs {
	/** A JavaScript regular expression, matched against each line. */
	pattern: string;
	/** Directory or file to search, relative to the working directory (default `.`). */
	path?: string;
	/** Only files whose path matches this gitignore-style glob, e.g. `*.ts` or `src/**\/*.md`. */
	include?: string;
	/** Match case-insensitively (default false). */
	ignore_case?: boolean;
	/** Stop after this many matches (at most the configured cap). */
	max_matches?: number;
}

/** One matching line. */
export interface SearchMatch {
	/** The file, relative to the workspace root; a name that is not valid UTF-8 with its bad bytes as `\xHH`. */
	path: string;
	/** 1-based line number. */
	line: number;
	/** The line, cut to {@link MAX_MATCH_LINE_CHARS} characters. */
	text: string;
}

/** `details` of a `search_text` result. */
export interface SearchTextDetails {
	/** The pattern as given. */
	pattern: string;
	/** What was searched, relative to the workspace root (`.` for the root). */
	path: string;
	/** The matching lines found, in search order. */
	matches: SearchMatch[];
	/** Files whose text was matched against the pattern. */
	filesSearched: number;
	/** True when the match cap stopped the search early. */
	truncated: boolean;
	/** Files skipped because they look binary. */
	skippedBinary: number;
	/** Files skipped because they are larger than `maxSearchFileBytes`. */
	skippedLarge: number;
	/**
	 * Files and folders skipped because they could not be read (permission, I/O error, removed or replaced
	 * mid-search): a match in one of them would not be found.
	 */
	skippedUnreadable: number;
	/**
	 * The first {@link MAX_UNREADABLE_NAMED} of those, relative to the workspace root, in search order; a
	 * folder's ends in `/`.
	 */
	unreadable: string[];
}

/** Unreadable files and folders a `search_text` result names; it counts all of them. */
export const MAX_UNREADABLE_NAMED = 5;

/** Characters of a matching line shown; minified files would otherwise flood the model's context. */
export const MAX_MATCH_LINE_CHARS = 240;

/**
 * Files handed to the matching worker at a time: 8 at first, doubling to 256, and never much over 1 MB of
 * text — few round trips, each a small copy.
 */
const FIRST_BATCH_FILES = 8;
const MAX_BATCH_FILES = 256;
const MAX_BATCH_CHARS = 1024 * 1024;

/**
 * `search_text`: a regex over the files of the tree, respecting `.gitignore`, `.git/info/exclude` and git's
 * global excludes file (`core.excludesFile`), skipping binaries and `.git/`.
 */
export function searchTextTool(options: WorkspaceToolsOptions): AgentTool<SearchTextArgs, SearchTextDetails> {
	const cap = options.maxSearchMatches ?? WORKSPACE_DEFAULTS.maxSearchMatches;
	const maxFileBytes = options.maxSearchFileBytes ?? WORKSPACE_DEFAULTS.maxSearchFileBytes;
	const timeoutMs = options.maxSearchMs ?? WORKSPACE_DEFAULTS.maxSearchMs;
	return {
		name: "search_text",
		label: "Search text",
		description:
			"Search the workspace's files for a regular expression (JavaScript syntax), line by line. " +
			"Respects .gitignore, .git/info/exclude and git's global excludes file (a folder they ignore is " +
			"searched when given as path), skips binary files and .git/. Returns path:line: text for each match, " +
			`at most ${cap} matches; a closing note counts the files it skipped and names those it could not read. ` +
			NON_UTF8_NAMES,
		parameters: {
			type: "object",
			properties: {
				pattern: { type: "string", description: "Regular expression (JavaScript syntax)." },
				path: { type: "string", description: "Directory or file to search. Default '.'." },
				include: { type: "string", description: "Only files matching this glob, e.g. '*.ts'." },
				ignore_case: { type: "boolean", description: "Case-insensitive match." },
				max_matches: { type: "integer", minimum: 1, description: `Stop after this many (max ${cap}).` },
			},
			required: ["pattern"],
			additionalProperties: false,
		},
		concurrency: "shared",
		execute: (_id, args, signal) =>
			withWorkspaceFileErrors(options.cwd, args.path ?? ".", async () => {
				const regex = compilePattern(args.pattern, args.ignore_case === true);
				const include = args.include ? ignore().add(args.include) : undefined;
				const limit = Math.min(args.max_matches ?? cap, cap);
				const root = await resolveInWorkspace(options.cwd, ".");
				const start = await resolveToolPath(options.cwd, args.path ?? ".");
				const details: SearchTextDetails = {
					pattern: args.pattern,
					path: workspaceRelative(root, shownPath(start)),
					matches: [],
					filesSearched: 0,
					truncated: false,
					skippedBinary: 0,
					skippedLarge: 0,
					skippedUnreadable: 0,
					unreadable: [],
				};
				const noteUnreadable = (absolute: string, isDirectory: boolean): void => {
					details.skippedUnreadable++;
					if (details.unreadable.length < MAX_UNREADABLE_NAMED)
						details.unreadable.push(workspaceRelative(root, absolute) + (isDirectory ? "/" : ""));
				};
				const startStats = await stat(realPath(start)).catch((error: NodeJS.ErrnoException) => {
					if (error.code === "ENOENT") throw new Error(`Path not found: ${details.path}`);
					throw error;
				});
				if (!startStats.isDirectory() && !startStats.isFile())
					throw new Error(`${details.path} is not a regular file (a FIFO, socket or device); not searched.`);
				const walking = startStats.isDirectory();
				const files = walking ? walkFiles(root, start, signal, noteUnreadable) : single(start);
				const matcher = new LineMatcher(regex, MAX_MATCH_LINE_CHARS, timeoutMs, signal, (stop) =>
					stop.type === "aborted"
						? new Error(`Aborted: ${abortReasonText(stop.reason)}`)
						: new Error(
								`search_text stopped after ${timeoutMs / 1000} s (maxSearchMs) with ${details.matches.length} matches so far: ` +
									`the pattern may backtrack without end (nested repetition such as (a+)+); simplify it or narrow path/include.`,
							),
				);
				try {
					let batch: MatchFile[] = [];
					let batchChars = 0;
					// Small batches first, so a search the match cap ends early reads few files it does not need.
					let batchFiles = FIRST_BATCH_FILES;
					// Matching a batch returns true when the limit stopped the search.
					const flush = async (): Promise<boolean> => {
						if (batch.length === 0) return false;
						const result = await matcher.match(batch, limit - details.matches.length);
						batch = [];
						batchChars = 0;
						batchFiles = Math.min(batchFiles * 2, MAX_BATCH_FILES);
						details.filesSearched += result.searched;
						details.matches.push(...result.matches);
						return result.truncated;
					};
					for await (const file of files) {
						const path = workspaceRelative(root, shownPath(file));
						if (include && !include.ignores(path)) continue;
						let text: string | undefined;
						try {
							text = await readSearchable(realPath(file), path, maxFileBytes, details);
						} catch (error) {
							// The file named as `path` failing is the call's error; one met on the walk is noted.
							if (!walking) throw error;
							noteUnreadable(shownPath(file), false);
						}
						if (text === undefined) continue;
						batch.push({ path, text });
						batchChars += text.length;
						if ((batchChars >= MAX_BATCH_CHARS || batch.length >= batchFiles) && (await flush())) {
							details.truncated = true;
							break;
						}
						matcher.throwIfStopped();
					}
					if (!details.truncated && (await flush())) details.truncated = true;
				} finally {
					matcher.close();
				}
				return textResult(formatSearch(details), details);
			}),
	};
}

async function* single(file: ToolPath): AsyncGenerator<ToolPath> {
	yield file;
}

function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
	try {
		return new RegExp(pattern, ignoreCase ? "i" : "");
	} catch (error) {
		throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
	}
}

/**
 * The file's text, or undefined (counted) when it is too large or binary. Throws when it cannot be read, or
 * is no longer a regular file (the walk listed one, but it was replaced since).
 */
async function readSearchable(
	file: string | Buffer,
	path: string,
	maxFileBytes: number,
	details: SearchTextDetails,
): Promise<string | undefined> {
	const stats = await stat(file);
	// Opening a FIFO would wait for a writer forever, on a thread the process needs to exit.
	if (!stats.isFile())
		throw new Error(`${path} is not a regular file (a FIFO, socket or device); not searched.`);
	if (stats.size > maxFileBytes) {
		details.skippedLarge++;
		return undefined;
	}
	const bytes = await readFile(file);
	if (looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) {
		details.skippedBinary++;
		return undefined;
	}
	// A byte-order mark opens the text, not its first line: `^import` must match there too.
	const text = bytes.toString("utf8");
	return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

function formatSearch(details: SearchTextDetails): string {
	const lines = details.matches.map((m) => `${m.path}:${m.line}: ${m.text}`);
	if (lines.length === 0)
		lines.push(
			`No matches for /${details.pattern}/ in ${details.path} (${details.filesSearched} files searched).`,
		);
	if (details.truncated) {
		lines.push(
			`[stopped at ${details.matches.length} matches; narrow the pattern, path or include to see the rest]`,
		);
	}
	const skipped = details.skippedBinary + details.skippedLarge;
	if (skipped > 0) {
		lines.push(`[skipped ${details.skippedBinary} binary and ${details.skippedLarge} large files]`);
	}
	if (details.skippedUnreadable > 0) {
		const more = details.skippedUnreadable - details.unreadable.length;
		const named = details.unreadable.join(", ") + (more > 0 ? ` and ${more} more` : "");
		lines.push(`[skipped ${details.skippedUnreadable} unreadable (not searched): ${named}]`);
	}
	return lines.join("\n");
}
