/**
 * Incremental, line-based Markdown for streamed assistant text. A line is rendered once, when its newline
 * arrives, and goes to the scrollback; only the unfinished last line is re-rendered (in the live region) as
 * deltas arrive. Whole-document renderers (`marked-terminal`) would redo the entire reply per delta.
 */
import type { Palette } from "./ansi.js";

interface Fence {
	marker: string;
	lang: string;
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/;
/** A fence line with nothing after its marker: only such a line can close a fence (CommonMark). */
const BARE_FENCE = /^\s*(`{3,}|~{3,})\s*$/;
/** A heading; a closing run of `#` counts only after a space (`## From C#` keeps its `#`). */
const HEADING = /^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const ORDERED = /^(\s*)(\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const TASK = /^\[([ xX])\]\s+(.*)$/;

/** Renders Markdown text as it streams: `push` deltas, read finished lines, `end` when the block ends. */
export class MarkdownStream {
	private buffer = "";
	private fence: Fence | undefined;

	constructor(private readonly style: Palette) {}

	/** Add a delta; returns the rendered lines it completed (possibly none). */
	push(delta: string): string[] {
		this.buffer += delta;
		const out: string[] = [];
		let newline = this.buffer.indexOf("\n");
		while (newline !== -1) {
			this.renderLine(this.buffer.slice(0, newline).replace(/\r$/, ""), out);
			this.buffer = this.buffer.slice(newline + 1);
			newline = this.buffer.indexOf("\n");
		}
		return out;
	}

	/** The unfinished last line, rendered as it would look if it ended now (state is not advanced). */
	partial(): string {
		if (this.buffer === "") return "";
		if (this.fence) return this.codeLine(this.buffer);
		if (FENCE.test(this.buffer)) return this.style.dim(this.buffer);
		const out: string[] = [];
		this.renderLine(this.buffer, out, true);
		return out[0] ?? "";
	}

	/** The block ended: render the unfinished line and close an open code fence. */
	end(): string[] {
		const out: string[] = [];
		if (this.buffer !== "") this.renderLine(this.buffer, out);
		this.buffer = "";
		if (this.fence) out.push(this.fenceEnd());
		this.fence = undefined;
		return out;
	}

	private renderLine(line: string, out: string[], preview = false): void {
		const s = this.style;
		if (this.fence) {
			if (closesFence(line, this.fence)) {
				out.push(this.fenceEnd());
				if (!preview) this.fence = undefined;
			} else out.push(this.codeLine(line));
			return;
		}
		const fence = FENCE.exec(line);
		if (fence?.[1]) {
			const lang = fence[2] ?? "";
			out.push(`  ${s.dim(`┌─ ${lang === "" ? "code" : lang}`)}`);
			if (!preview) this.fence = { marker: fence[1], lang };
			return;
		}
		out.push(renderProse(line, s));
	}

	private codeLine(line: string): string {
		return `  ${this.style.dim("│")} ${this.style.cyan(line.replace(/\t/g, "    "))}`;
	}

	private fenceEnd(): string {
		return `  ${this.style.dim("└─")}`;
	}
}

/**
 * Whether `line` closes `fence` (CommonMark): the same character, at least as many of it, and no info string —
 * a "```ts" line inside a "```markdown" block is a line of its text (an example opening a fence), not its end.
 */
function closesFence(line: string, fence: Fence): boolean {
	const marker = BARE_FENCE.exec(line)?.[1];
	return marker !== undefined && marker[0] === fence.marker[0] && marker.length >= fence.marker.length;
}

/** One line outside code fences: headings, rules, lists, quotes, then inline styles. */
function renderProse(line: string, s: Palette): string {
	const heading = HEADING.exec(line);
	// Without styles a heading's only mark is its #s.
	if (heading && !s.styled) return renderInline(line, s);
	if (heading) {
		const text = renderInline(heading[2] ?? "", s);
		return heading[1] === "#" ? s.bold(s.underline(text)) : s.bold(text);
	}
	if (RULE.test(line)) return s.dim("─".repeat(40));
	const bullet = BULLET.exec(line);
	if (bullet) {
		const body = bullet[2] ?? "";
		const task = TASK.exec(body);
		const mark = task ? (task[1] === " " ? "☐" : "☑") : "•";
		return `${bullet[1] ?? ""}${s.dim(mark)} ${renderInline(task ? (task[2] ?? "") : body, s)}`;
	}
	const ordered = ORDERED.exec(line);
	if (ordered) return `${ordered[1] ?? ""}${s.dim(ordered[2] ?? "")} ${renderInline(ordered[3] ?? "", s)}`;
	const quote = QUOTE.exec(line);
	if (quote) return `${s.dim("│")} ${s.italic(renderInline(quote[1] ?? "", s))}`;
	return renderInline(line, s);
}

/**
 * Inline Markdown: `code` first (nothing inside it is styled), then links, bold and italic. Without styles
 * the text stays as written: stripped of its backticks and asterisks, code and emphasis would read as prose.
 */
export function renderInline(text: string, s: Palette): string {
	if (!s.styled) return text;
	return text
		.split(/(`+[^`]+`+)/)
		.map((part, i) => (i % 2 === 1 ? s.cyan(part.replace(/^`+|`+$/g, "")) : renderEmphasis(part, s)))
		.join("");
}

function renderEmphasis(text: string, s: Palette): string {
	return text
		.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) =>
			label === url ? s.underline(url) : `${s.underline(label)} ${s.dim(`(${url})`)}`,
		)
		.replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__/g, (_, a?: string, b?: string) =>
			s.bold(a ?? b ?? ""),
		)
		.replace(/(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![*\w])/g, (_, a: string) => s.italic(a));
}
