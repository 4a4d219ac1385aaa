import { existsSync, readdirSync, readFileSync } from "node:fs";

/**
 * Whether any process of the group is still running. On Linux this reads `/proc` and ignores zombies (dead
 * processes not yet reaped by their new parent, which `kill(-pid, 0)` still counts); elsewhere it asks the
 * kernel with signal 0.
 */
export function processGroupAlive(pgid: number): boolean {
	if (!existsSync("/proc/self/stat")) return signalZeroReaches(-pgid);
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		const stat = readProcStat(entry);
		if (stat !== undefined && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") return true;
	}
	return false;
}

/** Whether one process is running (a zombie is not). */
export function processAlive(pid: number): boolean {
	if (!existsSync("/proc/self/stat")) return signalZeroReaches(pid);
	const stat = readProcStat(String(pid));
	return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

function signalZeroReaches(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** State and process group from `/proc/<pid>/stat`; the command name may contain spaces and parentheses. */
function readProcStat(pid: string): { state: string; pgrp: number } | undefined {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return undefined;
	}
	const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
	return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
}
