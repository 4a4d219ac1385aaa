import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { type WorkspaceFileError, workspaceFileError } from "./fs-errors.js";
import { type escapeName, escapeRelative, hasByteEscape, type ToolPath, unescapeName } from "./names.js";

/** Thrown when a tool is asked to touch a path outside its workspace (after resolving symlinks). */
export class WorkspaceEscapeError extends Error {
	/** Always `"WorkspaceEscapeError"`. */
	override readonly name = "WorkspaceEscapeError";
	/** The path as the caller gave it. */
	readonly path: string;
	/** The workspace root (real path). */
	readonly workspace: string;

	constructor(path: string, workspace: string, resolvedTo?: string) {
		const via = resolvedTo === undefined ? "" : ` (it resolves through a symlink to ${resolvedTo})`;
		super(
			`Path "${path}" is outside the workspace ${workspace}${via}: tools may only touch files under the working directory.`,
		);
		this.path = path;
		this.workspace = workspace;
	}
}

/** Hops allowed through chained symlinks before giving up, like the kernel's ELOOP limit. */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolve `path` (relative to `cwd`, or absolute) to its real absolute path and check that it lies inside the
 * real `cwd`. Symlinks are resolved first — also for a file that does not exist yet, whose nearest existing
 * ancestor (or dangling link) decides where it would be written. Throws {@link WorkspaceEscapeError} for
 * anything outside, and a {@link WorkspaceFileError} naming the path relative to the workspace when resolving
 * it fails inside (a symlink loop, a folder that may not be read). The returned path is the one to operate on. `..` is resolved lexically first
 * (`link/../a.txt` is the workspace's `a.txt`, as `path.resolve` reads it), then every symlink left in the
 * result is resolved and the real path checked. The check and the later open are two steps: a process that
 * swaps a checked directory for a link between them is not guarded against (the file tools are confined
 * against what the model asks for, not against a concurrent attacker on the same machine).
 */
export async function resolveInWorkspace(cwd: string, path: string): Promise<string> {
	if (typeof path !== "string") throw new TypeError("path must be a string");
	if (path.includes("\0")) throw new Error(`Path ${JSON.stringify(path)} contains a NUL byte.`);
	const root = await realpath(cwd);
	const lexical = isAbsolute(path) ? resolve(path) : resolve(root, path);
	const real = await realpathLenient(lexical, 0).catch((error: unknown) => {
		// What a path outside fails with (a loop, a folder it may not read) is no business of the model's.
		if (!isInside(root, lexical)) throw new WorkspaceEscapeError(path, root);
		throw workspaceFileError(error, root, path);
	});
	if (isInside(root, real)) return real;
	// Name the symlink only when one is to blame: `../x` and `/etc/passwd` are plain escapes.
	throw new WorkspaceEscapeError(path, root, isInside(root, lexical) ? real : undefined);
}

/** The path, relative to the workspace root, for messages and details (`.` for the root itself). */
export function workspaceRelative(root: string, absolute: string): string {
	const rel = relative(root, absolute);
	return rel === "" ? "." : rel.split(sep).join("/");
}

function isInside(root: string, candidate: string): boolean {
	const rel = relative(root, candidate);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** `realpath` that also resolves paths that do not exist (yet), following dangling symlinks to their target. */
async function realpathLenient(path: string, hops: number): Promise<string> {
	if (hops > MAX_SYMLINK_HOPS) {
		throw Object.assign(new Error(`ELOOP: too many symbolic links, realpath '${path}'`), {
			code: "ELOOP",
			syscall: "realpath",
			path,
		});
	}
	try {
		return await realpath(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
	}
	const parent = dirname(path);
	if (parent === path) return path;
	const realParent = await realpathLenient(parent, hops);
	const here = join(realParent, basename(path));
	const stats = await lstat(here).catch(() => undefined);
	if (stats?.isSymbolicLink()) {
		return realpathLenient(resolve(realParent, await readlink(here)), hops + 1);
	}
	return here;
}

/**
 * {@link resolveInWorkspace} for a path as the tools show it: a path with a name written in escape form
 * (`caf\xE9.txt`, see {@link escapeName}) names the file whose name has those bytes, when no file of that
 * literal name exists and the bytes do (after resolving symlinks, inside the workspace), or, for a file not
 * there yet, the bytes of its folder do. Any other path resolves as {@link resolveInWorkspace} resolves it.
 */
export async function resolveToolPath(cwd: string, path: string): Promise<ToolPath> {
	const literal = await resolveInWorkspace(cwd, path);
	if (!hasByteEscape(path)) return literal;
	const literalExists = await lstat(literal).then(
		() => true,
		() => false,
	);
	if (literalExists) return literal;
	const root = await realpath(cwd);
	const rel = relative(root, resolve(root, path));
	if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return literal;
	const rootBytes = Buffer.from(root);
	const lexical = Buffer.concat([rootBytes, Buffer.from(sep), unescapeName(rel)]);
	let bytes = await realpath(lexical, { encoding: "buffer" }).catch(() => undefined);
	if (bytes === undefined) {
		// A file not there yet in a folder named so (`d\xFE/new.txt`) is in that folder, when only its bytes exist.
		const slash = lexical.lastIndexOf(0x2f);
		const literalParent = await lstat(dirname(literal)).then(
			() => true,
			() => false,
		);
		const parent = literalParent
			? undefined
			: await realpath(lexical.subarray(0, slash), { encoding: "buffer" }).catch(() => undefined);
		if (parent === undefined) return literal;
		bytes = Buffer.concat([parent, lexical.subarray(slash)]);
	}
	const inside =
		bytes.equals(rootBytes) ||
		(bytes.length > rootBytes.length + 1 &&
			bytes.subarray(0, rootBytes.length).equals(rootBytes) &&
			bytes[rootBytes.length] === 0x2f);
	if (!inside) throw new WorkspaceEscapeError(path, root, escapeRelative(bytes));
	if (bytes.equals(rootBytes)) return root;
	const shown = join(root, escapeRelative(bytes.subarray(rootBytes.length + 1)));
	// All of its names are UTF-8 after all (a symlink named in escape form pointing to one): a plain path.
	return Buffer.from(shown).equals(bytes) ? shown : { shown, bytes };
}
