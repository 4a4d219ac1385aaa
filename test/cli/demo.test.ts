/**
 * The scripted demo end to end: the real command on the scripted model, unattended (stdin is not a
 * terminal), as the README's main command runs it on a machine with no key.
 */
import { spawnSync } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	createDemoSandbox,
	DEMO_MARKER,
	DEMO_SANDBOX_MAX_AGE_MS,
	removeDemoSandbox,
} from "../../src/cli/demo.js";
import type { AgentEvent } from "../../src/protocol/events.js";
import {
	cleanUpAfterEach,
	jsonLines,
	runCli,
	sessionFiles,
	sessionMessages,
	startCli,
	tempProject,
	unbalancedEvents,
	unpairedCalls,
	waitForOutput,
} from "./support.js";

cleanUpAfterEach();

describe("capstan with no key and no base URL", () => {
	it("runs the scripted demo to the end in print mode and exits 0", async () => {
		const cwd = tempProject();
		const { code, stdout, stderr } = await runCli([], { cwd });
		expect(stderr).toBe("");
		expect(code).toBe(0);
		const lines = stdout.split("\n");
		expect(lines[0]).toContain(
			"scripted demo — no API key found; set ANTHROPIC_API_KEY/OPENAI_API_KEY/GEMINI_API_KEY or --base-url",
		);
		expect(stdout).toMatch(/^sandbox: .*capstan-demo-.*your project is not touched\)$/m);
		expect(stdout).toMatch(/^thinking: A new project\./m);
		expect(stdout).toMatch(/^assistant: Reading the README/m);
		expect(stdout).toMatch(/^→ read_file README\.md$/m);
		expect(stdout).toMatch(/^→ list_dir \.$/m);
		expect(stdout).toMatch(/^→ write_file notes\.md \(\d+ bytes\)$/m);
		// SPEC T10: the steer the demo queues cuts the interruptible tool short; SPEC L9: the follow-up runs after.
		expect(stdout).toMatch(/^↯ steering \(queued by the demo\): Stop watching the build/m);
		expect(stdout).toMatch(/^ {2}↷ watch_build: interrupted by the steering message$/m);
		expect(stdout).toMatch(/^⋯ follow-up queued: Then give me a one-line summary\.$/m);
		expect(stdout).toMatch(/^assistant: Summary: /m);
		expect(stdout).toMatch(/^usage: 5 model calls · 2,100 input · 300 output tokens$/m);
		// Nothing was written where the command was started: the demo works in its own temp dir.
		expect(existsSync(join(cwd, "notes.md"))).toBe(false);
		expect(existsSync(join(cwd, ".capstan"))).toBe(false);
	});

	it("in JSON mode writes every event as a JSON line: balanced, paired, parallel reads, exclusive write", async () => {
		const { code, stdout, stderr } = await runCli(["--json"], { cwd: tempProject() });
		expect(code).toBe(0);
		expect(stderr).toContain("scripted demo"); // announced on stderr: stdout stays pure JSON lines
		const events = jsonLines(stdout) as unknown as AgentEvent[];
		expect(unbalancedEvents(events)).toEqual([]); // SPEC L4
		const end = events[events.length - 1] as Extract<AgentEvent, { type: "agent_end" }>;
		expect(end.outcome).toEqual({ type: "completed" });
		expect(unpairedCalls(end.messages)).toEqual([]); // SPEC I1
		const tools = events.filter(
			(e): e is Extract<AgentEvent, { type: "tool_execution_start" | "tool_execution_end" }> =>
				e.type === "tool_execution_start" || e.type === "tool_execution_end",
		);
		const trace = tools.map((e) => `${e.type === "tool_execution_start" ? "start" : "end"}:${e.toolName}`);
		// SPEC T6: both shared reads start before either ends; the exclusive write runs alone, the read of
		// notes.md waits for it.
		expect(trace.slice(0, 2)).toEqual(["start:read_file", "start:list_dir"]);
		expect(trace.slice(4, 8)).toEqual([
			"start:write_file",
			"end:write_file",
			"start:read_file",
			"end:read_file",
		]);
		const watch = tools.find((e) => e.type === "tool_execution_end" && e.toolName === "watch_build");
		expect(watch).toMatchObject({ status: "interrupted", result: { details: { reason: "interrupted" } } });
		const users = end.messages.filter((m) => (m as { role?: string }).role === "user");
		expect(users.map((m) => (m as { content: string }).content)).toEqual([
			"Look around this project, note what you find in notes.md, then watch the build.",
			"Stop watching the build — the notes are enough for now.",
			"Then give me a one-line summary.",
		]);
	});

	it("Ctrl-C (SIGINT) while a tool runs aborts cleanly: exit 130, one line on stderr, a paired session", async () => {
		const cwd = tempProject();
		const child = startCli(["--demo", "--session-dir", "s"], { cwd });
		child.stdin.end();
		let stderr = "";
		child.stderr.on("data", (chunk: string) => {
			stderr += chunk;
		});
		const exited = new Promise<number | null>((resolveExit) => child.once("close", resolveExit));
		await waitForOutput(child, (out) => out.includes("→ watch_build"));
		child.kill("SIGINT");
		expect(await exited).toBe(130);
		expect(stderr).toBe("capstan: aborted: interrupted (SIGINT)\n"); // SPEC A5: the reason text
		const [file] = sessionFiles(join(cwd, "s"));
		expect(unpairedCalls(sessionMessages(file ?? ""))).toEqual([]); // SPEC A1, I1
	});
});

