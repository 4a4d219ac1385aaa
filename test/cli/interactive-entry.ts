/**
 * Test entry for the interactive mode: a real `Agent` on the scripted model with a real interruptible
 * long-running tool and a mutating tool, behind a small `InteractiveHost` with JSONL sessions under $HOME.
 * The tmux test runs it in a pseudo-terminal. Usage: `tsx interactive-entry.ts [--continue | --resume <file>]`.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent } from "../../src/agent/agent.js";
import type { InteractiveHost, SessionSummary, ToolApprover } from "../../src/cli/host.js";
import { runInteractive } from "../../src/cli/interactive/index.js";
import type { AgentMessage, UserMessage } from "../../src/core/messages.js";
import type { ThinkingLevel } from "../../src/core/model.js";
import { type ScriptedReply, scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import type { AgentTool } from "../../src/tools/types.js";

const home = process.env.HOME ?? ".";
const sessionDir = join(home, "sessions");
mkdirSync(sessionDir, { recursive: true });

function textOf(message: AgentMessage | undefined): string {
	const content = (message as UserMessage | undefined)?.content;
	return typeof content === "string" ? content : "";
}

/** The scripted conversation: "build" starts the long tool, "write" a mutating call, anything else a Markdown reply. */
function reply(messages: readonly AgentMessage[]): ScriptedReply {
	const last = messages[messages.length - 1] as { role?: string; toolName?: string } | undefined;
	const pace = { delayMs: 15, usage: { input: 1200, output: 80 } };
	if (last?.role === "toolResult") return textReply(`The ${last.toolName} call is settled.`, pace);
	const text = textOf(last as AgentMessage);
	if (/build/i.test(text))
		return toolReply("watch_build", { target: "app" }, { ...pace, text: "Watching the build." });
	if (/write/i.test(text)) return toolReply("write_file", { path: "notes.md", content: "hello\n" }, pace);
	return {
		...pace,
		content: [
			{ type: "thinking", thinking: "The user said something.\nI answer with a list." },
			{
				type: "text",
				text: `## Reply\nYou said: **${text}**\n\n- first point\n- second \`point\`\n\n\`\`\`ts\nconst answer = 42;\n\`\`\`\nDone.`,
			},
		],
	};
}

const watchBuild: AgentTool = {
	name: "watch_build",
	description: "Watch the build until it finishes (long-running, interruptible).",
	parameters: { type: "object", properties: { target: { type: "string" } } },
	interruptible: true,
	execute: (_id, _args, signal, onUpdate) =>
		new Promise((resolve, reject) => {
			let step = 0;
			const tick = setInterval(
				() => onUpdate({ content: [{ type: "text", text: `compiling module ${++step}` }] }),
				200,
			);
			const done = setTimeout(() => finish(), 30_000);
			function finish(): void {
				clearInterval(tick);
				clearTimeout(done);
				resolve({ content: [{ type: "text", text: "build finished" }] });
			}
			signal.addEventListener("abort", () => {
				clearInterval(tick);
				clearTimeout(done);
				reject(new Error("build watch stopped"));
			});
		}),
};

const writeFile: AgentTool = {
	name: "write_file",
	description: "Write a file.",
	parameters: {
		type: "object",
		properties: { path: { type: "string" }, content: { type: "string" } },
		required: ["path", "content"],
	},
	execute: async (_id, args: { path: string; content: string }) => {
		writeFileSync(join(process.cwd(), args.path), args.content);
		return { content: [{ type: "text", text: `wrote ${args.content.length} bytes to ${args.path}` }] };
	},
};

let approver: ToolApprover | undefined;
let thinking: ThinkingLevel = "off";
const scripted = scriptedModel((call) => reply(call.context.messages));
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [watchBuild, writeFile],
	beforeToolCall: async (ctx, signal) => {
		if (ctx.tool.name !== "write_file") return undefined;
		const summary = `write_file ${String(ctx.args.path)}`;
		const allowed = approver
			? await approver(
					{ toolCallId: ctx.toolCall.id, toolName: "write_file", args: ctx.args, summary },
					signal,
				)
			: false;
		return allowed ? undefined : { block: true, reason: "The user declined this call." };
	},
});

let current = join(sessionDir, `${Date.now()}.jsonl`);
agent.subscribe((event) => {
	if (event.type === "message_end") appendFileSync(current, `${JSON.stringify(event.message)}\n`);
});

function load(path: string): void {
	const messages = readFileSync(path, "utf8")
		.split("\n")
		.filter((l) => l !== "")
		.map((l) => JSON.parse(l) as AgentMessage);
	agent.replaceMessages(messages);
	current = path;
}

function list(): SessionSummary[] {
	return readdirSync(sessionDir)
		.map((name) => join(sessionDir, name))
		.map((path) => ({
			path,
			modified: statSync(path).mtimeMs,
			title: textOf(JSON.parse(readFileSync(path, "utf8").split("\n")[0] || "{}")),
		}))
		.sort((a, b) => b.modified - a.modified);
}

const args = process.argv.slice(2);
if (args[0] === "--resume" && args[1]) load(args[1]);
if (args[0] === "--continue") {
	const latest = list()[0];
	if (latest) load(latest.path);
}

const host: InteractiveHost = {
	agent,
	cwd: process.cwd(),
	version: "0.0.0-test",
	describeModel: () => ({
		provider: "scripted",
		id: "scripted-model",
		spec: "scripted/scripted-model",
		thinkingLevel: thinking,
		contextWindow: 128_000,
		scripted: true,
	}),
	listModels: () => ["scripted/scripted-model"],
	setModel: (spec) => {
		if (spec !== "scripted/scripted-model") throw new Error(`unknown model ${spec}`);
	},
	setThinking: (level) => {
		thinking = level;
		agent.setThinkingLevel(level);
	},
	sessions: {
		get current() {
			return current;
		},
		enabled: true,
		list: async () => list(),
		resume: async (path) => {
			load(path);
			return [];
		},
		clear: async () => {
			await agent.reset();
			current = join(sessionDir, `${Date.now()}.jsonl`);
		},
	},
	autoApprove: process.env.CAPSTAN_YES === "1",
	setApprover: (next) => {
		approver = next;
	},
	explainEnd: (event) =>
		event.outcome.type === "error" ? `the run failed: ${event.outcome.error}` : undefined,
};

process.exitCode = await runInteractive(host);
