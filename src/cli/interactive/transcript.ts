/**
 * Agent events to screen lines. Finished lines (rendered Markdown, one line per finished tool call, notices)
 * are handed to the sink once, for the scrollback; what is still moving (the unfinished text line, the
 * thinking preview, running tools with their spinner and elapsed time) is exposed as `liveRows()`.
 */
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../core/messages.js";
import type { RetryInfo } from "../../core/model.js";
import type { AgentEvent } from "../../protocol/events.js";
import type { Palette } from "./ansi.js";
import { MarkdownStream } from "./markdown.js";
import {
	finishedCallLine,
	formatElapsed,
	oneLine,
	savedOutcome,
	summarizeArgs,
	toolOutcome,
} from "./tool-lines.js";

/** Where the view sends finished lines, and how it asks for a redraw of the live region. */
export interface TranscriptSink {
	print(lines: readonly string[]): void;
	changed(): void;
}

interface RunningTool {
	name: string;
	label: string;
	started: number;
	progress?: string;
}

interface ThinkingBlock {
	text: string;
	started: number;
	/** Characters of `text` already printed (expanded mode prints finished lines as they come). */
	printed: number;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The user message kinds the view labels when they enter the transcript. */
export type UserMessageKind = "prompt" | "steer" | "followUp";

/** Renders one conversation's events; knows nothing about keys or the terminal. */
export class TranscriptView {
	private markdown: MarkdownStream | undefined;
	private thinking: ThinkingBlock | undefined;
	private lastThinking = "";
	private preparing: string | undefined;
	private readonly tools = new Map<string, RunningTool>();
	private runStarted: number | undefined;
	/**
	 * When the run now paused for approval (rule T15) started: the batch it resumes with, once answered, is the
	 * same run to the person who sent the prompt, so its time counts from there.
	 */
	private pausedRunStarted: number | undefined;
	private readonly kinds = new WeakMap<object, UserMessageKind>();
	/** Expanded: thinking streams in full (dimmed); collapsed: one summary line per block. */
	showThinking = false;

	constructor(
		private readonly style: Palette,
		private readonly sink: TranscriptSink,
		private readonly now: () => number = Date.now,
	) {}

	/** True between `agent_start` and `agent_end`. */
	get running(): boolean {
		return this.runStarted !== undefined;
	}

	/** Remember how a message the user sent should be labelled when the loop injects it. */
	labelMessage(message: AgentMessage, kind: UserMessageKind): void {
		this.kinds.set(message as object, kind);
	}

	/** Fold one agent event into the view. */
	onEvent(event: AgentEvent): void {
		switch (event.type) {
			case "agent_start":
				this.runStarted = this.pausedRunStarted ?? this.now();
				this.pausedRunStarted = undefined;
				break;
			case "message_start":
				if (isRole(event.message, "user")) this.sink.print(this.userLines(event.message));
				break;
			case "message_update":
				this.onStreamEvent(event.assistantMessageEvent);
				break;
			case "message_end":
				if (isRole(event.message, "assistant")) this.onReplyEnd(event.message as AssistantMessage);
				break;
			case "tool_execution_start":
				this.preparing = undefined;
				this.tools.set(event.toolCallId, {
					name: event.toolName,
					label: event.intent ? oneLine(event.intent, 80) : summarizeArgs(event.args),
					started: this.now(),
				});
				break;
			case "tool_execution_update":
				this.onToolProgress(event.toolCallId, event.partialResult.content);
				break;
			case "tool_execution_end":
				this.onToolEnd(event);
				break;
			case "agent_end":
				this.onRunEnd(event);
				break;
		}
		this.sink.changed();
	}

	/** A provider retry (rule A8): shown plainly with the wait. */
	retry(info: RetryInfo): void {
		const wait = formatElapsed(info.delayMs);
		this.sink.print([
			this.style.yellow(
				`↻ retry ${info.attempt} in ${wait} (${info.errorKind}: ${oneLine(info.errorMessage, 80)})`,
			),
		]);
		this.sink.changed();
	}

	/** Switch thinking between collapsed and expanded; expanding prints the last block in full. */
	toggleThinking(): void {
		this.showThinking = !this.showThinking;
		if (this.showThinking && this.lastThinking !== "" && this.thinking === undefined)
			this.sink.print(this.thinkingLines(this.lastThinking));
		this.sink.print([
			this.style.dim(`thinking ${this.showThinking ? "expanded" : "collapsed"} (Ctrl+T toggles)`),
		]);
		this.sink.changed();
	}

