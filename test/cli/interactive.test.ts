/**
 * The interactive mode end to end, in a real pseudo-terminal (tmux): type a prompt, steer while the long
 * tool runs and see the interrupt, queue a follow-up, abort with Esc, exit, and continue the saved session.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, TmuxPane } from "./interactive-tmux.js";

const root = resolve(import.meta.dirname, "../..");
const tsx = join(root, "node_modules/.bin/tsx");
const entry = join(root, "test/cli/interactive-entry.ts");
const tmux = hasTmux();
if (!tmux)
	console.warn(
		"interactive tmux test skipped: tmux is not installed (apt-get install tmux; .ci/run installs it)",
	);

describe.skipIf(!tmux)("capstan interactive mode in a pseudo-terminal", () => {
	let dir: string;
	const panes: TmuxPane[] = [];
	const open = (...args: string[]) => {
		const pane = new TmuxPane(`${tsx} ${entry} ${args.join(" ")}`, {
			cwd: join(dir, "project"),
			env: { HOME: join(dir, "home"), TERM: "xterm-256color", NO_COLOR: "1" },
		});
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

	it("prompt, steer (SPEC T10), follow-up (SPEC L9), Esc abort (SPEC A1), exit, then --continue shows the history", async () => {
		const pane = open();
		await pane.waitFor("(scripted) · thinking off");
		pane.text("hello");
		pane.keys("Enter");
		await pane.waitFor("You said: hello");
		await pane.waitFor("— done in", 1);

		pane.text("start the build");
		pane.keys("Enter");
		await pane.waitFor(/watch_build app \d+\.\d s · compiling module/);
		pane.text("then summarize");
		pane.keys("M-Enter");
		await pane.waitFor("⏭ follow-up queued: then summarize");
		pane.text("stop it now");
		pane.keys("Enter");
		await pane.waitFor(/⏹ watch_build app interrupted by your message \(\d+\.\d s\)/);
		await pane.waitFor("› stop it now (steering)");
		await pane.waitFor("› then summarize (follow-up)");
		const afterFollowUp = await pane.waitFor("You said: then summarize");
		expect(afterFollowUp.indexOf("You said: stop it now")).toBeLessThan(
			afterFollowUp.indexOf("You said: then summarize"),
		);
		await pane.waitFor("— done in", 2);

		pane.text("build once more");
		pane.keys("Enter");
		await pane.waitFor("Watching the build.", 2);
		await pane.waitFor(/watch_build app \d+\.\d s/);
		pane.keys("Escape");
		await pane.waitFor("run aborted after");
		await pane.waitFor(/⏹ watch_build app aborted/);

		pane.keys("C-c");
		await pane.waitFor("press Ctrl+C again to exit");
		pane.keys("C-c");
		await pane.waitFor("[exited 0]");

		const resumed = open("--continue");
		const screen = await resumed.waitFor("— end of saved history —");
		expect(screen).toContain("› hello");
		expect(screen).toContain("› stop it now");
		expect(screen).toMatch(/⏹ watch_build app interrupted by your message/);
		expect(screen).toMatch(/⏹ watch_build app aborted/);
		resumed.text("hi again");
		resumed.keys("Enter");
		await resumed.waitFor("You said: hi again");
	}, 90_000);
});
