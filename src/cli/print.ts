/**
 * Print and JSON modes: one run, then exit. Print writes the final answer to stdout (or, for the scripted
 * demo and the TTY fallback, a readable trace of the whole run); JSON writes every AgentEvent as one JSON
 * line. A run that does not complete exits non-zero with one line on stderr saying why.
 */
import type { AgentEvent } from "../protocol/events.js";
import type { CliApp } from "./app.js";
import { assistantText, EXIT, exitCodeFor, explainEnd, lastAssistant } from "./outcome.js";
import { terminalText } from "./terminal-text.js";
import { traceRenderer } from "./trace.js";

/** Where a mode writes. */
export interface Output {
	/** Written as given: JSON lines, the help, an answer piped to a file stay byte-exact. */
	stdout: (text: string) => void;
	/** Diagnostics; made terminal-safe by {@link outputTo}, as they quote servers, providers, files and flags. */
	stderr: (text: string) => void;
	/** stdout is a terminal (colour allowed). */
	color: boolean;
}

/**
 * The {@link Output} on a process's streams. Every stderr write goes through {@link terminalText}: a warning or
 * error quotes text from MCP servers, providers, tools and files, whose escape sequences would otherwise be
 * commands to the user's terminal (clear the screen, set its title, write the clipboard). stdout is left as
 * given; text on it that the command did not write goes through {@link shownOnStdout}.
 */
export function outputTo(streams: {
	stdout: NodeJS.WritableStream & { isTTY?: boolean };
	stderr: NodeJS.WritableStream;
}): Output {
	return {
		stdout: (text) => void streams.stdout.write(text),
		stderr: (text) => void streams.stderr.write(terminalText(text)),
		color: streams.stdout.isTTY === true,
	};
}

/**
 * Text the command did not write (the model's answer), as it goes to stdout: terminal-safe when stdout is a
 * terminal, byte-exact when it is a pipe or a file (an answer saved to a file is the answer).
 */
export function shownOnStdout(out: Output, text: string): string {
	return out.color ? terminalText(text) : text;
}

/** How the run's events are shown. */
export type PrintStyle = "answer" | "trace" | "json";

type AgentEnd = Extract<AgentEvent, { type: "agent_end" }>;

/** What one print/JSON invocation does: resume a session file first, then run the prompt. */
export interface OnceRequest {
	/** A session file to load first; a batch it left without results runs before the prompt (rule L6). */
	resume?: string | undefined;
	prompt?: string | undefined;
}

/** Run the request and report it in `style`. Resolves to the exit code. */
export async function runOnce(
	app: CliApp,
	request: OnceRequest,
	style: PrintStyle,
	out: Output,
): Promise<number> {
	const { agent } = app;
	const ends: AgentEnd[] = [];
	const trace = style === "trace" ? traceRenderer({ write: out.stdout, color: out.color }) : undefined;
	const unsubscribe = agent.subscribe((event) => {
		if (event.type === "agent_end") ends.push(event);
		if (style === "json") out.stdout(`${JSON.stringify(event)}\n`);
		else trace?.(event);
	});
	try {
		if (request.resume !== undefined) {
			for (const warning of await app.sessions.resume(request.resume)) out.stderr(`capstan: ${warning}\n`);
			await app.idle(); // a resumed batch may pause for approval (rule T15); the answers resume it
		}
		const resumed = ends[ends.length - 1];
		if (resumed && resumed.outcome.type !== "completed") return report(resumed, style, out);
		if (request.prompt !== undefined) {
			await agent.prompt(request.prompt);
			await app.idle();
		} else if (!resumed) {
			out.stderr("capstan: no prompt: pass one as an argument or on stdin\n");
			return EXIT.usage;
		}
	} finally {
		unsubscribe();
	}
	const end = ends[ends.length - 1];
	if (style === "trace" && app.sessions.current)
		out.stdout(terminalText(`session: ${app.sessions.current}\n`));
	return end ? report(end, style, out) : EXIT.runError;
}

function report(end: AgentEnd, style: PrintStyle, out: Output): number {
	if (style === "answer") {
		const text = assistantText(lastAssistant(end.messages));
		if (text !== "") out.stdout(shownOnStdout(out, text.endsWith("\n") ? text : `${text}\n`));
	}
	const reason = explainEnd(end);
	if (reason !== undefined) out.stderr(`capstan: ${reason}\n`);
	return exitCodeFor(end);
}
