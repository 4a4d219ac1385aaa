/**
 * The scripted demo: the real command, loop and tools on the scripted model, in a fresh temporary directory
 * (never the user's project). It shows what the loop does best, in five model calls:
 *
 * 1. streamed thinking and text, then two shared reads (`read_file`, `list_dir`) running in parallel;
 * 2. an exclusive `write_file`, and a `read_file` of the same file that waits for it (rule T6);
 * 3. `watch_build`, an interruptible long-running tool (~3 s), cut short by a steering message (rule T10);
 * 4. the reply to the steer, injected after the batch's results (rule T12);
 * 5. the reply to a follow-up queued meanwhile: one more turn after the agent would have stopped (rule L9).
 *
 * The script reacts to the transcript rather than to fixed positions, so a person typing their own steer or
 * follow-up in the interactive mode still gets a coherent run, and extra prompts get an honest echo.
 */
import { readdirSync, rmSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Agent } from "../agent/agent.js";
import type { Message } from "../core/messages.js";
import type { ScriptedModel, ScriptedReply } from "../testing/scripted-model.js";
import { scriptedModel } from "../testing/scripted-model.js";
import type { AgentTool } from "../tools/types.js";

/** The demo's prompt, steer and follow-up. */
export const DEMO_TEXT = {
	prompt: "Look around this project, note what you find in notes.md, then watch the build.",
	steer: "Stop watching the build — the notes are enough for now.",
	followUp: "Then give me a one-line summary.",
} as const;

/** The interruptible long-running tool's name. */
export const LONG_TOOL = "watch_build";

/** How long `watch_build` runs when nothing interrupts it. */
export const WATCH_BUILD_MS = 3000;

/** When the unattended demo queues its steer after `watch_build` starts. */
export const AUTO_STEER_DELAY_MS = 500;

/** The demo's fresh temporary directory: the tiny project the tools work in, and its session files beside it. */
export interface DemoSandbox {
	/** The temporary directory holding both. */
	root: string;
	project: string;
	sessions: string;
}

/** Where the demo's sandbox goes. */
export interface DemoSandboxOptions {
	/** The temporary directory it is created in, and earlier ones pruned from (default: `os.tmpdir()`). */
	tmpRoot?: string;
}

/** The file in a sandbox's folder that says a demo made it (and which process): nothing else is pruned. */
export const DEMO_MARKER = ".capstan-demo";

/** An earlier demo's sandbox untouched for this long is removed when a demo starts: one day. */
export const DEMO_SANDBOX_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const SANDBOX_PREFIX = "capstan-demo-";
/** `mkdtemp`'s six characters after the prefix. */
const SANDBOX_NAME = /^capstan-demo-[A-Za-z0-9]{6}$/;

/**
 * Create the demo's sandbox with a tiny project in it, after pruning earlier demos' sandboxes that are
 * stale (see {@link pruneDemoSandboxes}): each run keeps its own for the user to look at, so none would go.
 */
export async function createDemoSandbox(options: DemoSandboxOptions = {}): Promise<DemoSandbox> {
	const tmpRoot = options.tmpRoot ?? tmpdir();
	await pruneDemoSandboxes(tmpRoot);
	const root = await mkdtemp(join(tmpRoot, SANDBOX_PREFIX));
	await writeFile(
		join(root, DEMO_MARKER),
		`${JSON.stringify({ made: "capstan scripted demo", pid: process.pid })}\n`,
	);
	const dir = join(root, "project");
	await mkdir(dir);
	await writeFile(
		join(dir, "README.md"),
		"# winch\n\nA tiny project for the capstan demo: `src/winch.ts` turns rope into torque.\n",
	);
	await writeFile(
		join(dir, "package.json"),
		`${JSON.stringify({ name: "winch", version: "1.0.0" }, null, 2)}\n`,
	);
	await mkdir(join(dir, "src"));
	await writeFile(join(dir, "src", "winch.ts"), "export const torque = (rope: number) => rope * 2;\n");
	return { root, project: dir, sessions: join(root, "sessions") };
}

