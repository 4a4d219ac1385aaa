/**
 * Drive a program in a real pseudo-terminal through tmux: start it detached at a fixed size, send keys,
 * read the screen. Every wait polls the screen with a bound; nothing sleeps for a fixed time.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";

let panes = 0;

/** Whether tmux is installed (CI installs it in `.ci/run`). */
export function hasTmux(): boolean {
	return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
}

/** One tmux server (own socket) with one pane running `command`. */
export class TmuxPane {
	/** Its own socket file in the test's directory: no shared server, and nothing left behind in /tmp. */
	private readonly socket: string;

	constructor(
		command: string,
		options: {
			cwd: string;
			env: Record<string, string>;
			/** Where the tmux socket file goes (removed with the directory). */
			socketDir: string;
			width?: number;
			height?: number;
		},
	) {
		this.socket = join(options.socketDir, `tmux-${++panes}.sock`);
		const env = Object.entries(options.env)
			.map(([k, v]) => `${k}=${shellQuote(v)}`)
			.join(" ");
		// The pane stays open after the program exits, so its exit code can be read from the screen.
		const script = `env ${env} ${command}; echo "[exited $?]"; sleep 600`;
		this.tmux(
			"new-session",
			"-d",
			"-x",
			String(options.width ?? 120),
			"-y",
			String(options.height ?? 40),
			"-c",
			options.cwd,
			script,
		);
	}

	/** Send keys: literal text with `text`, key names (`Enter`, `Escape`, `C-c`, `M-Enter`) with `keys`. */
	text(text: string): void {
		this.tmux("send-keys", "-l", text);
	}

	keys(...names: string[]): void {
		this.tmux("send-keys", ...names);
	}

	/** The visible screen, as text. */
	screen(): string {
		return this.tmux("capture-pane", "-p", "-J");
	}

	/** The screen plus its scrollback. */
	history(): string {
		return this.tmux("capture-pane", "-p", "-J", "-S", "-");
	}

	/**
	 * Wait until `pattern` is on the screen or in the scrollback, `times` times over (to wait for a second
	 * occurrence of a line seen before); fails with the screen after `timeoutMs`.
	 */
	async waitFor(pattern: string | RegExp, times = 1, timeoutMs = 20_000): Promise<string> {
		const deadline = Date.now() + timeoutMs;
		const global = new RegExp(typeof pattern === "string" ? escapeRegExp(pattern) : pattern.source, "g");
		for (;;) {
			const text = this.history();
			if ((text.match(global)?.length ?? 0) >= times) return text;
			if (Date.now() > deadline)
				throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${this.screen()}`);
			await new Promise((r) => setTimeout(r, 50));
		}
	}

	/** Stop the tmux server and everything in it. */
	close(): void {
		spawnSync("tmux", ["-S", this.socket, "kill-server"], { stdio: "ignore" });
	}

	private tmux(...args: string[]): string {
		return execFileSync("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
	}
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function shellQuote(value: string): string {
	return `'${value.replace(/'/g, "'\\''")}'`;
}
