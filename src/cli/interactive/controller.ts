/**
 * The interactive session: keys in, agent calls out, events rendered. The input line stays live during a
 * run: Enter steers, Alt+Enter or `/later` queues a follow-up, Esc or Ctrl+C aborts, Ctrl+C twice exits.
 */
import { type AgentMessage, userMessage } from "../../core/messages.js";
import type { RetryInfo } from "../../core/model.js";
import { findDanglingBatch } from "../../loop/pairing.js";
import type { AgentEvent } from "../../protocol/events.js";
import type { ApprovalRequest, InteractiveHost } from "../host.js";
import { describeArgs } from "../trace.js";
import type { Palette } from "./ansi.js";
import { ApprovalQueue } from "./approvals.js";
import { COMMAND_NAMES, runCommand } from "./commands.js";
import type { KeyAction } from "./keys.js";
import { LineEditor } from "./line-editor.js";
import type { LiveScreen, ScreenOutput } from "./screen.js";
import { statusLine, UsageTotals } from "./status-line.js";
import { displayWidth, truncate, truncateStyled, wrapRows } from "./text-width.js";
import { oneLine } from "./tool-lines.js";
import { TranscriptView } from "./transcript.js";

/** Two Ctrl+C within this window exit (the first one aborts a run, or clears the input line). */
export const DOUBLE_CTRL_C_MS = 1500;
/**
 * A letter typed within this long of the previous one is the rest of a word, not an answer to a question that
 * appeared meanwhile: typing "add a test" during a run must not answer "a" (always) to "Run shell: …?". And a
 * question answers only a key pressed this long after it appeared (and after any key it ignored): a doubled or
 * held `y` that answered one question must not answer the next one, which nobody has read yet.
 */
export const TYPING_GAP_MS = 300;
const FRAME_MS = 16;
/** At most this many rows show what a file change to approve would write. */
const PREVIEW_ROWS = 16;
/** The notice Esc and Ctrl+C show while a run winds down. */
const ABORTING = "aborting…";
/** The notice after a Ctrl+C: the next one within {@link DOUBLE_CTRL_C_MS} exits. */
const PRESS_AGAIN = "press Ctrl+C again to exit";
const TICK_MS = 100;

/**
 * Host capabilities the interactive mode uses when a host offers them; `InteractiveHost` does not declare
 * them (yet), so they are optional and looked up at run time.
 */
export interface InteractiveHostExtras {
	/** Tell `listener` of every provider retry (rule A8: `StreamOptions.onRetry`); returns the unsubscribe. */
	onRetry?(listener: (info: RetryInfo) => void): () => void;
	/** Take the command's warnings while the TTY mode runs (stderr would write into the live region). */
	onWarning?(listener: (text: string) => void): () => void;
}

/** Clock and timers, injectable so tests need no real waiting. */
export interface ControllerClock {
	now(): number;
}

/** Runs one interactive session against a host; resolves `done` with the exit code. */
export class InteractiveController {
	readonly view: TranscriptView;
	readonly totals = new UsageTotals();
	readonly done: Promise<number>;
	private readonly editor = new LineEditor();
	private readonly approvals: ApprovalQueue;
	private pasting = false;
	/** The last key was a carriage return inside a paste. */
	private pastedReturn = false;
	private lastInterrupt = Number.NEGATIVE_INFINITY;
	/** When the user last typed a character into the input line (Enter ends the typing). */
	private lastTyped = Number.NEGATIVE_INFINITY;
	/** The question on screen, and since when it has had no key it ignored (it appeared, or one came too soon). */
	private asked: { request: ApprovalRequest | undefined; quietSince: number } = {
		request: undefined,
		quietSince: Number.NEGATIVE_INFINITY,
	};
	private notice: { text: string; until: number } | undefined;
	private noticeTimer: ReturnType<typeof setTimeout> | undefined;
	private frame: ReturnType<typeof setTimeout> | undefined;
	private ticker: ReturnType<typeof setInterval> | undefined;
	private finish!: (code: number) => void;
	private exiting = false;

	constructor(
		private readonly host: InteractiveHost,
		private readonly screen: LiveScreen,
		private readonly out: ScreenOutput,
		private readonly style: Palette,
		private readonly clock: ControllerClock = { now: Date.now },
	) {
		this.done = new Promise((resolve) => (this.finish = resolve));
		this.view = new TranscriptView(
			style,
			{ print: (l) => this.screen.print(l), changed: () => this.schedule() },
			() => this.clock.now(),
		);
		this.approvals = new ApprovalQueue(() => {
			this.noteQuestion();
			this.schedule();
		});
		this.totals.reset(host.agent.state.messages);
	}