	/** The moving part: unfinished text, thinking preview, running tools, a spinner while the model works. */
	liveRows(): string[] {
		const s = this.style;
		const rows: string[] = [];
		const frame = SPINNER[Math.floor(this.now() / 100) % SPINNER.length] ?? "·";
		const partial = this.markdown?.partial() ?? "";
		if (partial !== "") rows.push(partial);
		if (this.thinking) {
			const tail = this.thinking.text.slice(this.thinking.printed);
			const preview = this.showThinking ? tail : oneLine(this.thinking.text.split("\n").pop() ?? "", 60);
			const since = formatElapsed(this.now() - this.thinking.started);
			rows.push(s.dim(`${this.showThinking ? "" : `✻ thinking ${since} · `}${preview}`));
		}
		for (const tool of this.tools.values()) {
			const elapsed = formatElapsed(this.now() - tool.started);
			const progress = tool.progress ? s.dim(` · ${tool.progress}`) : "";
			rows.push(`${s.cyan(frame)} ${s.bold(tool.name)} ${tool.label} ${s.dim(elapsed)}${progress}`);
		}
		if (this.runStarted !== undefined && this.tools.size === 0 && this.thinking === undefined) {
			const what = this.preparing ? `preparing ${this.preparing}` : "working";
			rows.push(
				s.dim(`${frame} ${what} · ${formatElapsed(this.now() - this.runStarted)} · Esc or Ctrl+C aborts`),
			);
		}
		return rows;
	}

	/** Print a saved conversation compactly (on start with `--resume`, and after `/resume`). */
	printHistory(messages: readonly AgentMessage[]): void {
		const results = new Map<string, ToolResultMessage>();
		for (const m of messages)
			if (isRole(m, "toolResult")) results.set((m as ToolResultMessage).toolCallId, m as ToolResultMessage);
		for (const m of messages) {
			if (isRole(m, "user")) this.sink.print(this.userLines(m));
			else if (isRole(m, "assistant")) this.printSavedReply(m as AssistantMessage, results);
		}
		this.sink.changed();
	}

	private printSavedReply(reply: AssistantMessage, results: Map<string, ToolResultMessage>): void {
		for (const block of reply.content) {
			if (block.type === "text") {
				const md = new MarkdownStream(this.style);
				this.sink.print([...md.push(block.text), ...md.end()]);
			} else if (block.type === "thinking" && block.thinking.trim() !== "") {
				const lines = block.thinking.split("\n").length;
				this.sink.print([this.style.dim(`✻ thought · ${lines} line${lines === 1 ? "" : "s"}`)]);
			} else if (block.type === "toolCall") {
				const result = results.get(block.id);
				const outcome = savedOutcome(result);
				const line = finishedCallLine(
					{
						name: block.name,
						label: summarizeArgs(block.arguments),
						outcome,
						content: result?.content ?? [],
					},
					this.style,
				);
				this.sink.print([line]);
			}
		}
		this.printReplyError(reply);
	}

	private onStreamEvent(
		event: Extract<AgentEvent, { type: "message_update" }>["assistantMessageEvent"],
	): void {
		switch (event.type) {
			case "text_start":
				this.markdown = new MarkdownStream(this.style);
				break;
			case "text_delta":
				if (this.markdown) this.sink.print(this.markdown.push(event.delta));
				break;
			case "text_end":
				if (this.markdown) this.sink.print(this.markdown.end());
				this.markdown = undefined;
				break;
			case "thinking_start":
				this.thinking = { text: "", started: this.now(), printed: 0 };
				break;
			case "thinking_delta":
				if (this.thinking) this.onThinkingDelta(this.thinking, event.delta);
				break;
			case "thinking_end":
				if (this.thinking) this.onThinkingEnd(this.thinking);
				this.thinking = undefined;
				break;
			case "toolcall_start":
				this.preparing = event.name;
				break;
		}
	}

	private onThinkingDelta(block: ThinkingBlock, delta: string): void {
		block.text += delta;
		if (!this.showThinking) return;
		const end = block.text.lastIndexOf("\n");
		if (end < block.printed) return;
		this.sink.print(
			block.text
				.slice(block.printed, end)
				.split("\n")
				.map((l) => this.style.dim(l)),
		);
		block.printed = end + 1;
	}

