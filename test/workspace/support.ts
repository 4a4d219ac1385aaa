import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import type { AgentTool, ToolResult } from "../../src/index.js";

const made: string[] = [];

afterEach(() => {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh workspace in the temp folder, beside an `outside` folder the tools must never reach. Removed after
 * the test. `files` maps relative paths to contents.
 */
export function workspace(files: Record<string, string | Buffer> = {}): { cwd: string; outside: string } {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "capstan-ws-")));
	made.push(base);
	const cwd = join(base, "work");
	const outside = join(base, "outside");
	mkdirSync(cwd);
	mkdirSync(outside);
	writeFileSync(join(outside, "secret.txt"), "outside secret\n");
	for (const [path, content] of Object.entries(files)) put(cwd, path, content);
	return { cwd, outside };
}

/** Write a file, creating its folders. */
export function put(root: string, path: string, content: string | Buffer): void {
	mkdirSync(dirname(join(root, path)), { recursive: true });
	writeFileSync(join(root, path), content);
}

/** A symlink at `root/path` pointing to `target`. */
export function link(root: string, path: string, target: string): void {
	mkdirSync(dirname(join(root, path)), { recursive: true });
	symlinkSync(target, join(root, path));
}

/** Options of {@link call}. */
export interface CallOptions {
	signal?: AbortSignal;
	onUpdate?: (partial: ToolResult) => void;
}

/** Execute a tool directly, as the loop would (the loop's own path is covered by the Agent tests). */
export function call<TArgs, TDetails>(
	tool: AgentTool<TArgs, TDetails>,
	args: TArgs,
	options: CallOptions = {},
): Promise<ToolResult<TDetails>> {
	const toolCall = {
		type: "toolCall" as const,
		id: "t1",
		name: tool.name,
		arguments: args as Record<string, unknown>,
	};
	return tool.execute(
		"t1",
		args,
		options.signal ?? new AbortController().signal,
		options.onUpdate ?? (() => {}),
		{
			toolCall,
			steeringRequested: new AbortController().signal,
			messages: [],
		},
	);
}

/** The text of a result's content. */
export function textOf(result: ToolResult): string {
	return result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");
}

/**
 * Give each test of the calling file a home folder of its own (`HOME`, `XDG_CONFIG_HOME` unset), so git's
 * global files are looked for there and never in the real home. Returns the current home folder's path.
 */
export function ownHome(): () => string {
	let home = "";
	beforeEach(() => {
		home = mkdtempSync(join(tmpdir(), "capstan-home-"));
		vi.stubEnv("HOME", home);
		vi.stubEnv("XDG_CONFIG_HOME", undefined);
	});
	afterEach(() => {
		vi.unstubAllEnvs();
		rmSync(home, { recursive: true, force: true });
	});
	return () => home;
}
