/**
 * Slash commands. Each one reads or changes the host and reports in plain lines; none of them writes to the
 * terminal itself, so they run the same while a reply streams.
 */
import type { ThinkingLevel } from "../../core/model.js";
import { MUTATING_TOOLS } from "../../workspace/index.js";
import type { InteractiveHost, SessionSummary } from "../host.js";
import type { Palette } from "./ansi.js";
import { formatTokens, spentCost, type UsageTotals } from "./status-line.js";
import { displayWidth, truncate } from "./text-width.js";
import { oneLine } from "./tool-lines.js";

const LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** What a command may use. */
export interface CommandContext {
	host: InteractiveHost;
	style: Palette;
	totals: UsageTotals;
	/** Cells a printed line may take: wider lines are wrapped by the terminal (a cut one ends in "…"). */
	width: number;
	print(lines: readonly string[]): void;
	/** Show a saved conversation after it was loaded, then run a batch it left without results (rule L6). */
	showLoaded(): void;
	exit(code: number): void;
}

/** One command: its name, a usage hint and what it does. */
interface Command {
	usage: string;
	help: string;
	run(arg: string, ctx: CommandContext): Promise<void> | void;
}

/** The key bindings, for `/help` and the README. */
export const KEY_HELP: readonly (readonly [string, string])[] = [
	["Enter", "send; while the agent works, steer it (interrupts running tools)"],
	["Alt+Enter, /later <text>", "queue a follow-up for when the agent is done"],
	["Esc, Ctrl+C", "abort the run (and a running shell command); with none, clear the input line"],
	["Ctrl+C twice", "exit (Ctrl+D on an empty line too)"],
	["Ctrl+T", "expand or collapse thinking"],
	["Up/Down", "input history; Tab completes a /command"],
	["y / n / a", "answer a question to run a tool: yes, no (also Enter), always for that tool"],
];

const COMMANDS: Record<string, Command> = {
	help: { usage: "/help", help: "keys and commands", run: (_, ctx) => ctx.print(helpLines(ctx.style)) },
	model: {
		usage: "/model [provider/id]",
		help: "show or switch the model (from the next run)",
		run: modelCommand,
	},
	thinking: {
		usage: "/thinking [off|minimal|low|medium|high|xhigh]",
		help: "show or set the thinking level",
		run: thinkingCommand,
	},
	tools: { usage: "/tools", help: "the tools the agent may call", run: toolsCommand },
	usage: { usage: "/usage", help: "tokens, cost and context use so far", run: usageCommand },
	sessions: { usage: "/sessions", help: "saved sessions of this project", run: sessionsCommand },
	resume: {
		usage: "/resume [n|path]",
		help: "continue a saved session (default: the latest other one)",
		run: resumeCommand,
	},
	clear: { usage: "/clear", help: "start a fresh conversation in a new session file", run: clearCommand },
	exit: { usage: "/exit", help: "leave (also /quit)", run: (_, ctx) => ctx.exit(0) },
};
COMMANDS.quit = COMMANDS.exit as Command;

/** Command names for Tab completion, with the slash. */
export const COMMAND_NAMES: readonly string[] = [...Object.keys(COMMANDS), "later"].map((n) => `/${n}`);

/** Run `/name arg`; an unknown name or a failing command is reported, never thrown. */
export async function runCommand(line: string, ctx: CommandContext): Promise<void> {
	const match = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim());
	const name = match?.[1] ?? "";
	const command = COMMANDS[name];
	if (!command) {
		ctx.print([
			ctx.style.yellow(`unknown command /${name} — /help lists them (// sends text that starts with /)`),
		]);
		return;
	}
	try {
		await command.run((match?.[2] ?? "").trim(), ctx);
	} catch (error) {
		ctx.print([ctx.style.red(`/${name}: ${error instanceof Error ? error.message : String(error)}`)]);
	}
}

function helpLines(s: Palette): string[] {
	const keys = KEY_HELP.map(([key, what]) => `  ${s.bold(key.padEnd(26))} ${what}`);
	const commands = Object.entries(COMMANDS)
		.filter(([name]) => name !== "quit")
		.map(([, c]) => `  ${s.bold(c.usage.padEnd(26))} ${c.help}`);
	return [
		s.bold("Keys"),
		...keys,
		s.bold("Commands"),
		`  ${s.bold("/later <text>".padEnd(26))} queue a follow-up`,
		...commands,
	];
}

function modelCommand(arg: string, ctx: CommandContext): void {
	const { host, style: s } = ctx;
	if (arg === "") {
		const current = host.describeModel().spec;
		const models = host
			.listModels()
			.map((m) => (m === current ? `  ${s.green("●")} ${s.bold(m)}` : `    ${m}`));
		ctx.print([s.bold("Models") + s.dim(" (/model provider/id switches)"), ...models]);
		return;
	}
	host.setModel(arg);
	const now = host.describeModel();
	ctx.print([s.green(`model: ${now.spec}`) + s.dim(" (from the next run)")]);
}

