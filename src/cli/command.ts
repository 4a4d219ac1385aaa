/**
 * The `capstan` command as a function of its process (main.ts is the bin entry that calls it). Decides the mode — interactive on a terminal, print/JSON for one
 * prompt, RPC for programs — assembles the agent (`CliApp`) and maps how the run ended to an exit code.
 * Flags are documented in `--help` (args.ts), settings in config.ts, the RPC protocol in docs/rpc.md.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CliApp } from "./app.js";
import { type CliArgs, type CliMode, HELP, parseCliArgs, UsageError } from "./args.js";
import { ConfigError, loadConfig } from "./config.js";
import { runInteractive } from "./interactive/index.js";
import { ModelError } from "./models.js";
import { EXIT } from "./outcome.js";
import { type Output, outputTo, type PrintStyle, runOnce } from "./print.js";
import { runRpc } from "./rpc.js";
import { checkSessionFile, latestSessionPath, SessionError } from "./session.js";
import { SignalHandler } from "./signals.js";
import { terminalText } from "./terminal-text.js";

/** The process the command runs in: its streams, environment and directory (a test may pass its own). */
export interface CliProcess {
	argv: readonly string[];
	env: NodeJS.ProcessEnv;
	cwd: string;
	stdin: NodeJS.ReadableStream & { isTTY?: boolean };
	stdout: NodeJS.WritableStream & { isTTY?: boolean };
	stderr: NodeJS.WritableStream;
}

/** capstan's version, from the package.json next to `src/` or `dist/`. */
export function packageVersion(): string {
	try {
		const path = fileURLToPath(new URL("../../package.json", import.meta.url));
		return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version ?? "0.0.0";
	} catch {
		return "0.0.0";
	}
}

/** Run the command; resolves to its exit code. Never throws for bad input: it says what is wrong. */
export async function main(proc: CliProcess): Promise<number> {
	// Every warning and error goes to stderr through terminalText (outputTo): they quote what servers, providers
	// and files said.
	const out = outputTo(proc);
	let app: CliApp;
	let args: CliArgs;
	try {
		args = parseCliArgs(proc.argv);
		if (args.help || args.version) {
			out.stdout(args.help ? HELP : `capstan ${packageVersion()}\n`);
			return EXIT.ok;
		}
		const loaded = loadConfig(proc.cwd, proc.env, args.mcp);
		for (const warning of loaded.warnings) out.stderr(`capstan: ${warning}\n`);
		// As `--no-session` with them is refused: the session would be read, then silently not written.
		if (
			(args.resume !== undefined || args.continue) &&
			args.session === undefined &&
			loaded.config.session === false
		)
			throw new UsageError(
				`--${args.continue ? "continue" : "resume"} goes on in a session file, but the settings turn sessions off ("session": false)`,
			);
		if (args.apiKey !== undefined)
			out.stderr(
				"capstan: --api-key is visible to other users in the process list; prefer the environment\n",
			);
		// A prompt given as words on a terminal is one run with a readable trace; without one, the TTY mode.
		const mode: CliMode =
			args.mode ?? (terminal(proc) && args.prompt === undefined ? "interactive" : "print");
		app = await CliApp.create({
			args,
			config: loaded.config,
			cwd: proc.cwd,
			version: packageVersion(),
			demoReporter: {
				steered: (text) =>
					mode !== "json" && out.stdout(terminalText(`↯ steering (queued by the demo): ${text}\n`)),
				followUpQueued: (text) =>
					mode !== "json" && out.stdout(terminalText(`⋯ follow-up queued: ${text}\n`)),
			},
			warn: (text) => out.stderr(`capstan: ${text}\n`),
			projectServer: loaded.projectServer,
		});
		// The ways out that cannot wait for close() — the bin exits at once when its output is gone (a closed pipe),
		// a second signal forces the exit — still end the stdio MCP servers and remove the demo's sandbox.
		const closeOnExit = (): void => app.closeNow();
		process.once("exit", closeOnExit);
		// Installed until the servers are closed: a signal while they close forces the exit (ending them too),
		// where the default action would end this process alone.
		const signals = new SignalHandler(app.agent);
		const offForcedExit = signals.onForcedExit(closeOnExit);
		try {
			// Inside the try: a --continue that finds no session ends the command like any other way out, with
			// the app closed (its stdio MCP servers stopped, the demo's sandbox removed).
			// The demo's own session folder is new in every demo: its path in "no session to continue in" misleads.
			if (
				args.continue &&
				app.scripted &&
				args.sessionDir === undefined &&
				loaded.config.sessionDir === undefined
			)
				throw new SessionError(
					"the scripted demo starts in a fresh temporary directory, so --continue has no session there: with an API key or --base-url (and no --demo), it goes on with this directory's latest session",
				);
			const resume =
				(args.resume && resolve(proc.cwd, args.resume)) ??
				(args.continue ? latestSessionPath(app.sessions) : undefined);
			if (args.resume !== undefined && resume !== undefined) checkSessionFile(resume, app.sessions.enabled);
			return await runMode(app, mode, args, resume, proc, out, signals);
		} finally {
			await app.close();
			offForcedExit();
			signals.dispose();
			process.off("exit", closeOnExit);
		}
	} catch (error) {
		if (error instanceof UsageError) {
			out.stderr(`capstan: ${error.message}\nRun capstan --help for the flags.\n`);
			return EXIT.usage;
		}
		if (error instanceof ConfigError || error instanceof ModelError || error instanceof SessionError) {
			out.stderr(`capstan: ${error.message}\n`);
			return EXIT.usage;
		}
		throw error;
	}
}

