import { dirname } from "node:path";
import { makeFolders } from "../core/make-folders.js";
import type { AgentTool } from "../tools/types.js";
import { writeFileAtomically } from "./atomic-write.js";
import {
	type EditFileArgs,
	type FileChange,
	planEdit,
	planWrite,
	type WriteFileArgs,
} from "./file-change.js";
import { withWorkspaceFileErrors } from "./fs-errors.js";
import { textResult, throwIfAborted, type WorkspaceToolsOptions } from "./options.js";

/** `details` of a `write_file` or `edit_file` result. */
export interface FileChangeDetails {
	/** The file, relative to the workspace root. */
	path: string;
	/** True when `write_file` created the file. */
	created: boolean;
	/** Bytes written. */
	bytes: number;
	/** Unified diff of the change (empty when the content was already the same). */
	diff: string;
	/** Lines the change added. */
	added: number;
	/** Lines the change removed. */
	removed: number;
	/** `edit_file` only: the occurrences of `old_string` replaced (1 unless `replace_all` was set). */
	replacements?: number;
}

/** `write_file`: create or overwrite a file (parent directories created). Exclusive: it changes the tree. */
export function writeFileTool(options: WorkspaceToolsOptions): AgentTool<WriteFileArgs, FileChangeDetails> {
	return {
		name: "write_file",
		label: "Write file",
		description:
			"Create a file, or replace a file's whole content, in the workspace. Parent directories are created. " +
			"An existing file's CRLF line endings are kept. To change part of an existing file prefer edit_file.",
		parameters: {
			type: "object",
			properties: {
				path: { type: "string", description: "File path, relative to the working directory." },
				content: { type: "string", description: "The complete new content of the file." },
			},
			required: ["path", "content"],
			additionalProperties: false,
		},
		concurrency: "exclusive",
		async execute(_id, args, signal) {
			const planned = await planWrite(options, args);
			throwIfAborted(signal);
			const details = await withWorkspaceFileErrors(options.cwd, args.path, () => {
				// Level by level: Node's recursive mkdir never returns for a folder /proc refuses (makeFolders).
				makeFolders(dirname(planned.absolute));
				return commit(planned, signal);
			});
			const verb = details.created ? "Created" : "Wrote";
			return textResult(
				`${verb} ${details.path} (${details.bytes} bytes, +${details.added} -${details.removed} lines).`,
				details,
			);
		},
	};
}

/**
 * `edit_file`: replace one exact, unique occurrence of a string, or with `replace_all` every occurrence; the
 * result carries the unified diff.
 */
export function editFileTool(options: WorkspaceToolsOptions): AgentTool<EditFileArgs, FileChangeDetails> {
	return {
		name: "edit_file",
		label: "Edit file",
		description:
			"Replace an exact string in a file with a new one. old_string must match the file exactly once " +
			"(including whitespace); include enough surrounding lines to make it unique, or set replace_all " +
			"to replace every occurrence (e.g. to rename a variable). Returns the diff.",
		parameters: {
			type: "object",
			properties: {
				path: { type: "string", description: "File path, relative to the working directory." },
				old_string: {
					type: "string",
					description: "The exact text to replace (must occur once, unless replace_all is true).",
				},
				new_string: { type: "string", description: "The replacement text." },
				replace_all: {
					type: "boolean",
					description: "Replace every occurrence of old_string instead of requiring one. Default false.",
				},
			},
			required: ["path", "old_string", "new_string"],
			additionalProperties: false,
		},
		concurrency: "exclusive",
		async execute(_id, args, signal) {
			const planned = await planEdit(options, args);
			throwIfAborted(signal);
			const details = await withWorkspaceFileErrors(options.cwd, args.path, () => commit(planned, signal));
			const count =
				args.replace_all === true ? ` (${plural(details.replacements ?? 0, "occurrence")} replaced)` : "";
			return textResult(`Edited ${details.path}${count}:\n${details.diff}`, details);
		},
	};
}

/**
 * Write the planned text. `absolute` is the real path, symlinks resolved: a link to the file stays a link and
 * the file it points to changes, as an in-place write would have done.
 */
async function commit(planned: FileChange, signal: AbortSignal): Promise<FileChangeDetails> {
	await writeFileAtomically(planned.absolute, planned.after, signal);
	const details: FileChangeDetails = {
		path: planned.path,
		created: planned.before === undefined,
		bytes: Buffer.byteLength(planned.after),
		diff: planned.diff,
		added: planned.added,
		removed: planned.removed,
	};
	if (planned.replacements !== undefined) details.replacements = planned.replacements;
	return details;
}

function plural(count: number, noun: string): string {
	return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
