/**
 * The interactive mode end to end: the real `capstan` command on its scripted demo, in a real pseudo-terminal
 * (tmux). Type the prompt, queue a follow-up and steer while the long tool runs, see the interrupt, abort with
 * Esc, exit with Ctrl+C twice, then `--continue` and `/resume` the saved sessions and see their history.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TYPING_GAP_MS } from "../../src/cli/interactive/controller.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { createSessionFile } from "../../src/sessions/index.js";
import { textReply } from "../providers/openai-completions/synthetic.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { hasTmux, TmuxPane } from "./interactive-tmux.js";

closeServersAfterEach();

const root = resolve(import.meta.dirname, "../..");
const tsx = join(root, "node_modules/.bin/tsx");
const main = join(root, "src/cli/main.ts");
const tmux = hasTmux();
if (!tmux)
	console.warn(
		"interactive tmux test skipped: tmux is not installed (apt-get install tmux; .ci/run installs it)",
	);

const STEER = "Stop watching the build now.";
const FOLLOW_UP = "Then one line of summary.";

describe.skipIf(!tmux)("capstan interactive mode in a pseudo-terminal (scripted demo)", () => {
	let dir: string;
	const panes: TmuxPane[] = [];
	const open = (...args: string[]) => {
		// --demo: the scripted model even if the machine has an API key; nothing leaves loopback.
		const pane = new TmuxPane(
			`${tsx} ${main} --demo --session-dir ${join(dir, "sessions")} ${args.join(" ")}`,
			{
				cwd: join(dir, "project"),
				env: { HOME: join(dir, "home"), TERM: "xterm-256color", NO_COLOR: "1" },
				socketDir: dir,
			},
		);
		panes.push(pane);
		return pane;
	};

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "capstan-tui-"));
		for (const sub of ["project", "home"]) mkdirSync(join(dir, sub));
	});
	afterAll(() => {
		for (const pane of panes) pane.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it("Esc abort (SPEC A1); prompt, follow-up (SPEC L9) and steer (SPEC T10) while the long tool runs; exit; --continue; /resume", async () => {
		const pane = open();
		await pane.waitFor("› Look around this project"); // the demo prefills its prompt
		pane.keys("Enter");
		await pane.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] watch_build +\d+\.\d s/);
		pane.keys("Escape");
		await pane.waitFor(/⏹ run aborted after \d+\.\d s: aborted by the user \(Esc\)/);
		await pane.waitFor(/⏹ watch_build +aborted \(\d+\.\d s\)/);

		pane.text("/clear");
		pane.keys("Enter");
		await pane.waitFor("— new conversation —");
		pane.keys("Tab"); // an empty line in the demo: Tab fills in its prompt
		pane.keys("Enter");
		await pane.waitFor("Watching the build now", 2);
		// Live rows are redrawn in place, so the first run's spinner is gone: this one is the second run's.
		await pane.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] watch_build/);
		// Both typed at once: the long tool runs ~3 s, and keys are handled in order.
		pane.text(FOLLOW_UP);
		pane.keys("M-Enter");
		pane.text(STEER);
		pane.keys("Enter");
		await pane.waitFor(/⏹ watch_build +interrupted by your message \(\d+\.\d s\)/);
		await pane.waitFor(`› ${STEER} (steering)`);
		const done = await pane.waitFor(`› ${FOLLOW_UP} (follow-up)`);
		expect(done.indexOf("(steering)")).toBeLessThan(done.indexOf("(follow-up)"));
		await pane.waitFor("— done in");

		pane.keys("C-c");
		await pane.waitFor("press Ctrl+C again to exit");
		pane.keys("C-c");
		await pane.waitFor("[exited 0]");

		// A new process: `--continue` goes on with the latest session and shows its history first.
		const next = open("--continue");
		const history = await next.waitFor("— end of saved history —");
		expect(history).toContain(`› ${STEER}`);
		expect(history).toMatch(/⏹ watch_build +interrupted by your message/);
		expect(history).toContain(`› ${FOLLOW_UP}`);
		next.text("/usage");
		next.keys("Enter");
		await next.waitFor(/replies +[1-9]/);
		// `/resume` switches to the latest other session: the aborted one.
		next.text("/resume");
		next.keys("Enter");
		const older = await next.waitFor("— end of saved history —", 2);
		expect(older.slice(older.indexOf("— resuming"))).toMatch(/⏹ watch_build +aborted/);
	}, 90_000);
});

/** A session that ended between a `shell` call and its result (a crash): its last reply waits for the call. */
function sessionWithPendingShell(dir: string, cwd: string): string {
	const file = createSessionFile({
		cwd,
		dir,
		model: { provider: "openai-compatible", id: "m", api: "openai-completions" },
	});
	const reply: AssistantMessage = {
		role: "assistant",
		content: [
			{ type: "toolCall", id: "call_s1", name: "shell", arguments: { command: "echo hi > made.txt" } },
		],
		api: "openai-completions",
		provider: "openai-compatible",
		model: "m",
		usage: {
			input: 1,
			output: 1,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 2,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "toolUse",
		timestamp: 1,
	};
	file.append({ role: "user", content: "make the file", timestamp: 0 });
	file.append(reply);
	file.close();
	return file.path;
}

describe.skipIf(!tmux)("capstan --resume in a pseudo-terminal (loopback server)", () => {
	let dir: string;
	let pane: TmuxPane | undefined;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "capstan-tui-resume-"));
		for (const sub of ["project", "home", "sessions"]) mkdirSync(join(dir, sub));
	});
	afterAll(() => {
		pane?.close();
		rmSync(dir, { recursive: true, force: true });
	});

	it("SPEC L6, T15: a resumed batch's mutating call is asked about, not refused; yes runs it", async () => {
		const server = await serve({ type: "sse", body: textReply("Made it."), split: false });
		const project = join(dir, "project");
		const path = sessionWithPendingShell(join(dir, "sessions"), project);
		const model = `--base-url ${server.baseUrl}/v1 --model m`;
		pane = new TmuxPane(`${tsx} ${main} ${model} --session-dir ${join(dir, "sessions")} --resume ${path}`, {
			cwd: project,
			env: { HOME: join(dir, "home"), TERM: "xterm-256color", NO_COLOR: "1" },
			socketDir: dir,
		});
		const asked = await pane.waitFor("? Run shell: echo hi > made.txt? [y/N/a=always]");
		expect(asked).toContain("— end of saved history —"); // the history first, then the question
		expect(asked).not.toMatch(/^usage: /m); // no trace line from a run outside the TTY mode
		expect(existsSync(join(project, "made.txt"))).toBe(false);
		// A question takes no key in its first moments (a doubled key must not answer one nobody has read): the
		// one real wait here is that of a person reading it.
		await new Promise((r) => setTimeout(r, TYPING_GAP_MS));
		pane.text("y");
		await pane.waitFor("Made it.");
		expect(readFileSync(join(project, "made.txt"), "utf8")).toBe("hi\n");
		const sent = JSON.parse(server.requests[0]?.body ?? "{}") as {
			messages: { role: string; content: string }[];
		};
		expect(sent.messages.at(-1)).toMatchObject({
			role: "tool",
			content: expect.stringContaining("[exit code 0]"),
		});
	}, 60_000);
});