async function runMode(
	app: CliApp,
	mode: CliMode,
	args: CliArgs,
	resume: string | undefined,
	proc: CliProcess,
	out: Output,
	signals: SignalHandler,
): Promise<number> {
	if (mode === "rpc") return await runRpc(app, proc.stdin, out.stdout, { resume, signals });
	if (mode === "interactive") {
		// Loaded here, so a file that cannot be read ends the command before the TTY mode starts; a batch it
		// left without results runs in the TTY mode, where a mutating call can be asked about (rule T15).
		if (resume !== undefined)
			for (const warning of app.sessions.load(resume)) out.stderr(`capstan: ${warning}\n`);
		return await runInteractive(app, { signals });
	}
	return await runPrint(app, mode, args, resume, proc, out);
}

async function runPrint(
	app: CliApp,
	mode: CliMode,
	args: CliArgs,
	resume: string | undefined,
	proc: CliProcess,
	out: Output,
): Promise<number> {
	// Words on a terminal without -p get a readable trace; -p prints only the answer.
	const traced = app.scripted !== undefined || (args.mode === undefined && terminal(proc));
	const style: PrintStyle = mode === "json" ? "json" : traced ? "trace" : "answer";
	if (app.scripted) {
		announceDemo(app, style, out);
		app.scripted.autoplay();
		const prompt = args.prompt ?? (resume === undefined ? app.scripted.prompt : undefined);
		return runOnce(app, { resume, prompt }, style, out);
	}
	const prompt = args.prompt ?? (proc.stdin.isTTY ? undefined : await readAll(proc.stdin));
	return runOnce(app, { resume, prompt: prompt?.trim() || undefined }, style, out);
}

function announceDemo(app: CliApp, style: PrintStyle, out: Output): void {
	const demo = app.scripted;
	if (!demo) return;
	const lines = [
		`capstan ${app.version} · ${demo.notice}`,
		`sandbox: ${demo.sandbox} (a fresh temporary directory; your project is not touched)`,
		...(app.sessions.current ? [`session: ${app.sessions.current}`] : []),
	];
	// JSON mode keeps stdout pure JSON lines.
	const write = style === "json" ? out.stderr : out.stdout;
	write(terminalText(`${lines.join("\n")}\n`));
}

function terminal(proc: CliProcess): boolean {
	return proc.stdin.isTTY === true && proc.stdout.isTTY === true;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
	return Buffer.concat(chunks).toString("utf8");
}
