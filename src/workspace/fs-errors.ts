import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * A filesystem error met by a workspace tool (`EACCES`, `ELOOP`, `ENOTDIR`, …), told in the workspace's terms:
 * `permission denied: src/x.ts`. Node's own text names the host's absolute path
 * (`EACCES: permission denied, open '/home/me/proj/src/x.ts'`), which tells the model nothing it can use and
 * shows it where the workspace lives; this error's message names the path relative to the workspace root.
 */
export class WorkspaceFileError extends Error {
	/** Always `"WorkspaceFileError"`. */
	override readonly name = "WorkspaceFileError";
	/** The system error code, such as `"EACCES"` or `"ELOOP"`. */
	readonly code: string;
	/** The path the error is about, relative to the workspace root (or as the caller gave it, when outside). */
	readonly path: string;

	constructor(code: string, path: string, description: string) {
		super(`${description}: ${path}`);
		this.code = code;
		this.path = path;
	}
}

/** What each common error code means, in the words of `strerror` (lowercase, as in a message's middle). */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
	EACCES: "permission denied",
	EPERM: "operation not permitted",
	ELOOP: "too many symbolic links",
	ENOTDIR: "not a directory",
	EISDIR: "is a directory",
	ENAMETOOLONG: "name too long",
	ENOENT: "no such file or directory",
	EEXIST: "already exists",
	EROFS: "read-only file system",
	ENOSPC: "no space left on device",
	EDQUOT: "disk quota exceeded",
	EFBIG: "file too large",
	EMFILE: "too many open files",
	ENFILE: "too many open files in the system",
	EBUSY: "resource busy",
	ETXTBSY: "text file busy",
	EIO: "input/output error",
	EXDEV: "cross-device link not permitted",
};

/** A Node system error: a `code` and the `syscall` that failed (and usually the absolute `path` it failed on). */
function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
	return (
		error instanceof Error &&
		typeof (error as NodeJS.ErrnoException).code === "string" &&
		typeof (error as NodeJS.ErrnoException).syscall === "string"
	);
}

/**
 * The error to show for `error`, met while a tool worked on `given` (the path as the caller wrote it) in the
 * workspace whose real root is `root`: a system error becomes a {@link WorkspaceFileError} naming the path it
 * failed on relative to `root` (`given` when that path is missing or outside the root); anything else is
 * returned as it is.
 */
export function workspaceFileError(error: unknown, root: string, given: string): unknown {
	if (!isSystemError(error)) return error;
	const failedOn = typeof error.path === "string" ? resolve(error.path) : undefined;
	const rel = failedOn === undefined ? undefined : relative(root, failedOn);
	const inside = rel !== undefined && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
	const path = inside ? (rel === "" ? "." : rel.split(sep).join("/")) : given;
	return new WorkspaceFileError(error.code, path, describeCode(error));
}

/**
 * What a Node system error means, without Node's text and its absolute path: `"permission denied"` for EACCES
 * (the CLI's `--resume` says it too). Undefined for anything that is not a system error.
 */
export function describeSystemError(error: unknown): string | undefined {
	return isSystemError(error) ? describeCode(error) : undefined;
}

/** The code's meaning: the table's, else Node's own description (`EXYZ: what went wrong, open '…'`), else the code. */
function describeCode(error: NodeJS.ErrnoException & { code: string }): string {
	const known = DESCRIPTIONS[error.code];
	if (known !== undefined) return known;
	const node = /^[A-Z0-9_]+: ([^,]+),/.exec(error.message)?.[1];
	return node === undefined ? error.code : `${node} (${error.code})`;
}

/**
 * Run one call of a workspace tool on `given`, rethrowing a system error from it as a
 * {@link WorkspaceFileError}: no tool's error hands the model Node's text with the host's absolute paths.
 */
export async function withWorkspaceFileErrors<T>(
	cwd: string,
	given: string,
	work: () => Promise<T>,
): Promise<T> {
	try {
		return await work();
	} catch (error) {
		const root = await realpath(cwd).catch(() => resolve(cwd));
		throw workspaceFileError(error, root, given);
	}
}