	/**
	 * Show the banner and any loaded history; install the approver; then run a batch the loaded session left
	 * without results. Returns the unsubscribe function.
	 */
	start(): () => void {
		const { host, style: s } = this;
		const model = host.describeModel();
		this.screen.print([`${s.bold("capstan")} ${s.dim(`${host.version} · ${model.spec} · ${host.cwd}`)}`]);
		if (host.scripted) {
			this.screen.print([s.yellow(host.scripted.notice), s.dim(`demo sandbox: ${host.scripted.sandbox}`)]);
			// A fresh demo offers its prompt; a resumed one goes on from its history instead.
			if (host.agent.state.messages.length === 0) this.editor.set(host.scripted.prompt);
		}
		const session = host.sessions.current;
		if (session) this.screen.print([s.dim(`session: ${session}`)]);
		this.screen.print([
			s.dim("Enter sends · Alt+Enter or /later queues a follow-up · Esc or Ctrl+C aborts · /help"),
			"",
		]);
		if (host.agent.state.messages.length > 0) this.showHistory();
		if (!host.autoApprove) host.setApprover(this.approvals.approve);
		const unsubscribe = host.agent.subscribe((event) => this.onEvent(event));
		const extras = host as InteractiveHost & InteractiveHostExtras;
		const offRetry = extras.onRetry?.((info) => this.view.retry(info));
		const offWarning = extras.onWarning?.((text) => {
			this.screen.print([s.yellow(`warning: ${text}`)]);
			this.schedule();
		});
		this.runLeftBatch();
		this.render();
		return () => {
			unsubscribe();
			offRetry?.();
			offWarning?.();
			if (!host.autoApprove) host.setApprover(undefined);
			if (this.ticker) clearInterval(this.ticker);
			if (this.frame) clearTimeout(this.frame);
			if (this.noticeTimer) clearTimeout(this.noticeTimer);
		};
	}

	/** Handle one decoded key. */
	handle(action: KeyAction, text?: string): void {
		// A pasted CRLF (Windows text; some terminals paste it as is) arrives as two keys: one line break.
		const crlf = this.pasting && this.pastedReturn && text === "\n";
		this.pastedReturn = this.pasting && text === "\r";
		if (crlf) return;
		if (action.type === "pasteStart") this.pasting = true;
		else if (action.type === "pasteEnd") this.pasting = false;
		else if (action.type === "interrupt") this.interrupt();
		// Pasted text is never an answer (a paste starting with "y" or "a" would allow the call): it goes to
		// the input line, which shows again once the question is answered.
		else if (this.approvals.current && !this.pasting && !this.stillTyping(action))
			this.answerApproval(action, text);
		else this.edit(action);
		this.schedule();
	}

	/** Whether the key reader is inside a bracketed paste. */
	get inPaste(): boolean {
		return this.pasting;
	}

	/** The terminal was resized: redraw the live region at the new width. */
	resized(): void {
		this.screen.resized();
		this.render();
	}

	/** Leave: abort a run (bounded wait for it to wind down and be saved), then resolve `done`. */
	async exit(code: number): Promise<void> {
		if (this.exiting) return;
		this.exiting = true;
		this.approvals.declineAll();
		// A run paused for approval (rule T15) ends as aborted too, so the saved session is paired (rule T17).
		if (this.host.agent.state.isStreaming || this.host.agent.state.pendingApprovals.length > 0) {
			this.host.agent.abort("the user exited");
			await Promise.race([this.host.agent.waitForIdle(), new Promise((r) => setTimeout(r, 3000).unref?.())]);
		}
		this.render();
		this.finish(code);
	}

	/**
	 * A loaded session that ended between tool calls and their results runs that batch now (rule L6): after its
	 * history is shown and with the approver installed, so a mutating call is asked about, not refused.
	 */
	private runLeftBatch(): void {
		const agent = this.host.agent;
		if (agent.state.isStreaming || findDanglingBatch(agent.state.messages) === undefined) return;
		agent.continue().catch((error: unknown) => this.say(`could not resume: ${String(error)}`));
		this.updateTicker();
	}

