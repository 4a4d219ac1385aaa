/**
 * A readable, line-oriented trace of a run for terminals and logs: streamed text and thinking as they
 * arrive, each tool call with a one-line summary, how each call ended (ok / error / blocked / skipped /
 * interrupted / aborted), every injected user message, and a usage line at the end. Used by the scripted
 * demo and by the fallback when no interactive mode is available. Colour (dimmed thinking) only on a TTY.
 */
import type { AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "../core/messages.js";
import type { AgentEvent } from "../protocol/events.js";
import type { ToolResult } from "../tools/types.js";
import { spentCost } from "./interactive/status-line.js";
import { terminalText } from "./terminal-text.js";

/** Where the trace goes and how it looks. */
export interface TraceOptions {
	write: (text: string) => void;
	/** ANSI dim for thinking and statuses (TTY only). */
	color: boolean;
}

const dim = (on: boolean, text: string): string => (on ? `\x1b[2m${text}\x1b[22m` : text);

/** One line about a tool call's arguments, e.g. `README.md` or `npm test`. */
export function summarizeArgs(args: Record<string, unknown>): string {
	return describeArgs(args, (text) => oneLine(text, 70));
}

/**
 * What a call's arguments are about: its telling field (`path`, `command`, `pattern`, `query`) with the size of
 * any `content`, else the arguments as JSON; `shown` shapes the text (one cut line for a summary, the whole
 * text for an approval question).
 */
export function describeArgs(args: Record<string, unknown>, shown: (text: string) => string): string {
	for (const key of ["path", "command", "pattern", "query"]) {
		const value = args[key];
		if (typeof value === "string") {
			const extra = typeof args.content === "string" ? ` (${byteLength(args.content)} bytes)` : "";
			return `${shown(value)}${extra}`;
		}
	}
	const json = JSON.stringify(args);
	return json === "{}" ? "" : shown(json);
}

/** One line about a tool's result: the status, and the first line of its text. */
export function summarizeResult(status: string, result: ToolResult): string {
	const details = result.details as { reason?: unknown; synthetic?: unknown } | undefined;
	if (details?.synthetic === true) {
		// The placeholder's text is written for the model; the person needs only what happened.
		if (details.reason === "interrupted")
			return status === "skipped"
				? "skipped (a steering message arrived first)"
				: "interrupted by the steering message";
		return `${status} (${String(details.reason)})`;
	}
	const text = result.content.find((block) => block.type === "text") as { text: string } | undefined;
	const first = text ? oneLine(text.text, 80) : "";
	return first === "" ? status : `${status} · ${first}`;
}

/** Returns an event listener that writes the trace. */
export function traceRenderer(traceOptions: TraceOptions): (event: AgentEvent) => void {
	const { color } = traceOptions;
	// Model text, tool output and names reach a terminal: their control characters are shown, not obeyed.
	const write = (text: string): void => traceOptions.write(terminalText(text));
	const options: TraceOptions = { write, color };
	let open: "text" | "thinking" | undefined;
	const close = (): void => {
		if (open !== undefined) write("\n");
		open = undefined;
	};
	return (event) => {
		switch (event.type) {
			case "message_update": {
				const update = event.assistantMessageEvent;
				if (update.type === "text_start" || update.type === "thinking_start") {
					close();
					open = update.type === "text_start" ? "text" : "thinking";
					write(open === "text" ? "assistant: " : dim(color, "thinking: "));
				} else if (update.type === "text_delta") write(update.delta);
				else if (update.type === "thinking_delta") write(dim(color, update.delta));
				else if (update.type === "text_end" || update.type === "thinking_end") close();
				return;
			}
			case "message_end":
				close();
				writeMessageEnd(event.message, options);
				return;
			case "tool_execution_start":
				write(`→ ${`${event.toolName} ${summarizeArgs(event.args)}`.trim()}\n`);
				return;
			case "tool_execution_end":
				write(
					`  ${marker(event.status)} ${event.toolName}: ${summarizeResult(event.status, event.result)}\n`,
				);
				return;
			case "agent_end":
				close();
				write(dim(color, `${usageLine(event.messages)}\n`));
				return;
		}
	};
}

function writeMessageEnd(message: AgentMessage, options: TraceOptions): void {
	const role = (message as { role?: unknown }).role;
	if (role === "user") options.write(`› ${oneLine(userText(message as UserMessage), 200)}\n`);
	else if (role === "assistant") {
		const reply = message as AssistantMessage;
		if (reply.stopReason === "error" || reply.stopReason === "aborted")
			options.write(`  ✗ ${reply.stopReason}: ${reply.errorMessage ?? "no message"}\n`);
	} else if (role === "toolResult") {
		// Results are reported by tool_execution_end; synthetic ones (never executed) only here.
		const result = message as ToolResultMessage;
		const details = result.details as { synthetic?: unknown; reason?: unknown } | undefined;
		if (details?.synthetic === true && details.reason !== "interrupted")
			options.write(`  · ${result.toolName}: not run (${String(details.reason)})\n`);
	}
}

function marker(status: string): string {
	if (status === "ok") return "✓";
	if (status === "skipped" || status === "aborted" || status === "interrupted") return "↷";
	return "✗";
}

/**
 * `usage: 5 model calls · 1,234 input · 567 output tokens · $0.0012`. The cost reads as the interactive status
 * line's ({@link spentCost}: `<$0.0001` for a sum too small for four decimals); `cost unknown` when the model has
 * no price table (rule M5: its zero cost is no price, as `/usage` says `unknown`); left out when nothing was
 * spent on a model that has prices (the scripted demo), rather than a `$0.0000` that reads like a measurement.
 */
export function usageLine(messages: readonly AgentMessage[]): string {
	let calls = 0;
	let input = 0;
	let output = 0;
	let cacheRead = 0;
	let cost = 0;
	let priceUnknown = false;
	for (const message of messages) {
		const reply = message as AssistantMessage;
		if (reply.role !== "assistant") continue;
		calls++;
		input += reply.usage.input;
		output += reply.usage.output;
		cacheRead += reply.usage.cacheRead;
		cost += reply.usage.cost.total;
		if (reply.usage.priceUnknown) priceUnknown = true;
	}
	const cached = cacheRead > 0 ? ` (+${cacheRead.toLocaleString("en-US")} cached)` : "";
	const parts = [
		`usage: ${calls} model call${calls === 1 ? "" : "s"}`,
		`${input.toLocaleString("en-US")} input${cached}`,
		`${output.toLocaleString("en-US")} output tokens`,
	];
	const shown = spentCost(cost, priceUnknown, "cost unknown");
	if (shown !== undefined) parts.push(shown);
	return parts.join(" · ");
}

function userText(message: UserMessage): string {
	if (typeof message.content === "string") return message.content;
	return message.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join(" ");
}

function oneLine(text: string, max: number): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function byteLength(text: string): number {
	return new TextEncoder().encode(text).length;
}