/**
 * Remove the sandbox when the command ends (synchronous, so a forced exit can do it too): the project always;
 * the whole directory unless a session file was written in it, whose path the user was shown.
 */
export function removeDemoSandbox(sandbox: DemoSandbox): void {
	rmSync(sandbox.project, { recursive: true, force: true });
	if (!holdsFiles(sandbox.sessions)) rmSync(sandbox.root, { recursive: true, force: true });
}

/**
 * Remove the sandboxes earlier demos left in `tmpRoot` (the ones whose session file was written, or whose
 * process was killed) once nothing in them has changed for `maxAgeMs`. Only a folder that is unmistakably a
 * demo's goes: named as {@link createDemoSandbox} names it, a real folder (not a link) of this user, holding
 * the {@link DEMO_MARKER} file, and made by a process that has ended. Never throws: pruning is housekeeping.
 */
export async function pruneDemoSandboxes(tmpRoot: string, maxAgeMs = DEMO_SANDBOX_MAX_AGE_MS): Promise<void> {
	let names: string[];
	try {
		names = await readdir(tmpRoot);
	} catch {
		return;
	}
	const cutoff = Date.now() - maxAgeMs;
	for (const name of names) {
		if (!SANDBOX_NAME.test(name)) continue;
		const root = join(tmpRoot, name);
		try {
			if (await isStaleSandbox(root, cutoff)) await rm(root, { recursive: true, force: true });
		} catch {
			// Gone meanwhile (another demo pruned it), or not ours to read: leave it.
		}
	}
}

async function isStaleSandbox(root: string, cutoff: number): Promise<boolean> {
	const folder = await lstat(root);
	if (!folder.isDirectory() || (process.getuid !== undefined && folder.uid !== process.getuid()))
		return false;
	const marker = await lstat(join(root, DEMO_MARKER));
	if (!marker.isFile()) return false;
	const { pid } = JSON.parse(await readFile(join(root, DEMO_MARKER), "utf8")) as { pid?: unknown };
	if (typeof pid === "number" && isAlive(pid)) return false;
	return (await lastChange(root)) < cutoff;
}

/** The newest change in a sandbox: its folder, its project folder, its sessions folder and session files. */
async function lastChange(root: string): Promise<number> {
	const sessions = join(root, "sessions");
	const files = await readdir(sessions).catch(() => [] as string[]);
	const paths = [root, join(root, "project"), sessions, ...files.map((file) => join(sessions, file))];
	const times = await Promise.all(
		paths.map((path) =>
			stat(path).then(
				(s) => s.mtimeMs,
				() => 0,
			),
		),
	);
	return Math.max(...times);
}

/** Whether process `pid` runs (one of another user's counts: it cannot be signalled, but it runs). */
function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

function holdsFiles(dir: string): boolean {
	try {
		return readdirSync(dir).length > 0;
	} catch {
		return false;
	}
}

/**
 * `watch_build`: pretends to watch a build for {@link WATCH_BUILD_MS}, reporting progress. Interruptible, so
 * a steering message cuts it short (its abort signal fires) instead of waiting for it.
 */
export function watchBuildTool(durationMs = WATCH_BUILD_MS): AgentTool<Record<string, never>> {
	return {
		name: LONG_TOOL,
		label: "watch build",
		description: "Watch the project's build and report when it is done (long-running; interruptible).",
		parameters: { type: "object", properties: {}, additionalProperties: false },
		interruptible: true,
		execute: (_id, _args, signal, onUpdate) =>
			new Promise((resolve, reject) => {
				const started = Date.now();
				const tick = setInterval(() => {
					const seconds = ((Date.now() - started) / 1000).toFixed(1);
					onUpdate({ content: [{ type: "text", text: `building… ${seconds} s` }] });
				}, 500);
				const finish = setTimeout(() => {
					clearInterval(tick);
					signal.removeEventListener("abort", onAbort);
					resolve({ content: [{ type: "text", text: "build finished: 0 errors" }] });
				}, durationMs);
				function onAbort(): void {
					clearInterval(tick);
					clearTimeout(finish);
					reject(new Error("build watch stopped"));
				}
				signal.addEventListener("abort", onAbort, { once: true });
			}),
	};
}

