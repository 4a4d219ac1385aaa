/**
 * Run by file-load.test.ts in a child process whose file size limit (`ulimit -f`) the session file at
 * argv[2] already reaches, so the newline `openSessionFile` must add fails with EFBIG, as on a full disk.
 * Prints one JSON line: the error, and how many of this process's descriptors are still open on the file.
 */
import { readdirSync, readlinkSync } from "node:fs";
import { openSessionFile } from "../../src/sessions/index.js";

const path = process.argv[2];
if (!path) throw new Error("usage: open-child.ts <session file>");

function descriptorsOn(file: string): number {
	return readdirSync("/proc/self/fd").filter((fd) => {
		try {
			return readlinkSync(`/proc/self/fd/${fd}`) === file;
		} catch {
			return false;
		}
	}).length;
}

let error: string | undefined;
try {
	openSessionFile(path).close();
} catch (thrown) {
	error = thrown instanceof Error ? thrown.message : String(thrown);
}
process.stdout.write(`${JSON.stringify({ error, openDescriptors: descriptorsOn(path) })}\n`);