function thinkingCommand(arg: string, ctx: CommandContext): void {
	const { host, style: s } = ctx;
	if (arg === "") {
		ctx.print([
			`thinking: ${s.bold(host.describeModel().thinkingLevel)} ${s.dim(`(one of ${LEVELS.join(", ")})`)}`,
		]);
		return;
	}
	if (!LEVELS.includes(arg as ThinkingLevel))
		throw new Error(`unknown level "${arg}"; use one of ${LEVELS.join(", ")}`);
	host.setThinking(arg as ThinkingLevel);
	ctx.print([s.green(`thinking: ${arg}`) + s.dim(" (from the next model call)")]);
}

function toolsCommand(_: string, ctx: CommandContext): void {
	const { host, style: s } = ctx;
	const tools = host.agent.state.tools;
	if (tools.length === 0) {
		ctx.print([s.dim("no tools")]);
		return;
	}
	const ask = host.autoApprove ? "" : " (asks first)";
	ctx.print([
		s.bold("Tools"),
		...tools.map((t) => {
			const asks = MUTATING_TOOLS.has(t.name) ? ask : "";
			// One row each, however narrow the terminal: the description takes what the name leaves.
			const room = ctx.width - displayWidth(`  ${t.name}${asks} `);
			const description = room > 1 ? ` ${s.dim(truncate(oneLine(t.description, Infinity), room))}` : "";
			return `  ${s.bold(t.name)}${asks && s.yellow(asks)}${description}`;
		}),
	]);
}

function usageCommand(_: string, ctx: CommandContext): void {
	const { totals: t, style: s, host } = ctx;
	const window = host.describeModel().contextWindow;
	const context = window
		? `${formatTokens(t.contextTokens)} of ${formatTokens(window)} (${Math.round((t.contextTokens / window) * 100)}%)`
		: formatTokens(t.contextTokens);
	// No cost row while nothing was spent on a priced model (the scripted demo): `$0.0000` reads as a measurement.
	const cost = spentCost(t.cost, t.priceUnknown, "unknown (no price table for this model)");
	ctx.print([
		s.bold("Usage"),
		`  replies      ${t.replies}`,
		`  input        ${formatTokens(t.input)} (+ ${formatTokens(t.cacheRead)} cache read, ${formatTokens(t.cacheWrite)} cache write)`,
		`  output       ${formatTokens(t.output)}`,
		...(cost === undefined ? [] : [`  cost         ${cost}`]),
		`  context      ${context}`,
	]);
}

async function sessionsCommand(_: string, ctx: CommandContext): Promise<void> {
	const { host, style: s } = ctx;
	if (!host.sessions.enabled) {
		ctx.print([s.dim("sessions are off (--no-session)")]);
		return;
	}
	const list = await host.sessions.list();
	if (list.length === 0) {
		ctx.print([s.dim("no saved sessions yet")]);
		return;
	}
	ctx.print([
		s.bold("Sessions") + s.dim(" (/resume n continues one)"),
		...list.slice(0, 20).map((x, i) => sessionLine(x, i, host, s)),
	]);
}

function sessionLine(session: SessionSummary, index: number, host: InteractiveHost, s: Palette): string {
	const current = session.path === host.sessions.current ? s.green(" (current)") : "";
	const when = new Date(session.modified).toISOString().replace("T", " ").slice(0, 16);
	const count = session.messageCount === undefined ? "" : s.dim(` · ${session.messageCount} messages`);
	return `  ${String(index + 1).padStart(2)}. ${session.title ? oneLine(session.title, 60) : s.dim("(untitled)")}${count} ${s.dim(when)}${current}`;
}

async function resumeCommand(arg: string, ctx: CommandContext): Promise<void> {
	const { host, style: s } = ctx;
	if (host.agent.state.isStreaming)
		throw new Error("wait for the run to end (or Esc) before resuming another session");
	const list = await host.sessions.list();
	const others = list.filter((x) => x.path !== host.sessions.current);
	const n = Number(arg);
	const chosen =
		arg === "" ? others[0] : Number.isInteger(n) && n > 0 ? list[n - 1] : { path: arg, modified: 0 };
	if (!chosen)
		throw new Error(
			arg === "" ? "no other saved session to resume" : `no session ${arg}; /sessions lists them`,
		);
	// Loaded first: a file that cannot be read is reported alone, not after a "resuming" that did not happen.
	const warnings = host.sessions.load(chosen.path);
	ctx.print([s.dim(`— resuming ${chosen.path} —`)]);
	for (const warning of warnings) ctx.print([s.yellow(`warning: ${warning}`)]);
	ctx.showLoaded();
}

async function clearCommand(_: string, ctx: CommandContext): Promise<void> {
	await ctx.host.sessions.clear();
	ctx.totals.reset();
	ctx.print([ctx.style.dim("— new conversation —"), ""]);
}
