import { tmpdir } from "node:os";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ApprovalDesk, type ApprovalPolicy, askBeforeRunning } from "../../src/cli/approval.js";
import type { InteractiveHost } from "../../src/cli/host.js";
import { createPalette } from "../../src/cli/interactive/ansi.js";
import {
	type ControllerClock,
	DOUBLE_CTRL_C_MS,
	InteractiveController,
	TYPING_GAP_MS,
} from "../../src/cli/interactive/controller.js";
import { type KeyInput, keyAction, readKeys } from "../../src/cli/interactive/keys.js";
import { LiveScreen } from "../../src/cli/interactive/screen.js";
import type { RetryInfo } from "../../src/core/model.js";
import { errorReply, scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import type { AgentTool } from "../../src/tools/types.js";
import { shellTool } from "../../src/workspace/index.js";
import { VirtualTerminal } from "./interactive-vt.js";

/** Interruptible tool that runs until its signal fires. */
const waitTool: AgentTool = {
	name: "watch_build",
	description: "waits",
	parameters: { type: "object", properties: {} },
	interruptible: true,
	execute: (_id, _args, signal) =>
		new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")))),
};

const writeTool: AgentTool = {
	name: "write_file",
	description: "writes",
	parameters: { type: "object", properties: { path: { type: "string" } } },
	execute: async () => ({ content: [{ type: "text", text: "written" }] }),
};

/** The controller's clock, moved on by hand: the guard windows need no real waiting. */
function manualClock(): ControllerClock & { advance(ms: number): void } {
	let now = 0;
	return {
		now: () => now,
		advance: (ms) => {
			now += ms;
		},
	};
}

function setup(
	script: Parameters<typeof scriptedModel>[0],
	size: { columns?: number; rows?: number } = {},
	extraTools: AgentTool[] = [],
	clock = manualClock(),
) {
	const scripted = scriptedModel(script);
	// The command's own mechanism (rule T14–T16): write_file pauses the run, the desk asks the approver the
	// controller installs, and the answer resumes the batch.
	const policy: ApprovalPolicy = { autoApprove: false, approver: undefined };
	const agent = new Agent({
		model: scripted.model,
		streamFn: scripted.stream,
		tools: [waitTool, askBeforeRunning(writeTool, policy), ...extraTools],
	});
	const desk = new ApprovalDesk(agent, policy);
	const host: InteractiveHost = {
		agent,
		cwd: "/tmp/project",
		version: "test",
		describeModel: () => ({
			provider: "scripted",
			id: "m",
			spec: "scripted/m",
			thinkingLevel: "off",
			contextWindow: 1000,
			scripted: true,
		}),
		listModels: () => ["scripted/m"],
		setModel: () => undefined,
		setThinking: () => undefined,
		sessions: {
			current: undefined,
			enabled: false,
			list: async () => [],
			load: (path) => {
				throw new Error(`no such file: ${path}`);
			},
			resume: async () => [],
			clear: () => agent.reset(),
		},
		autoApprove: false,
		setApprover: (next) => {
			policy.approver = next;
		},
		explainEnd: (e) =>
			e.outcome.type === "error" ? "the conversation no longer fits: /clear or a new session" : undefined,
	};
	const retries = new Set<(info: RetryInfo) => void>();
	const warnings = new Set<(text: string) => void>();
	Object.assign(host, {
		onRetry: (listener: (info: RetryInfo) => void) => {
			retries.add(listener);
			return () => retries.delete(listener);
		},
		onWarning: (listener: (text: string) => void) => {
			warnings.add(listener);
			return () => warnings.delete(listener);
		},
	});
	const vt = new VirtualTerminal(size.columns ?? 100, size.rows ?? 40);
	const controller = new InteractiveController(host, new LiveScreen(vt), vt, createPalette(false), clock);
	stops.push(controller.start());
	const type = (text: string) => {
		for (const ch of text) controller.handle({ type: "insert", text: ch }, ch);
	};
	/** Answer the question on screen as a person does: after reading it. */
	const answer = (key: string) => {
		clock.advance(TYPING_GAP_MS);
		controller.handle({ type: "insert", text: key }, key);
	};
	const retry = (info: RetryInfo) => {
		for (const listener of retries) listener(info);
	};
	const warn = (text: string) => {
		for (const listener of warnings) listener(text);
	};
	return { agent, host, vt, controller, scripted, type, answer, clock, retry, warn, desk };
}

const stops: (() => void)[] = [];
afterEach(() => {
	for (const stop of stops.splice(0)) stop();
});

/** Waits (bounded) until `text` is no longer on the screen. */
async function gone(vt: VirtualTerminal, text: string): Promise<void> {
	for (let i = 0; i < 50; i++) {
		if (!vt.screen().join("\n").includes(text)) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error(`still see ${JSON.stringify(text)} on:\n${vt.screen().join("\n")}`);
}

async function until(vt: VirtualTerminal, text: string): Promise<void> {
	for (let i = 0; i < 200; i++) {
		if (vt.screen().join("\n").includes(text)) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error(`never saw ${JSON.stringify(text)} on:\n${vt.screen().join("\n")}`);
}

describe("InteractiveController: the live input line drives the agent", () => {
	it("Enter sends a prompt; the streamed reply lands in the transcript once", async () => {
		const { vt, type, controller } = setup([textReply("Hello **there**.\n- one\n- two")]);
		type("hi");
		controller.handle({ type: "submit" });
		await until(vt, "— done");
		const screen = vt.screen();
		expect(screen).toContain("› hi");
		expect(screen).toContain("Hello **there**."); // no colour here: the markup stays
		expect(screen.filter((l) => l === "• two")).toHaveLength(1);
	});

	it("live rows fit the width as shown: a control character is wrapped as the one-cell picture it becomes", async () => {
		// Wider than the terminal, a row would wrap there, and the region's redraw would miss the extra row.
		const { vt, type, controller } = setup([toolReply("watch_build", { target: "\x1b[2J\x00".repeat(12) })], {
			columns: 40,
		});
		type("build");
		controller.handle({ type: "submit" });
		await until(vt, "⠋ watch_build");
		expect(vt.screen().join("\n")).toContain("␛[2J␀␛[2J␀");
		const running = vt.screen().filter((line) => line.includes("␛[2J"));
		expect(running.length).toBeGreaterThan(1);
		expect(running.filter((line) => line.length > 40)).toEqual([]);
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
	});

	it("prints the command's warnings in the transcript, above the live region that would erase them", async () => {
		const { vt, type, warn } = setup([]);
		type("draft");
		warn("Session /s.jsonl can no longer be written (ENOSPC)");
		await until(vt, "warning: Session /s.jsonl can no longer be written (ENOSPC)");
		const screen = vt.screen();
		expect(screen.at(-1)).toBe("› draft");
		expect(screen.indexOf("warning: Session /s.jsonl can no longer be written (ENOSPC)")).toBeLessThan(
			screen.length - 2,
		);
	});

	it("SPEC T10: Enter during a run steers; the running tool shows it was interrupted by the message", async () => {
		const { vt, type, controller, agent, scripted } = setup([
			toolReply("watch_build"),
			textReply("Stopped as asked."),
		]);
		type("build");
		controller.handle({ type: "submit" });
		await until(vt, "⠋ watch_build");
		type("stop now");
		controller.handle({ type: "submit" });
		await until(vt, "— done");
		const screen = vt.screen().join("\n");
		expect(screen).toMatch(/⏹ watch_build +interrupted by your message \(\d+\.\d s\)/);
		expect(screen).toContain("› stop now (steering)");
		expect(screen).toContain("Stopped as asked.");
		expect(agent.state.messages.map((m) => (m as { role: string }).role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"user",
			"assistant",
		]);
		expect(scripted.calls).toHaveLength(2);
	});

	it("SPEC L9: Alt+Enter during a run queues a follow-up, shown as queued, run after the model stops", async () => {
		const { vt, type, controller, agent } = setup([
			toolReply("watch_build"),
			textReply("first"),
			textReply("second"),
		]);
		type("build");
		controller.handle({ type: "submit" });
		await until(vt, "⠋ watch_build");
		type("and then this");
		controller.handle({ type: "submitLater" });
		await until(vt, "⏭ follow-up queued: and then this");
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
		// SPEC A6: the abort left the follow-up queued; it is still shown and still in the queue.
		expect(agent.peekFollowUpQueue()).toHaveLength(1);
		expect(vt.screen().join("\n")).toMatch(/⏹ watch_build +aborted/);
	});

	it("SPEC T15, T16: a mutating call asks first; n denies it with a reason the model reads, y lets it run", async () => {
		const { vt, type, answer, controller, scripted } = setup([
			toolReply("write_file", { path: "a.txt" }),
			textReply("ok"),
			toolReply("write_file", { path: "a.txt" }),
			textReply("done"),
		]);
		type("write");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file: a.txt? [y/N/a=always]");
		answer("n");
		await until(vt, "— done");
		expect(vt.screen().join("\n")).toMatch(/⊘ write_file a\.txt blocked: .*was denied/);
		const blocked = scripted.calls[1]?.context.messages.at(-1);
		expect(blocked).toMatchObject({ role: "toolResult", isError: true });
		type("write again");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file");
		answer("y");
		await until(vt, "✓ write_file a.txt");
	});

	it("SPEC T15: a run paused for approval reads as one run: no line for the pause, its time counts from the prompt", async () => {
		const { vt, type, answer, controller, clock } = setup([
			toolReply("write_file", { path: "a.txt" }),
			textReply("written"),
		]);
		type("write");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file: a.txt? [y/N/a=always]");
		clock.advance(4700); // the person reads the question (answer() adds the last 0.3 s)
		answer("y");
		await until(vt, "— done");
		const screen = vt.screen().join("\n");
		expect(screen).not.toContain("waiting for approval");
		expect(screen).toContain("— done in 5.0 s");
	});

	it("a=always also allows the calls of that tool already waiting: no second question for them", async () => {
		const { vt, type, answer, controller, agent, desk } = setup([
			{
				content: [
					{ type: "toolCall", name: "write_file", arguments: { path: "a.txt" } },
					{ type: "toolCall", name: "write_file", arguments: { path: "b.txt" } },
				],
			},
			textReply("both written"),
		]);
		type("write two");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file: a.txt? [y/N/a=always]");
		answer("a");
		await until(vt, "— done");
		await desk.idle();
		const screen = vt.screen().join("\n");
		expect(screen).not.toContain("? Run write_file: b.txt");
		expect(screen).toContain("✓ write_file a.txt");
		expect(screen).toContain("✓ write_file b.txt");
		expect(agent.state.pendingApprovals).toEqual([]);
	});

	it("a paste while a question is open does not answer it: the pasted text goes to the input line", async () => {
		const { vt, type, answer, clock, controller, agent } = setup([
			toolReply("write_file", { path: "a.txt" }),
			textReply("ok"),
		]);
		type("write");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file: a.txt? [y/N/a=always]");
		clock.advance(TYPING_GAP_MS); // read: a key now would answer, a paste still does not
		controller.handle({ type: "pasteStart" });
		type("yes\nplease");
		controller.handle({ type: "pasteEnd" });
		await new Promise((r) => setTimeout(r, 50));
		expect(agent.state.pendingApprovals.map((p) => p.toolName)).toEqual(["write_file"]);
		expect(vt.screen().at(-1)).toBe("? Run write_file: a.txt? [y/N/a=always]");
		answer("n");
		await until(vt, "— done");
		expect(vt.screen().join("\n")).toMatch(/⊘ write_file a\.txt blocked/);
		expect(vt.screen().at(-1)).toBe("› yes↵please");
	});

	it("the question shows the whole command to approve: neither its tail nor its line breaks are lost", async () => {
		const shell: AgentTool = {
			name: "shell",
			description: "runs",
			parameters: { type: "object", properties: { command: { type: "string" } } },
			needsApproval: () => true,
			execute: async () => ({ content: [{ type: "text", text: "ran" }] }),
		};
		const command = `echo ${"a".repeat(90)} > out.txt && echo hi\nrm -rf ~/projects`;
		const { vt, type, controller, agent } = setup([toolReply("shell", { command })], { columns: 60 }, [
			shell,
		]);
		type("run");
		controller.handle({ type: "submit" });
		await until(vt, "[y/N/a=always]");
		expect(vt.screen().slice(-4)).toEqual([
			`? Run shell: echo ${"a".repeat(41)}`,
			`${"a".repeat(49)} > out.txt`,
			"&& echo hi", // the space it wrapped at does not push the row one cell in
			"rm -rf ~/projects? [y/N/a=always]",
		]);
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
		expect(agent.state.pendingApprovals).toEqual([]);
	});

	/** An `edit_file` stand-in that asks for approval, for the file-change questions below. */
	const edit: AgentTool = {
		name: "edit_file",
		description: "edits",
		parameters: { type: "object", properties: { path: { type: "string" } } },
		needsApproval: () => true,
		execute: async () => ({ content: [{ type: "text", text: "edited" }] }),
	};

	it("a file change to approve shows what it writes: edit_file's old and new text, write_file's content", async () => {
		const content = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
		const { vt, type, answer, controller } = setup(
			[
				toolReply("edit_file", {
					path: "a.ts",
					old_string: "let a = 1;\nlet b = 2;",
					new_string: "const a = 1;",
				}),
				toolReply("write_file", { path: "b.txt", content }),
				textReply("done"),
			],
			{ columns: 60, rows: 14 },
			[edit],
		);
		type("change");
		controller.handle({ type: "submit" });
		await until(vt, "? Run edit_file: a.ts? [y/N/a=always]");
		expect(vt.screen().slice(-4)).toEqual([
			"- let a = 1;",
			"- let b = 2;",
			"+ const a = 1;",
			"? Run edit_file: a.ts? [y/N/a=always]",
		]);
		answer("y");
		await until(vt, "? Run write_file: b.txt (");
		// As many lines as the screen has room for, the last saying how many more there are.
		const screen = vt.screen();
		expect(screen.at(-1)).toBe("? Run write_file: b.txt (229 bytes)? [y/N/a=always]");
		expect(screen.at(-2)).toBe("… 21 more lines");
		expect(screen.slice(-11, -2)).toEqual(Array.from({ length: 9 }, (_, i) => `+ line ${i}`));
		answer("n");
		await until(vt, "— done");
	});

	it("an edit_file with replace_all says in its question that it replaces every occurrence", async () => {
		const { vt, type, answer, controller } = setup(
			[
				toolReply("edit_file", { path: "a.ts", old_string: "foo", new_string: "bar", replace_all: true }),
				toolReply("edit_file", { path: "b.ts", old_string: "foo", new_string: "bar", replace_all: false }),
				textReply("done"),
			],
			{ columns: 60, rows: 14 },
			[edit],
		);
		type("rename");
		controller.handle({ type: "submit" });
		await until(vt, "? Run edit_file: a.ts");
		expect(vt.screen().slice(-3)).toEqual([
			"- foo",
			"+ bar",
			"? Run edit_file: a.ts (every occurrence)? [y/N/a=always]",
		]);
		answer("y");
		await until(vt, "? Run edit_file: b.ts");
		expect(vt.screen().at(-1)).toBe("? Run edit_file: b.ts? [y/N/a=always]");
		answer("n");
		await until(vt, "— done");
	});

	it("a command taller than the screen keeps its first rows, says how many are not shown, and ends with the keys", async () => {
		const lines = Array.from({ length: 40 }, (_, i) => `echo line ${i}`).join("\n");
		const { vt, type, controller } = setup([toolReply("write_file", { path: lines })], { rows: 12 });
		type("run");
		controller.handle({ type: "submit" });
		await until(vt, "[y/N/a=always]");
		expect(vt.screen().slice(-10)).toEqual([
			"scripted/m (scripted) · thinking off · ↑0 ↓0 · ctx 0% of 1.0k",
			"? Run write_file: echo line 0",
			"echo line 1",
			"echo line 2",
			"echo line 3",
			"echo line 4",
			"echo line 5",
			"echo line 6",
			"… 32 rows not shown …",
			"echo line 39? [y/N/a=always]",
		]);
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
	});

	it("a pasted CRLF is one line break in the input line, as a pasted LF or CR is", async () => {
		const { vt, controller } = setup([]);
		const input = new PassThrough();
		const stopKeys = readKeys(input as unknown as NodeJS.ReadStream & KeyInput, (text, key) =>
			controller.handle(keyAction(text, key, controller.inPaste), text),
		);
		try {
			input.write("\x1b[200~one\r\ntwo\nthree\rfour\x1b[201~");
			await until(vt, "four");
			expect(vt.screen().at(-1)).toBe("› one↵two↵three↵four");
		} finally {
			stopKeys();
		}
	});

	it("letters typed on while a question appears finish the word in the input line; a key after a pause answers", async () => {
		const { vt, type, clock, controller, agent } = setup([
			toolReply("write_file", { path: "a.txt" }),
			textReply("ok"),
		]);
		type("write");
		controller.handle({ type: "submit" });
		type("then add tests");
		await until(vt, "? Run write_file: a.txt? [y/N/a=always]");
		clock.advance(100);
		type(" a");
		clock.advance(100);
		type("nd");
		await new Promise((r) => setTimeout(r, 50));
		expect(agent.state.pendingApprovals.map((p) => p.toolName)).toEqual(["write_file"]);
		expect(vt.screen().at(-1)).toBe("? Run write_file: a.txt? [y/N/a=always]");
		clock.advance(TYPING_GAP_MS);
		controller.handle({ type: "insert", text: "n" }, "n");
		await until(vt, "— done");
		expect(vt.screen().join("\n")).toMatch(/⊘ write_file a\.txt blocked/);
		expect(vt.screen().at(-1)).toBe("› then add tests and");
	});

	it("a doubled or held y answers only the question it was meant for: the next one waits for a key after a pause", async () => {
		const { vt, type, answer, clock, controller, agent, desk } = setup([
			{
				content: [
					{ type: "toolCall", name: "write_file", arguments: { path: "a.txt" } },
					{ type: "toolCall", name: "write_file", arguments: { path: "b.txt" } },
				],
			},
			textReply("ok"),
		]);
		type("write two");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file: a.txt? [y/N/a=always]");
		answer("y");
		await until(vt, "? Run write_file: b.txt? [y/N/a=always]");
		// The key bounces, then auto-repeats (each within the gap of the one before, all past the first gap).
		for (let i = 0; i < 12; i++) {
			clock.advance(TYPING_GAP_MS / 3);
			controller.handle({ type: "insert", text: "y" }, "y");
		}
		await new Promise((r) => setTimeout(r, 50));
		// The desk records the answers once both are in: the second question is still open.
		expect(vt.screen().at(-1)).toBe("? Run write_file: b.txt? [y/N/a=always]");
		expect(agent.state.pendingApprovals).toHaveLength(2);
		answer("n");
		await until(vt, "— done");
		await desk.idle();
		const screen = vt.screen().join("\n");
		expect(screen).toContain("✓ write_file a.txt");
		expect(screen).toMatch(/⊘ write_file b\.txt blocked/);
		expect(vt.screen().at(-1)).toBe("›"); // the dropped keys went nowhere
	});

	it("SPEC T17: Esc while a question is open withdraws it and ends the paused run as aborted", async () => {
		const { vt, type, controller, agent, scripted, desk } = setup([
			toolReply("write_file", { path: "a.txt" }),
		]);
		type("write");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file");
		expect(agent.state.pendingApprovals.map((p) => p.toolName)).toEqual(["write_file"]);
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
		await desk.idle();
		expect(agent.state.isStreaming).toBe(false);
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "toolResult", details: { reason: "aborted" } });
		expect(scripted.calls).toHaveLength(1);
	});

	it("Esc says 'aborting…' while the run winds down, and takes it down once the run has ended", async () => {
		const { vt, type, controller } = setup([toolReply("watch_build", {})]);
		type("watch");
		controller.handle({ type: "submit" });
		await until(vt, "watch_build");
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
		await gone(vt, "aborting…");
	});

	it("Ctrl+C once warns, twice within 1.5 s exits with 0", async () => {
		const { vt, controller } = setup([]);
		controller.handle({ type: "interrupt" });
		await until(vt, "press Ctrl+C again to exit");
		controller.handle({ type: "interrupt" });
		await expect(controller.done).resolves.toBe(0);
	});

	it("SPEC A1: Ctrl+C during a run aborts it like Esc, keeping the draft; the session goes on", async () => {
		const { vt, type, controller, agent, clock } = setup([toolReply("watch_build"), textReply("again")]);
		type("watch");
		controller.handle({ type: "submit" });
		await until(vt, "⠋ watch_build");
		type("half a steer");
		controller.handle({ type: "interrupt" });
		await until(vt, "run aborted");
		expect(vt.screen().join("\n")).toMatch(/⏹ run aborted after \d+\.\d s: aborted by the user \(Ctrl\+C\)/);
		expect(agent.state.isStreaming).toBe(false);
		expect(vt.screen().at(-1)).toBe("› half a steer");
		// Past the double-press window, the session is still there and runs the next prompt.
		clock.advance(DOUBLE_CTRL_C_MS + 1);
		controller.handle({ type: "submit" });
		await until(vt, "again");
		expect(await Promise.race([controller.done, Promise.resolve("running")])).toBe("running");
	});

	it("SPEC T17: Ctrl+C while a question is open withdraws it and ends the paused run as aborted", async () => {
		const { vt, type, controller, agent, desk } = setup([toolReply("write_file", { path: "a.txt" })]);
		type("write");
		controller.handle({ type: "submit" });
		await until(vt, "? Run write_file");
		controller.handle({ type: "interrupt" });
		await until(vt, "run aborted");
		await desk.idle();
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "toolResult", details: { reason: "aborted" } });
		expect(await Promise.race([controller.done, Promise.resolve("running")])).toBe("running");
	});

	it("Ctrl+C twice during a run exits with 0: the first aborts, the second leaves", async () => {
		const { vt, type, controller, agent } = setup([toolReply("watch_build")]);
		type("watch");
		controller.handle({ type: "submit" });
		await until(vt, "⠋ watch_build");
		controller.handle({ type: "interrupt" });
		await until(vt, "press Ctrl+C again to exit");
		controller.handle({ type: "interrupt" });
		await expect(controller.done).resolves.toBe(0);
		expect(agent.state.isStreaming).toBe(false);
	});

	it("Ctrl+C ends a running shell command: the run stops at once, not when the command would have", async () => {
		const shell = shellTool({ cwd: tmpdir(), shell: { killGraceMs: 200 } });
		const { vt, type, controller } = setup([toolReply("shell", { command: "sleep 30" })], {}, [shell]);
		type("run it");
		controller.handle({ type: "submit" });
		await until(vt, "shell sleep 30");
		controller.handle({ type: "interrupt" });
		await until(vt, "run aborted");
		expect(vt.screen().join("\n")).toMatch(/⏹ shell sleep 30 aborted \(\d+\.\d s\)/);
	});

	it("the Ctrl+C hint is taken down when its window has passed, though nothing else redraws", () => {
		vi.useFakeTimers();
		try {
			const { vt, controller, clock } = setup([]);
			controller.handle({ type: "interrupt" });
			vi.advanceTimersByTime(20);
			expect(vt.screen()).toContain("press Ctrl+C again to exit");
			clock.advance(DOUBLE_CTRL_C_MS + 1);
			vi.advanceTimersByTime(DOUBLE_CTRL_C_MS);
			expect(vt.screen()).not.toContain("press Ctrl+C again to exit");
			expect(vt.screen().at(-1)).toBe("›");
		} finally {
			for (const stop of stops.splice(0)) stop();
			vi.useRealTimers();
		}
	});

	it("slash commands report in the transcript; an unknown one says how to find the others", async () => {
		const { vt, type, controller } = setup([]);
		type("/nope");
		controller.handle({ type: "submit" });
		await until(vt, "unknown command /nope — /help lists them");
		type("/thinking loud");
		controller.handle({ type: "submit" });
		await until(vt, '/thinking: unknown level "loud"');
		type("/tools");
		controller.handle({ type: "submit" });
		await until(vt, "write_file (asks first)");
		type("/help");
		controller.handle({ type: "submit" });
		await until(vt, "/exit");
		// The keys of a question are listed with the others: nothing else on screen says what "a" does.
		expect(vt.screen().join("\n")).toMatch(/y \/ n \/ a +answer a question to run a tool: yes, no .*always/);
		type("/resume nope.jsonl");
		controller.handle({ type: "submit" });
		await until(vt, "/resume: no such file");
		expect(vt.screen().join("\n")).not.toContain("— resuming");
		type("/us");
		controller.handle({ type: "complete" });
		controller.handle({ type: "submit" });
		await until(vt, "replies      0");
	});

	it("/usage words the cost as the status line does: no $0.0000 when nothing was spent, <$0.0001 for a tiny sum", async () => {
		const tiny = {
			input: 10,
			output: 2,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.00002 },
		};
		const { vt, type, controller } = setup([textReply("free"), textReply("cheap", { usage: tiny })]);
		type("hi");
		controller.handle({ type: "submit" });
		await until(vt, "— done");
		type("/usage");
		controller.handle({ type: "submit" });
		await until(vt, "replies      1");
		const free = vt.screen().join("\n");
		expect(free).not.toContain("$0.0000");
		expect(free).not.toMatch(/^ {2}cost/m);
		type("again");
		controller.handle({ type: "submit" });
		await until(vt, "cheap");
		type("/usage");
		controller.handle({ type: "submit" });
		await until(vt, "replies      2");
		expect(vt.screen().join("\n")).toMatch(/^ {2}cost +<\$0\.0001$/m);
	});

	it("/tools gives each tool one row on a narrow terminal: a long description is cut to the width", async () => {
		const wordy: AgentTool = {
			...waitTool,
			name: "search_text",
			description: `Search the workspace's files for a regular expression, ${"line by line, ".repeat(10)}`,
		};
		const { vt, type, controller } = setup([], { columns: 50 }, [wordy]);
		type("/tools");
		controller.handle({ type: "submit" });
		await until(vt, "write_file (asks first)");
		const rows = vt.screen().filter((row) => /^ {2}(watch_build|write_file|search_text)/.test(row));
		expect(rows).toHaveLength(3);
		for (const row of rows) expect(row.length).toBeLessThanOrEqual(49);
		expect(rows[2]).toMatch(/^ {2}search_text Search the workspace's .*…$/);
	});

	it("a prompt that starts with a path is sent, not refused as an unknown command", async () => {
		const { vt, type, controller, scripted } = setup([textReply("a typo on line 2")]);
		type("/etc/hosts has a typo?");
		controller.handle({ type: "submit" });
		await until(vt, "— done");
		expect(vt.screen()).toContain("› /etc/hosts has a typo?");
		expect(vt.screen().join("\n")).not.toContain("unknown command");
		expect(scripted.calls[0]?.context.messages.at(-1)).toMatchObject({ role: "user" });
	});

	it("SPEC A8: a provider retry is shown with its wait; an error stop says what to do", async () => {
		const { vt, type, controller, retry } = setup([
			errorReply("prompt is too long: 210000 tokens", "context_overflow"),
		]);
		retry({ attempt: 2, delayMs: 4000, errorKind: "rate_limit", errorMessage: "429 Too Many Requests" });
		await until(vt, "↻ retry 2 in 4.0 s (rate_limit: 429 Too Many Requests)");
		type("hello");
		controller.handle({ type: "submit" });
		await until(vt, "→ the conversation no longer fits: /clear or a new session");
		const screen = vt.screen().join("\n");
		expect(screen).toContain("✗ model error (context_overflow): prompt is too long: 210000 tokens");
		expect(screen).toMatch(/✗ run failed after \d+\.\d s/);
	});

	it("a failed reply's error is said once: the run's end does not repeat it, and no advice line restates it", async () => {
		const { vt, type, controller, host } = setup([errorReply("HTTP 500 Internal Server Error: boom")]);
		// No remedy to add (CliApp's answer for an error of no known kind): the error, once, and the run's time.
		host.explainEnd = () => undefined;
		type("hello");
		controller.handle({ type: "submit" });
		await until(vt, "✗ run failed after");
		const screen = vt.screen().join("\n");
		expect(screen).toContain("✗ model error: HTTP 500 Internal Server Error: boom");
		expect(screen.match(/boom/g)).toHaveLength(1);
		expect(screen).not.toContain("→");
	});

	it("thinking is collapsed to one line; Ctrl+T expands it, printing the last block in full", async () => {
		const { vt, type, controller } = setup([
			{
				content: [
					{ type: "thinking", thinking: "step one\nstep two" },
					{ type: "text", text: "answer" },
				],
			},
		]);
		type("q");
		controller.handle({ type: "submit" });
		await until(vt, "— done");
		expect(vt.screen().join("\n")).toMatch(/✻ thought for \d+\.\d s · 2 lines · Ctrl\+T shows thinking/);
		expect(vt.screen()).not.toContain("step two");
		controller.handle({ type: "toggleThinking" });
		await until(vt, "thinking expanded");
		expect(vt.screen()).toContain("step two");
	});

	it("on a narrow terminal every live row fits the width; long input wraps instead of overflowing", async () => {
		const { vt, type } = setup([], { columns: 24, rows: 12 });
		type("a long line of input that needs more than one row");
		await until(vt, "row");
		const live = vt.screen().slice(-4);
		expect(live.map((row) => row.length <= 23)).toEqual([true, true, true, true]);
		// The screen model trims trailing blanks, so compare without spaces.
		expect(live.slice(1).join("").replace(/ /g, "")).toBe("›alonglineofinputthatneedsmorethanonerow");
	});

	it("Esc ends a running shell command: the run stops at once, not when the command would have", async () => {
		const shell = shellTool({ cwd: tmpdir(), shell: { killGraceMs: 200 } });
		const { vt, type, controller, agent } = setup([toolReply("shell", { command: "sleep 30" })], {}, [shell]);
		type("run it");
		controller.handle({ type: "submit" });
		await until(vt, "shell sleep 30");
		controller.handle({ type: "escape" });
		await until(vt, "run aborted");
		expect(vt.screen().join("\n")).toMatch(/⏹ shell sleep 30 aborted \(\d+\.\d s\)/);
		expect(agent.state.isStreaming).toBe(false);
	});
});