	private onEvent(event: AgentEvent): void {
		this.view.onEvent(event);
		if (event.type === "message_end" && (event.message as { role?: unknown }).role === "assistant")
			this.totals.add(event.message as never);
		// "aborting…" stands until the run has wound down, not for its full notice time after; what a Ctrl+C
		// armed stays for the rest of its window.
		if (event.type === "agent_end" && this.notice?.text.startsWith(ABORTING)) {
			if (this.notice.text.endsWith(PRESS_AGAIN)) this.notice.text = PRESS_AGAIN;
			else this.notice = undefined;
		}
		// The view says how a run failed; the host adds what to do about it when there is something (e.g. /clear).
		if (event.type === "agent_end" && event.outcome.type === "error") {
			const why = this.host.explainEnd(event);
			this.screen.print([...(why ? [this.style.yellow(`  → ${why}`)] : []), ""]);
		}
		this.updateTicker();
	}

	private edit(action: KeyAction): void {
		const e = this.editor;
		switch (action.type) {
			case "insert":
				e.insert(action.text);
				if (!this.pasting) this.lastTyped = this.clock.now();
				break;
			case "submit":
				if (!this.pasting) this.submit(false);
				break;
			case "submitLater":
				this.submit(true);
				break;
			case "escape":
				this.escape();
				break;
			case "eof":
				if (e.value === "") void this.exit(0);
				else e.delete();
				break;
			case "toggleThinking":
				this.view.toggleThinking();
				break;
			case "redraw":
				this.resized();
				break;
			case "complete":
				this.complete();
				break;
			case "ignore":
			case "pasteStart":
			case "pasteEnd":
			case "interrupt":
				break;
			default:
				e[action.type]();
		}
	}

	/** Whether `action` continues what the user was typing into the input line (it goes on going there). */
	private stillTyping(action: KeyAction): boolean {
		return action.type === "insert" && this.clock.now() - this.lastTyped < TYPING_GAP_MS;
	}

	private submit(later: boolean): void {
		this.lastTyped = Number.NEGATIVE_INFINITY;
		const raw = this.editor.take();
		const text = raw.trim();
		if (text === "") return;
		const laterCommand = /^\/later(?:\s+([\s\S]*))?$/.exec(text);
		if (laterCommand) {
			const rest = (laterCommand[1] ?? "").trim();
			if (rest === "") this.say("usage: /later <text> queues a follow-up");
			else this.send(rest, true);
			return;
		}
		// A command name has no slash in it: `/var/log/app.log fails, why?` is a prompt, not an unknown command.
		if (text.startsWith("/") && !text.startsWith("//") && !/^\/[^\s/]*\//.test(text)) {
			void runCommand(text, this.commandContext()).then(() => this.schedule());
			return;
		}
		this.send(text.startsWith("//") ? text.slice(1) : text, later);
	}

	private send(text: string, later: boolean): void {
		const agent = this.host.agent;
		const message: AgentMessage = userMessage(text);
		if (!agent.state.isStreaming) {
			// Nothing runs, so there is nothing to follow: a follow-up is simply the next prompt.
			this.view.labelMessage(message, "prompt");
			agent.prompt(message).catch((error: unknown) => this.say(`could not start: ${String(error)}`));
		} else if (later) {
			this.view.labelMessage(message, "followUp");
			agent.followUp(message);
		} else {
			this.view.labelMessage(message, "steer");
			agent.steer(message);
		}
		this.updateTicker();
	}

	private escape(): void {
		if (!this.abortRun("Esc")) this.editor.set("");
	}

	/**
	 * Ctrl+C: during a run it aborts the run as Esc does (the draft stays: it may be the next prompt); at the
	 * prompt it clears the input line. Either way a second one within {@link DOUBLE_CTRL_C_MS} exits.
	 */
	private interrupt(): void {
		const now = this.clock.now();
		if (now - this.lastInterrupt <= DOUBLE_CTRL_C_MS) {
			void this.exit(0);
			return;
		}
		this.lastInterrupt = now;
		if (this.abortRun("Ctrl+C")) return;
		this.editor.set("");
		this.say(PRESS_AGAIN, DOUBLE_CTRL_C_MS);
	}

