import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/index.js";
import {
	endRunningCommands,
	environmentWithoutKeys,
	processAlive,
	processGroupAlive,
	type ShellDetails,
	shellTool,
} from "../../src/workspace/index.js";
import { call, textOf, workspace } from "./support.js";

const alive = processAlive;
// A group outlives its last child until the kernel has reaped its leader; on a loaded machine (the full suite
// in CI) that can be after every child is gone, so the group checks wait (bounded) like the pid checks.

/** Poll a condition every 20 ms, for at most `ms`: bounded, never a fixed sleep. */
async function eventually(condition: () => boolean, ms = 15_000): Promise<boolean> {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		if (condition()) return true;
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return condition();
}

/** The numbers a command printed with `echo pid:$!`, as its streamed updates show them. */
function pidsIn(text: string): number[] {
	return [...text.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1]));
}

/** Start a shell call that prints `count` background pids and waits; resolves once they are all printed. */
async function startWithChildren(command: string, count: number, options: { signal?: AbortSignal } = {}) {
	const { cwd } = workspace();
	const tool = shellTool({ cwd, shell: { killGraceMs: 500 } });
	let latest = "";
	const result = call(tool, { command }, { ...options, onUpdate: (p: ToolResult) => (latest = textOf(p)) });
	const printed = await eventually(() => pidsIn(latest).length >= count);
	expect(printed, `the command printed its children's pids (saw ${JSON.stringify(latest)})`).toBe(true);
	return { result, pids: pidsIn(latest) };
}

