import { readlink, stat } from "node:fs/promises";
import type { AgentTool } from "../tools/types.js";
import { isAtomicWriteTemp } from "./atomic-write.js";
import { withWorkspaceFileErrors } from "./fs-errors.js";
import { childPath, escapeRelative, NON_UTF8_NAMES, realPath, shownPath } from "./names.js";
import { textResult, WORKSPACE_DEFAULTS, type WorkspaceToolsOptions } from "./options.js";
import { resolveInWorkspace, resolveToolPath, workspaceRelative } from "./paths.js";
import { readFolder } from "./walk.js";

/** Arguments of `list_dir`. */
export interface ListDirArgs {
	/** Directory, relative to the working directory (default `.`). */
	path?: string;
}

/** One entry of a `list_dir` result. */
export interface DirEntry {
	/** The entry's name within the directory; one that is not valid UTF-8 with its bad bytes as `\xHH`. */
	name: string;
	/** What the entry is; a symlink is not followed, `other` is a FIFO, socket or device. */
	type: "file" | "dir" | "symlink" | "other";
	/** Where a symlink points, as stored in the link. */
	target?: string;
}

/** `details` of a `list_dir` result. */
export interface ListDirDetails {
	/** The directory, relative to the workspace root (`.` for the root). */
	path: string;
	/** The entries shown, sorted by name, at most `maxListEntries`. */
	entries: DirEntry[];
	/** Entries in the directory, including those left out by the cap (not a crashed write's temporary file). */
	total: number;
	/** True when the cap left entries out. */
	truncated: boolean;
}

/**
 * `list_dir`: the entries of one directory, sorted by name; `name/` for directories, `name -> target` for links.
 * The temporary file of a write a crash cut short (`.<name>.<hex>.tmp`) is left out.
 */
export function listDirTool(options: WorkspaceToolsOptions): AgentTool<ListDirArgs, ListDirDetails> {
	const maxEntries = options.maxListEntries ?? WORKSPACE_DEFAULTS.maxListEntries;
	return {
		name: "list_dir",
		label: "List directory",
		description:
			"List the entries of a directory in the workspace (not recursive). Directories end with '/', " +
			"symlinks show their target; a name with a control character (a newline) is shown JSON-quoted. " +
			`At most ${maxEntries} entries. ${NON_UTF8_NAMES}`,
		parameters: {
			type: "object",
			properties: {
				path: {
					type: "string",
					description: "Directory path, relative to the working directory. Default '.'.",
				},
			},
			additionalProperties: false,
		},
		concurrency: "shared",
		execute: (_id, args) =>
			withWorkspaceFileErrors(options.cwd, args.path ?? ".", async () => {
				const root = await resolveInWorkspace(options.cwd, ".");
				const absolute = await resolveToolPath(options.cwd, args.path ?? ".");
				const path = workspaceRelative(root, shownPath(absolute));
				const stats = await stat(realPath(absolute)).catch((error: NodeJS.ErrnoException) => {
					if (error.code === "ENOENT") throw new Error(`Directory not found: ${path}`);
					throw error;
				});
				if (!stats.isDirectory()) throw new Error(`${path} is a file, not a directory; use read_file.`);
				// Half a write a crash left behind is no file of the project: the model would read it as one.
				const dirents = (await readFolder(absolute)).filter(
					(dirent) => !(dirent.isFile() && isAtomicWriteTemp(dirent.name)),
				);
				dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
				const entries: DirEntry[] = [];
				for (const dirent of dirents.slice(0, maxEntries)) {
					if (dirent.isSymbolicLink()) {
						const link = realPath(childPath(absolute, dirent.name, dirent.bytes));
						const target = await readlink(link, { encoding: "buffer" }).then(escapeRelative, () => "?");
						entries.push({ name: dirent.name, type: "symlink", target });
					} else {
						entries.push({
							name: dirent.name,
							type: dirent.isDirectory() ? "dir" : dirent.isFile() ? "file" : "other",
						});
					}
				}
				const truncated = dirents.length > entries.length;
				const lines = entries.map(formatEntry);
				if (entries.length === 0) lines.push("[empty directory]");
				if (truncated) lines.push(`[${dirents.length - entries.length} more entries not shown]`);
				return textResult(lines.join("\n"), { path, entries, total: dirents.length, truncated });
			}),
	};
}

function formatEntry(entry: DirEntry): string {
	const name = shownName(entry.name);
	if (entry.type === "dir") return `${name}/`;
	if (entry.type === "symlink") return `${name} -> ${shownName(entry.target ?? "?")}`;
	return name;
}

/**
 * A name with a control character JSON-quoted: one line per entry is the format, and a file named `a\nb`
 * shown as it is would read as two files `a` and `b`, neither of which exists.
 */
function shownName(name: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
	return /[\u0000-\u001f\u007f]/.test(name) ? JSON.stringify(name) : name;
}
