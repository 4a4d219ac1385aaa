import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * `mkdir -p`, one level at a time. Node's recursive mkdir never returns for a missing folder of a pseudo file
 * system that refuses it with ENOENT (`/proc/x` as root, Node 20.20: it makes the parent, finds it there and
 * tries the folder again, forever, at full CPU); made level by level, such a folder fails with ENOENT. Used for
 * the session folder and for the parent folders of `write_file`.
 */
export function makeFolders(dir: string): void {
	const missing: string[] = [];
	for (let path = resolve(dir); !existsSync(path) && dirname(path) !== path; path = dirname(path))
		missing.push(path);
	for (const path of missing.reverse()) {
		try {
			mkdirSync(path);
		} catch (error) {
			// Made meanwhile by another process: as good as made here.
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
	}
}