describe("shell", () => {
	it("returns combined output and the exit code; a non-zero exit is an error result", async () => {
		const { cwd } = workspace({ "a.txt": "A" });
		const tool = shellTool({ cwd });
		const ok = await call(tool, { command: "cat a.txt; echo; echo err >&2; pwd" });
		expect(textOf(ok)).toBe(`A\nerr\n${cwd}\n[exit code 0]`);
		expect(ok.isError).toBe(false);
		const failed = await call(tool, { command: "echo nope; exit 3" });
		expect(failed.isError).toBe(true);
		expect(textOf(failed)).toBe("nope\n[exit code 3]");
		expect(failed.details).toMatchObject({ exitCode: 3, timedOut: false, aborted: false, truncated: false });
	});

	it("removes terminal escape codes (colours, titles, links, cursor moves) from what the model reads", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd });
		// SGR colours, an OSC 8 hyperlink ended by ST, an OSC 0 title ended by BEL, a cursor move, `tput sgr0`'s
		// charset reset, and a one-byte CSI: the words around them stay, and so does a bracket that is text.
		const command =
			"printf '\\033[1;31merror\\033[0m: \\033]8;;https://x.test\\033\\\\link\\033]8;;\\033\\\\ " +
			"\\033]0;title\\007done\\033[2K\\033(B\\033[m [ok]\\302\\23332mc1\\n'";
		const result = await call(tool, { command });
		expect(textOf(result)).toBe("error: link done [ok]c1\n[exit code 0]");
		expect((result.details as ShellDetails).outputBytes).toBeGreaterThan("error: link done [ok]c1\n".length);
	});

	it("is exclusive and not interruptible by steering (SPEC T6, T10)", () => {
		const tool = shellTool({ cwd: "." });
		expect(tool.concurrency).toBe("exclusive");
		expect(tool.interruptible).toBe(false);
	});

	it("SPEC A1: abort ends the whole process group — the shell's children are gone too", async () => {
		const controller = new AbortController();
		const { result, pids } = await startWithChildren(
			"sleep 30 & echo pid:$!; sleep 30 & echo pid:$!; wait",
			2,
			{ signal: controller.signal },
		);
		expect(pids.every(alive)).toBe(true);
		controller.abort("user pressed Esc");
		const settled = await result;
		expect(settled.isError).toBe(true);
		expect(textOf(settled)).toContain(
			"[aborted: user pressed Esc; the command and its processes were killed]",
		);
		const details = settled.details as ShellDetails;
		expect(details.aborted).toBe(true);
		expect(await eventually(() => !pids.some(alive))).toBe(true);
		expect(await eventually(() => !processGroupAlive(details.pid!))).toBe(true);
	});

	it("an abort's reason reads as its text: an Error's message, not `Error: …`; a bare abort is the user's", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd });
		for (const [reason, shown] of [
			[new Error("deadline hit"), "deadline hit"],
			[undefined, "by the user"],
		] as const) {
			const controller = new AbortController();
			const pending = call(
				tool,
				{ command: "echo ready; sleep 30" },
				{
					signal: controller.signal,
					onUpdate: () => controller.abort(reason),
				},
			);
			expect(textOf(await pending)).toContain(
				`[aborted: ${shown}; the command and its processes were killed]`,
			);
		}
	});

	it("an aborted command is an error result even when it catches SIGTERM and exits 0", async () => {
		const { cwd } = workspace();
		const controller = new AbortController();
		const result = await call(
			shellTool({ cwd, shell: { killGraceMs: 500 } }),
			{ command: "trap 'exit 0' TERM; echo ready; sleep 30 & wait" },
			{
				signal: controller.signal,
				onUpdate: (partial) => {
					if (textOf(partial).includes("ready")) controller.abort("stop");
				},
			},
		);
		expect(result.details).toMatchObject({ exitCode: 0, aborted: true });
		expect(result.isError).toBe(true);
	});

	it("endRunningCommands() kills every running command's group at once (a host's signal handler)", async () => {
		const { result, pids } = await startWithChildren("sleep 30 & echo pid:$!; wait", 1);
		endRunningCommands();
		const details = (await result).details as ShellDetails;
		expect(details.exitCode).toBeNull();
		expect(await eventually(() => !pids.some(alive))).toBe(true);
		expect(await eventually(() => !processGroupAlive(details.pid!))).toBe(true);
	});

	it("a child that ignores SIGTERM is killed after the grace", async () => {
		const controller = new AbortController();
		const { result, pids } = await startWithChildren(
			"bash -c 'trap \"\" TERM; echo pid:$$; sleep 30 & wait' & wait",
			1,
			{ signal: controller.signal },
		);
		controller.abort();
		const details = (await result).details as ShellDetails;
		expect(details.aborted).toBe(true);
		expect(await eventually(() => !pids.some(alive))).toBe(true);
		expect(await eventually(() => !processGroupAlive(details.pid!))).toBe(true);
	});

	it("the timeout ends the group, and the result says so", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd, shell: { timeoutMs: 60_000, killGraceMs: 500 } });
		const result = await call(tool, { command: "sleep 30 & echo pid:$!; wait", timeout_ms: 1000 });
		const details = result.details as ShellDetails;
		expect(details.timedOut).toBe(true);
		expect(result.isError).toBe(true);
		expect(textOf(result)).toContain("[timed out; the command and its processes were killed]");
		// The group check covers the child even on a machine so loaded that it had not printed its pid yet.
		expect(await eventually(() => !processGroupAlive(details.pid!))).toBe(true);
		expect(pidsIn(textOf(result)).filter(alive)).toEqual([]);
	});

	it("a timeout of Infinity is no limit, not a timer that fires at once", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd, shell: { timeoutMs: Number.POSITIVE_INFINITY } });
		const result = await call(tool, { command: "sleep 0.2; echo done" });
		expect(textOf(result)).toBe("done\n[exit code 0]");
		expect(result.details).toMatchObject({ timedOut: false, exitCode: 0 });
	});

	it("processes left in the background do not outlive the call (nor hold it open)", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd, shell: { killGraceMs: 500 } });
		const result = await call(tool, { command: "sleep 30 & echo pid:$!" });
		expect(result.isError).toBe(false);
		const [child] = pidsIn(textOf(result));
		expect(await eventually(() => !alive(child!))).toBe(true);
		expect(processGroupAlive((result.details as ShellDetails).pid!)).toBe(false);
	});

	it.runIf(process.platform === "linux")(
		"jobs that job control (set -m) put in groups of their own end with the call too, on Linux",
		async () => {
			const { cwd } = workspace();
			const tool = shellTool({ cwd, shell: { killGraceMs: 500 } });
			const result = await call(tool, { command: "set -m; sleep 30 & echo pid:$!; sleep 31 & echo pid:$!" });
			const jobs = pidsIn(textOf(result));
			try {
				expect(jobs).toHaveLength(2);
				expect(result.isError).toBe(false);
				expect(await eventually(() => !jobs.some(alive), 3000)).toBe(true);
			} finally {
				for (const pid of jobs.filter(alive)) process.kill(pid, "SIGKILL");
			}
			// SPEC A1: an abort while the shell waits for such a job ends the job as well.
			const controller = new AbortController();
			const waiting = await startWithChildren("set -m; sleep 30 & echo pid:$!; wait", 1, {
				signal: controller.signal,
			});
			controller.abort();
			try {
				expect(((await waiting.result).details as ShellDetails).aborted).toBe(true);
				expect(await eventually(() => !waiting.pids.some(alive), 3000)).toBe(true);
			} finally {
				for (const pid of waiting.pids.filter(alive)) process.kill(pid, "SIGKILL");
			}
		},
	);

	it("keeps the head and the tail of a large output with a note of what was dropped", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd, shell: { maxOutputBytes: 1000 } });
		const result = await call(tool, { command: "echo START; seq 1 20000; echo END" });
		const text = textOf(result);
		const details = result.details as ShellDetails;
		expect(details.truncated).toBe(true);
		expect(text.startsWith("START\n1\n2\n")).toBe(true);
		expect(text).toMatch(/\n19999\n20000\nEND\n\[exit code 0\]$/);
		expect(text).toContain(`[… ${details.outputBytes - 1000} bytes of output omitted …]`);
		expect(Buffer.byteLength(text)).toBeLessThan(1200);
	});

	it("never splits a character where head and tail meet, whether bytes were dropped there or not", async () => {
		const { cwd } = workspace();
		// Head 4 bytes, tail 4: 'aéé' is 5 bytes, and the head's last byte is the first half of the second é.
		const tool = shellTool({ cwd, shell: { maxOutputBytes: 8 } });
		expect(textOf(await call(tool, { command: "printf 'aéé'" }))).toBe("aéé\n[exit code 0]");
		// 'aéééééb' is 12 bytes: the head ends with half the second é, the tail starts with half the fifth.
		const cut = await call(tool, { command: "printf 'aéééééb'" });
		expect(textOf(cut)).toBe("aé\n[… 6 bytes of output omitted …]\néb\n[exit code 0]");
		expect(textOf(cut)).not.toContain("\ufffd");
	});

	it("streams output as partial results while the command runs", async () => {
		const { cwd } = workspace();
		const partials: string[] = [];
		const tool = shellTool({ cwd });
		// The command prints "two" only once the test has seen "one" streamed: no timing involved.
		const command = "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two";
		const result = await call(
			tool,
			{ command },
			{
				onUpdate: (p) => {
					partials.push(textOf(p));
					if (textOf(p) === "one\n") writeFileSync(join(cwd, "go"), "");
				},
			},
		);
		expect(partials[0]).toBe("one\n");
		// Partials are throttled to one per 100 ms; the result, not a last partial, carries the end.
		expect(textOf(result)).toBe("one\ntwo\n[exit code 0]");
	});

	it("does not hand API keys to the command by default", async () => {
		const { cwd } = workspace();
		const env = environmentWithoutKeys({
			PATH: process.env.PATH,
			ANTHROPIC_API_KEY: "sk-ant-secret",
			HOME: "/h",
		});
		expect(env).toEqual({ PATH: process.env.PATH, HOME: "/h" });
		// A key variable of another name (a server's `apiKeyEnv`) is hidden when named; other tokens stay.
		expect(
			environmentWithoutKeys({ VLLM_TOKEN: "tok", GITHUB_TOKEN: "gh", HOME: "/h" }, ["VLLM_TOKEN"]),
		).toEqual({ GITHUB_TOKEN: "gh", HOME: "/h" });
		process.env.CAPSTAN_TEST_API_KEY = "sk-test-secret";
		try {
			const result = await call(shellTool({ cwd }), { command: "env" });
			expect(textOf(result)).not.toContain("sk-test-secret");
			expect(textOf(result)).toContain("PATH=");
		} finally {
			delete process.env.CAPSTAN_TEST_API_KEY;
		}
	});

	it("a shell that cannot start is a clear error", async () => {
		const { cwd } = workspace();
		const tool = shellTool({ cwd, shell: { shell: "/nonexistent/shell" } });
		await expect(call(tool, { command: "true" })).rejects.toThrow("Could not start /nonexistent/shell");
	});
});
