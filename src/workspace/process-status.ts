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

/**
 * The process groups of the session `sid`, other than the one `sid` leads: on Linux read from `/proc`
 * (zombies left out); elsewhere none, for want of a portable way to list a session. A session id stays taken
 * while any process is in the session, so every group listed is one that session's own processes made.
 */
export function otherGroupsOfSession(sid: number): number[] {
	if (!existsSync("/proc/self/stat")) return [];
	const groups = new Set<number>();
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		const stat = readProcStat(entry);
		if (stat === undefined || stat.session !== sid || stat.pgrp === sid) continue;
		if (stat.state !== "Z" && stat.state !== "X") groups.add(stat.pgrp);
	}
	return [...groups];
}

function signalZeroReaches(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** State, process group and session from `/proc/<pid>/stat`; the command name may contain spaces and parentheses. */
function readProcStat(pid: string): { state: string; pgrp: number; session: number } | undefined {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return undefined;
	}
	const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
	return { state: fields[0] ?? "", pgrp: Number(fields[2]), session: Number(fields[3]) };
}