	private onThinkingEnd(block: ThinkingBlock): void {
		this.lastThinking = block.text;
		if (this.showThinking) {
			const rest = block.text.slice(block.printed);
			if (rest.trim() !== "") this.sink.print(rest.split("\n").map((l) => this.style.dim(l)));
			return;
		}
		const lines = block.text.split("\n").filter((l) => l.trim() !== "").length;
		const took = formatElapsed(this.now() - block.started);
		this.sink.print([
			this.style.dim(
				`✻ thought for ${took} · ${lines} line${lines === 1 ? "" : "s"} · Ctrl+T shows thinking`,
			),
		]);
	}

	private onReplyEnd(reply: AssistantMessage): void {
		// A reply cut short mid-line still shows what it had said.
		if (this.markdown) this.sink.print(this.markdown.end());
		this.markdown = undefined;
		if (this.thinking) this.onThinkingEnd(this.thinking);
		this.thinking = undefined;
		this.preparing = undefined;
		this.printReplyError(reply);
	}

	private printReplyError(reply: AssistantMessage): void {
		const s = this.style;
		if (reply.stopReason === "aborted")
			this.sink.print([s.yellow(`⏹ reply aborted: ${reply.errorMessage ?? "aborted"}`)]);
		if (reply.stopReason === "error") {
			const kind = reply.errorKind ? ` (${reply.errorKind})` : "";
			this.sink.print([
				s.red(`✗ model error${kind}: ${oneLine(reply.errorMessage ?? "unknown error", 300)}`),
			]);
		}
	}

	private onToolProgress(id: string, content: ToolResultMessage["content"]): void {
		const tool = this.tools.get(id);
		if (!tool) return;
		const text = content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
		const last = text
			.split("\n")
			.filter((l) => l.trim() !== "")
			.pop();
		if (last !== undefined) tool.progress = oneLine(last, 60);
	}

	private onToolEnd(event: Extract<AgentEvent, { type: "tool_execution_end" }>): void {
		const tool = this.tools.get(event.toolCallId);
		this.tools.delete(event.toolCallId);
		const line = finishedCallLine(
			{
				name: event.toolName,
				label: tool?.label ?? "",
				outcome: toolOutcome(event.status, event.result.details),
				elapsedMs: tool ? this.now() - tool.started : 0,
				content: event.result.content,
			},
			this.style,
		);
		this.sink.print([line]);
	}

	private onRunEnd(event: Extract<AgentEvent, { type: "agent_end" }>): void {
		const s = this.style;
		const started = this.runStarted ?? this.now();
		const took = formatElapsed(this.now() - started);
		this.runStarted = undefined;
		this.tools.clear();
		const outcome = event.outcome;
		if (outcome.type === "completed") this.sink.print([s.dim(`— done in ${took}`), ""]);
		else if (outcome.type === "aborted")
			this.sink.print([s.yellow(`⏹ run aborted after ${took}: ${outcome.reason}`), ""]);
		else if (outcome.type === "deadline")
			this.sink.print([s.yellow(`⏹ run stopped: deadline exceeded after ${took}`), ""]);
		// The question is on screen, and answering it resumes the run: no line for the pause.
		else if (outcome.type === "awaiting_approval") this.pausedRunStarted = started;
		// A reply that failed was said already ("✗ model error …"): the run's end does not say it again.
		else if (lastReply(event.messages)?.stopReason === "error")
			this.sink.print([s.red(`✗ run failed after ${took}`)]);
		else this.sink.print([s.red(`✗ run failed after ${took}: ${oneLine(outcome.error, 300)}`)]);
	}

	private userLines(message: AgentMessage): string[] {
		const s = this.style;
		const kind = this.kinds.get(message as object) ?? "prompt";
		const content = (message as { content?: unknown }).content;
		const text =
			typeof content === "string"
				? content
				: Array.isArray(content)
					? content.map((b) => (b as { text?: string }).text ?? "[image]").join(" ")
					: "";
		const label =
			kind === "steer" ? s.magenta(" (steering)") : kind === "followUp" ? s.magenta(" (follow-up)") : "";
		const [first = "", ...rest] = text.split("\n");
		return ["", `${s.bold(s.blue("›"))} ${s.bold(first)}${label}`, ...rest.map((l) => `  ${s.bold(l)}`)];
	}

	private thinkingLines(text: string): string[] {
		return text.split("\n").map((l) => this.style.dim(l));
	}
}

/** The run's last message, when it is a reply. */
function lastReply(messages: readonly AgentMessage[]): AssistantMessage | undefined {
	const last = messages[messages.length - 1];
	return last && isRole(last, "assistant") ? (last as AssistantMessage) : undefined;
}

function isRole(message: AgentMessage, role: string): boolean {
	return (message as { role?: unknown }).role === role;
}