	/** Abort the run, if one is active or paused for approval; returns whether there was one. */
	private abortRun(key: "Esc" | "Ctrl+C"): boolean {
		// An approval question on screen means a paused run (rule T15): it ends as aborted (rule T17).
		if (!this.host.agent.state.isStreaming && !this.approvals.current) return false;
		this.approvals.declineAll();
		this.host.agent.abort(`aborted by the user (${key})`);
		if (key === "Ctrl+C") this.say(`${ABORTING} · ${PRESS_AGAIN}`, DOUBLE_CTRL_C_MS);
		else this.say(ABORTING);
		return true;
	}

	/** A new question on screen starts its guard window (see {@link TYPING_GAP_MS}). */
	private noteQuestion(): void {
		const request = this.approvals.current;
		if (request !== this.asked.request) this.asked = { request, quietSince: this.clock.now() };
	}

	private answerApproval(action: KeyAction, text: string | undefined): void {
		if (action.type === "escape") {
			this.escape();
			return;
		}
		const key = action.type === "insert" ? (text ?? action.text) : action.type === "submit" ? "n" : undefined;
		if (key === undefined) return;
		// Too soon to have read the question: the key is dropped, and a held key (auto-repeat) keeps it too soon.
		const now = this.clock.now();
		if (now - this.asked.quietSince < TYPING_GAP_MS) {
			this.asked.quietSince = now;
			return;
		}
		// The call's own line (✓ … or ⊘ … blocked) reports the answer; no second line for it.
		this.approvals.answer(key);
	}

	private complete(): void {
		const value = this.editor.value;
		if (value === "" && this.host.scripted) {
			this.editor.set(
				this.host.agent.state.isStreaming ? this.host.scripted.steer : this.host.scripted.prompt,
			);
			return;
		}
		if (!value.startsWith("/") || value.includes(" ")) return;
		const matches = COMMAND_NAMES.filter((name) => name.startsWith(value));
		if (matches.length === 1) this.editor.set(`${matches[0]} `);
		else if (matches.length > 1) this.say(matches.join("  "));
	}

	private say(text: string, ms = 4000): void {
		const notice = { text, until: this.clock.now() + ms };
		this.notice = notice;
		// Nothing redraws an idle screen: take the notice down when it expires ("press Ctrl+C again" must not
		// stay up after its window has passed).
		if (this.noticeTimer) clearTimeout(this.noticeTimer);
		this.noticeTimer = setTimeout(() => {
			this.noticeTimer = undefined;
			if (this.notice === notice) this.notice = undefined;
			this.render();
		}, ms);
		this.schedule();
	}

	private commandContext() {
		return {
			host: this.host,
			style: this.style,
			totals: this.totals,
			width: Math.max(10, this.out.columns - 1),
			print: (lines: readonly string[]) => {
				this.screen.print(lines);
				this.schedule();
			},
			showLoaded: () => {
				this.totals.reset(this.host.agent.state.messages);
				this.showHistory();
				this.runLeftBatch();
			},
			exit: (code: number) => void this.exit(code),
		};
	}

	private showHistory(): void {
		this.screen.print([this.style.dim(`— ${this.host.agent.state.messages.length} messages —`)]);
		this.view.printHistory(this.host.agent.state.messages);
		this.screen.print([this.style.dim("— end of saved history —"), ""]);
	}

	private updateTicker(): void {
		const busy = this.host.agent.state.isStreaming;
		if (busy && !this.ticker) this.ticker = setInterval(() => this.render(), TICK_MS);
		else if (!busy && this.ticker) {
			clearInterval(this.ticker);
			this.ticker = undefined;
		}
		this.schedule();
	}

	/** Coalesce redraws: many deltas within one frame cost one redraw of the live region. */
	private schedule(): void {
		if (this.frame) return;
		this.frame = setTimeout(() => {
			this.frame = undefined;
			this.render();
		}, FRAME_MS);
	}

