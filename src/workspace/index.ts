/**
 * `capstan/tools`: the coding tools of the `capstan` command as ordinary `AgentTool`s, scoped to a working
 * directory — `read_file`, `list_dir`, `search_text` (shared), `write_file`, `edit_file`, `shell` (exclusive).
 */
import type { AgentTool } from "../tools/types.js";
import { listDirTool } from "./list-dir.js";
import type { WorkspaceToolsOptions } from "./options.js";
import { readFileTool } from "./read-file.js";
import { searchTextTool } from "./search-text.js";
import { shellTool } from "./shell.js";
import { editFileTool, writeFileTool } from "./write-tools.js";

export {
	type EditFileArgs,
	type FileChange,
	planEdit,
	planWrite,
	previewFileChange,
	type WriteFileArgs,
} from "./file-change.js";
export { WorkspaceFileError } from "./fs-errors.js";
export { type DirEntry, type ListDirArgs, type ListDirDetails, listDirTool } from "./list-dir.js";
export { type ShellOptions, WORKSPACE_DEFAULTS, type WorkspaceToolsOptions } from "./options.js";
export { resolveInWorkspace, WorkspaceEscapeError } from "./paths.js";
export { endRunningCommands } from "./process-group.js";
export { processAlive, processGroupAlive } from "./process-status.js";
export { type ReadFileArgs, type ReadFileDetails, readFileTool } from "./read-file.js";
export {
	MAX_MATCH_LINE_CHARS,
	MAX_UNREADABLE_NAMED,
	type SearchMatch,
	type SearchTextArgs,
	type SearchTextDetails,
	searchTextTool,
} from "./search-text.js";
export { environmentWithoutKeys, type ShellArgs, type ShellDetails, shellTool } from "./shell.js";
export { editFileTool, type FileChangeDetails, writeFileTool } from "./write-tools.js";

/** The tools that change the workspace or run commands: the ones a host asks the user to confirm. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file", "shell"]);

/** All six workspace tools, in a stable order: the read tools first, then the mutating ones. */
export function createWorkspaceTools(options: WorkspaceToolsOptions): AgentTool[] {
	return [
		readFileTool(options),
		listDirTool(options),
		searchTextTool(options),
		writeFileTool(options),
		editFileTool(options),
		shellTool(options),
	];
}
