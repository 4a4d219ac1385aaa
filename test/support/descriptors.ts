import { closeSync, openSync, readdirSync, readlinkSync } from "node:fs";

/**
 * Point the open descriptor of `path` at another file, as a disk filling up would look to its writes: the
 * descriptor is closed and the replacement opened at once, which takes the lowest free number — the same one.
 */
export function redirectDescriptor(path: string, to: string, flags: string): void {
	const fd = readdirSync("/proc/self/fd").find((n) => {
		try {
			return readlinkSync(`/proc/self/fd/${n}`) === path;
		} catch {
			return false;
		}
	});
	if (fd === undefined) throw new Error(`no descriptor open on ${path}`);
	closeSync(Number(fd));
	const reopened = openSync(to, flags);
	if (reopened !== Number(fd)) throw new Error(`${to} opened as descriptor ${reopened}, not ${fd}`);
}