	private render(): void {
		const width = Math.max(10, this.out.columns - 1);
		const s = this.style;
		const rows: string[] = [];
		const activity = this.view.liveRows().flatMap((row) => wrapRows(row, width));
		const room = Math.max(2, this.out.rows - 8);
		rows.push(...activity.slice(-room));
		const agent = this.host.agent;
		for (const m of agent.peekSteeringQueue())
			rows.push(truncateStyled(s.magenta(`↳ steering queued: ${messageText(m)}`), width));
		for (const m of agent.peekFollowUpQueue())
			rows.push(truncateStyled(s.magenta(`⏭ follow-up queued: ${messageText(m)}`), width));
		if (this.notice && this.notice.until > this.clock.now())
			rows.push(truncateStyled(s.yellow(this.notice.text), width));
		else this.notice = undefined;
		rows.push(statusLine(this.host.describeModel(), this.totals, width, s));
		const request = this.approvals.current;
		if (request) {
			// Wrapped, not cut: the question shows all of what it asks about, however long.
			const question = wrapRows(
				`${s.yellow("?")} Run ${s.bold(`${request.toolName}: ${approvalSubject(request)}`)}? [y/N/a=always]`,
				width,
			);
			const fit = Math.max(2, this.out.rows - 2 - rows.length);
			if (question.length > fit)
				question.splice(
					fit - 2,
					question.length - fit + 1,
					s.dim(`… ${question.length - fit + 1} rows not shown …`),
				);
			// What a file change would write, in the rows the question leaves: nobody should approve it blind.
			const room = Math.min(PREVIEW_ROWS, this.out.rows - 2 - rows.length - question.length);
			rows.push(...changePreview(request, width, room, s), ...question);
			const last = question[question.length - 1] ?? "";
			this.screen.setLive(rows, { row: rows.length - 1, col: Math.min(width, displayWidth(last)) });
		} else {
			const prompt = agent.state.isStreaming ? s.magenta("» ") : s.bold(s.blue("› "));
			const layout = this.editor.layout(prompt, 2, width, 5);
			const top = rows.length;
			const input = layout.rows;
			if (this.editor.value === "" && this.host.scripted && agent.state.isStreaming)
				input[0] = `${prompt}${s.dim(oneLine(`steer it: ${this.host.scripted.steer} (Tab fills in)`, width - 2))}`;
			rows.push(...input);
			this.screen.setLive(rows, { row: top + layout.cursorRow, col: layout.cursorCol });
		}
		this.screen.flush();
	}
}

/**
 * What a call to approve would do, in full. The one-line summary cuts a command at 70 characters and turns
 * its line breaks (command separators) into spaces: `echo hi↵rm -rf ~` would read as a harmless echo. An
 * `edit_file` with `replace_all` says it edits every occurrence: its preview shows one, and the question shows
 * even when the screen has no room for the preview.
 */
function approvalSubject(request: ApprovalRequest): string {
	const subject = describeArgs(request.args, (text) => text.replace(/\t/g, "    "));
	return request.toolName === "edit_file" && request.args.replace_all === true
		? `${subject} (every occurrence)`
		: subject;
}

/**
 * What an `edit_file` or `write_file` call to approve would write, one row per line cut to `width`: the text it
 * replaces as `-` lines and its replacement as `+` lines, or the new file's content as `+` lines; at most `room`
 * rows, the last saying how many lines are not shown. Nothing for other tools (a command is shown in full).
 */
function changePreview(request: ApprovalRequest, width: number, room: number, s: Palette): string[] {
	const { toolName, args } = request;
	const lines = (text: string, mark: "-" | "+") =>
		text
			.replace(/\n$/, "")
			.split("\n")
			.map((line) => ({ line, mark }));
	let preview: { line: string; mark: "-" | "+" }[] = [];
	if (toolName === "edit_file" && typeof args.old_string === "string" && typeof args.new_string === "string")
		preview = [...lines(args.old_string, "-"), ...lines(args.new_string, "+")];
	else if (toolName === "write_file" && typeof args.content === "string" && args.content !== "")
		preview = lines(args.content, "+");
	if (room < 2 || preview.length === 0) return [];
	const shown = preview.length <= room ? preview : preview.slice(0, room - 1);
	// Redrawn on every key: only the rows shown are measured, and a long line only as far as it can show.
	const rows = shown.map(({ line, mark }) => {
		const row = truncate(`${mark} ${line.slice(0, width * 8).replace(/\t/g, "    ")}`, width);
		return mark === "-" ? s.red(row) : s.green(row);
	});
	if (shown.length < preview.length) rows.push(s.dim(`… ${preview.length - shown.length} more lines`));
	return rows;
}

function messageText(message: AgentMessage): string {
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return oneLine(content, 200);
	if (Array.isArray(content))
		return oneLine(content.map((b) => (b as { text?: string }).text ?? "").join(" "), 200);
	return "";
}