const USAGE = { input: 420, output: 60, totalTokens: 480 };
const PACE = { delayMs: 8, chunkSize: 6, usage: USAGE } as const;

/** The demo's scripted model. */
export function demoModel(): ScriptedModel {
	return scriptedModel((call) => demoReply(call.context.messages), {
		model: { id: "scripted-demo", name: "Scripted demo", provider: "scripted", contextWindow: 128_000 },
	});
}

/** The reply for the conversation so far (exported for its table test). */
export function demoReply(messages: readonly Message[]): ScriptedReply {
	const replies = messages.filter((message) => message.role === "assistant").length;
	const last = messages[messages.length - 1];
	if (replies === 0)
		return {
			...PACE,
			content: [
				{ type: "thinking", thinking: "A new project. The README and the file list first; both only read." },
				{ type: "text", text: "Reading the README and listing the files, in parallel." },
				{ type: "toolCall", name: "read_file", arguments: { path: "README.md" } },
				{ type: "toolCall", name: "list_dir", arguments: { path: "." } },
			],
		};
	if (replies === 1)
		return {
			...PACE,
			content: [
				{ type: "text", text: "Writing notes.md (exclusive), then reading it back once the write is done." },
				{
					type: "toolCall",
					name: "write_file",
					arguments: {
						path: "notes.md",
						content: "# Notes\n\n- winch: README.md, package.json, src/winch.ts\n- torque = rope × 2\n",
					},
				},
				{ type: "toolCall", name: "read_file", arguments: { path: "notes.md" } },
			],
		};
	if (replies === 2)
		return {
			...PACE,
			content: [
				{ type: "text", text: "Notes written. Watching the build now; this takes a few seconds." },
				{ type: "toolCall", name: LONG_TOOL, arguments: {} },
			],
		};
	if (last?.role === "toolResult")
		return { ...PACE, content: [{ type: "text", text: "The build finished cleanly." }] };
	const said = last?.role === "user" ? userText(last) : "";
	const users = messages.filter((message) => message.role === "user").length;
	if (users === 2)
		return {
			...PACE,
			content: [
				{ type: "thinking", thinking: "The user steered: the watch was cut short, nothing is lost." },
				{ type: "text", text: `Understood ("${said}"). I stopped watching the build; notes.md is written.` },
			],
		};
	return {
		...PACE,
		content: [
			{
				type: "text",
				text:
					users === 3
						? "Summary: winch doubles rope into torque; notes.md lists its three files."
						: `(scripted demo: this model only plays its script — you said "${said}". Set an API key or --base-url for a real model.)`,
			},
		],
	};
}

function userText(message: Extract<Message, { role: "user" }>): string {
	if (typeof message.content === "string") return message.content;
	return message.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join(" ");
}

/** What the unattended demo announces as it queues its messages. */
export interface AutoplayReporter {
	steered(text: string): void;
	followUpQueued(text: string): void;
}

/**
 * Play the user's part: {@link AUTO_STEER_DELAY_MS} after `watch_build` starts, queue the steer and the
 * follow-up (the follow-up waits for the agent to stop, rule L9). Returns a function that cancels it.
 */
export function autoplayDemo(agent: Agent, reporter?: AutoplayReporter): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let done = false;
	const unsubscribe = agent.subscribe((event) => {
		if (done || event.type !== "tool_execution_start" || event.toolName !== LONG_TOOL) return;
		done = true;
		timer = setTimeout(() => {
			agent.steer(DEMO_TEXT.steer);
			reporter?.steered(DEMO_TEXT.steer);
			agent.followUp(DEMO_TEXT.followUp);
			reporter?.followUpQueued(DEMO_TEXT.followUp);
		}, AUTO_STEER_DELAY_MS);
	});
	return () => {
		done = true;
		if (timer !== undefined) clearTimeout(timer);
		unsubscribe();
	};
}