describe("the demo's sandboxes in the temporary directory", () => {
	const roots: string[] = [];
	afterEach(() => {
		for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
	});
	/** A temporary directory of the test's own, standing in for the system's. */
	const tmpRoot = () => {
		const root = mkdtempSync(join(tmpdir(), "capstan-sandbox-test-"));
		roots.push(root);
		return root;
	};
	/** Set every file and folder under `dir` (and `dir`) to `ageMs` ago. */
	const age = (dir: string, ageMs: number) => {
		const when = new Date(Date.now() - ageMs);
		for (const entry of readdirSync(dir, { recursive: true }))
			utimesSync(join(dir, String(entry)), when, when);
		utimesSync(dir, when, when);
	};
	/** A pid no process has: one of a process that has ended. */
	const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid;
	/** A sandbox an earlier demo left, with a session file in it (the path it printed). */
	const leftSandbox = async (root: string, ageMs: number) => {
		const sandbox = await createDemoSandbox({ tmpRoot: root });
		mkdirSync(sandbox.sessions);
		writeFileSync(join(sandbox.sessions, "s.jsonl"), "{}\n");
		removeDemoSandbox(sandbox);
		writeFileSync(join(sandbox.root, DEMO_MARKER), `${JSON.stringify({ pid: deadPid() })}\n`);
		age(sandbox.root, ageMs);
		return sandbox.root;
	};

	it("a new demo removes earlier demos' sandboxes older than a day, and keeps the newer ones", async () => {
		const root = tmpRoot();
		const stale = await leftSandbox(root, DEMO_SANDBOX_MAX_AGE_MS + 60_000);
		const recent = await leftSandbox(root, DEMO_SANDBOX_MAX_AGE_MS - 60_000);
		const sandbox = await createDemoSandbox({ tmpRoot: root });
		expect(existsSync(stale)).toBe(false);
		expect(existsSync(join(recent, "sessions", "s.jsonl"))).toBe(true);
		expect(statSync(join(sandbox.root, DEMO_MARKER)).isFile()).toBe(true);
		expect(existsSync(join(sandbox.project, "README.md"))).toBe(true);
	});

	it("a sandbox whose session file was written within the day is kept, however old the folder", async () => {
		const root = tmpRoot();
		const old = await leftSandbox(root, 3 * DEMO_SANDBOX_MAX_AGE_MS);
		const now = new Date();
		utimesSync(join(old, "sessions", "s.jsonl"), now, now);
		await createDemoSandbox({ tmpRoot: root });
		expect(existsSync(join(old, "sessions", "s.jsonl"))).toBe(true);
	});

	it("touches nothing it cannot tell is a finished demo's: no marker, another name, a live demo, a link", async () => {
		const root = tmpRoot();
		const old = 3 * DEMO_SANDBOX_MAX_AGE_MS;
		// Named like one, but without the marker: somebody else's folder (or an older capstan's).
		const unmarked = join(root, "capstan-demo-Ab12Cd");
		mkdirSync(join(unmarked, "sessions"), { recursive: true });
		age(unmarked, old);
		// Marked, but not named like one.
		const renamed = join(root, "my-capstan-demo");
		mkdirSync(renamed);
		writeFileSync(join(renamed, DEMO_MARKER), `${JSON.stringify({ pid: deadPid() })}\n`);
		age(renamed, old);
		// A demo still running (its process is alive), idle for days.
		const live = await createDemoSandbox({ tmpRoot: root });
		writeFileSync(join(live.root, DEMO_MARKER), `${JSON.stringify({ pid: process.pid })}\n`);
		age(live.root, old);
		// A link named like a sandbox, to a stale sandbox elsewhere: neither the link nor its target goes.
		const elsewhere = await leftSandbox(tmpRoot(), old);
		const link = join(root, "capstan-demo-Lnk123");
		symlinkSync(elsewhere, link);
		await createDemoSandbox({ tmpRoot: root });
		expect(existsSync(unmarked)).toBe(true);
		expect(existsSync(renamed)).toBe(true);
		expect(existsSync(live.project)).toBe(true);
		expect(existsSync(join(link, "sessions", "s.jsonl"))).toBe(true);
	});
});
