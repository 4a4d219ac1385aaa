import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { throwIfAborted } from "./options.js";

/**
 * Characters of the target's name kept in the temporary file's name: enough to tell whose it is, short enough
 * that the name stays under the 255-byte limit of a file name.
 */
const NAME_PREFIX_CHARS = 64;

/** Random bytes in a temporary file's name, written as twice as many hex digits. */
const RANDOM_BYTES = 6;

/**
 * A name {@link atomicTempPath} makes: `.`, up to {@link NAME_PREFIX_CHARS} UTF-16 units of the target's name,
 * `.`, 12 hex digits, `.tmp`. Without the `u` flag `[\s\S]` is one UTF-16 unit, as `slice` counts them.
 */
const TEMP_NAME = new RegExp(`^\\.[\\s\\S]{1,${NAME_PREFIX_CHARS}}\\.[0-9a-f]{${RANDOM_BYTES * 2}}\\.tmp$`);

/** Where {@link writeFileAtomically} writes the text for `absolute` before renaming it over the target. */
export function atomicTempPath(absolute: string): string {
	const name = basename(absolute).slice(0, NAME_PREFIX_CHARS);
	return join(dirname(absolute), `.${name}.${randomBytes(RANDOM_BYTES).toString("hex")}.tmp`);
}

/**
 * Whether a file name is one of {@link writeFileAtomically}'s temporary files: one a crash mid-write (a killed
 * process, a power cut) left behind. The listing and search tools leave these out, so the model never
 * mistakes half a write for a file of the project; the exact pattern keeps a user's own `*.tmp` in view.
 */
export function isAtomicWriteTemp(name: string): boolean {
	return TEMP_NAME.test(name);
}

/**
 * Replace the file at `absolute` (a real path, symlinks resolved) with `text`, so that nothing ever sees it half
 * written: the text goes to a temporary file in the same folder, is flushed to disk, and is renamed over the
 * target — a crash, a full disk or an abort mid-write leaves the old file whole. The file keeps its mode (and,
 * where the process may set it, its owner). The temporary file is removed when any step fails.
 */
export async function writeFileAtomically(
	absolute: string,
	text: string,
	signal: AbortSignal,
): Promise<void> {
	const existing = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
		if (error.code === "ENOENT") return undefined;
		throw error;
	});
	// Renaming needs only the folder's permission: a file the process may not write (read-only, or another
	// user's) stays refused, as a write in place would refuse it.
	if (existing !== undefined) await access(absolute, constants.W_OK);
	const temp = atomicTempPath(absolute);
	// A new file gets the mode `writeFile` would give it (0o666 less the umask).
	const handle = await open(temp, "wx", 0o666);
	try {
		try {
			await handle.writeFile(text, { encoding: "utf8", signal });
			if (existing !== undefined) {
				// Owner first: a chown clears the setuid and setgid bits that the chmod then restores.
				await handle.chown(existing.uid, existing.gid).catch(() => undefined);
				await handle.chmod(existing.mode & 0o7777);
			}
			await handle.sync();
		} finally {
			await handle.close();
		}
		await rename(temp, absolute);
	} catch (error) {
		await rm(temp, { force: true });
		// The temporary file is ours, not the caller's: a failure on it (no room, no write permission in the
		// folder) is one of writing the target.
		const failed = error as NodeJS.ErrnoException;
		if (failed.path === temp) failed.path = absolute;
		throwIfAborted(signal);
		throw error;
	}
}
