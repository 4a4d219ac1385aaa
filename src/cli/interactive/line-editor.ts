/**
 * The input line: a text buffer with a cursor that moves by grapheme (an emoji or an accented letter is one
 * step), a history, and its layout as wrapped rows with the cursor's cell position.
 */
import { displayWidth, graphemes } from "./text-width.js";

/** The input laid out for the live region. */
export interface EditorLayout {
	rows: string[];
	cursorRow: number;
	cursorCol: number;
}

/** A single-line editor (pasted newlines are kept and shown as ↵). */
export class LineEditor {
	private text = "";
	/** Cursor as an offset in UTF-16 code units, always on a grapheme boundary. */
	private cursor = 0;
	private readonly history: string[] = [];
	private historyIndex = 0;
	private draft = "";

	/** The current text. */
	get value(): string {
		return this.text;
	}

	/** Replace the text and put the cursor at its end. */
	set(text: string): void {
		this.text = text;
		this.cursor = text.length;
	}

	/** Take the text out (for sending), remember it in the history, and empty the line. */
	take(): string {
		const text = this.text;
		if (text.trim() !== "" && this.history[this.history.length - 1] !== text) this.history.push(text);
		this.historyIndex = this.history.length;
		this.set("");
		return text;
	}

	insert(text: string): void {
		const clean = text.replace(/\r\n?/g, "\n").replace(/\t/g, "  ");
		this.text = this.text.slice(0, this.cursor) + clean + this.text.slice(this.cursor);
		this.cursor += clean.length;
	}

	backspace(): void {
		const before = graphemes(this.text.slice(0, this.cursor));
		const last = before.pop();
		if (last === undefined) return;
		this.text = before.join("") + this.text.slice(this.cursor);
		this.cursor -= last.length;
	}

	delete(): void {
		const next = graphemes(this.text.slice(this.cursor))[0];
		if (next !== undefined)
			this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + next.length);
	}

	left(): void {
		const last = graphemes(this.text.slice(0, this.cursor)).pop();
		if (last !== undefined) this.cursor -= last.length;
	}

	right(): void {
		const next = graphemes(this.text.slice(this.cursor))[0];
		if (next !== undefined) this.cursor += next.length;
	}

	home(): void {
		this.cursor = 0;
	}

	end(): void {
		this.cursor = this.text.length;
	}

	wordLeft(): void {
		const before = this.text.slice(0, this.cursor);
		this.cursor = before.replace(/\S+\s*$|\s+$/u, "").length;
	}

	wordRight(): void {
		const after = this.text.slice(this.cursor);
		const match = /^\s*\S+/u.exec(after);
		this.cursor += match ? match[0].length : after.length;
	}

	deleteWordBack(): void {
		const start = this.text.slice(0, this.cursor).replace(/\S+\s*$|\s+$/u, "").length;
		this.text = this.text.slice(0, start) + this.text.slice(this.cursor);
		this.cursor = start;
	}

	killToStart(): void {
		this.text = this.text.slice(this.cursor);
		this.cursor = 0;
	}

	killToEnd(): void {
		this.text = this.text.slice(0, this.cursor);
	}

	historyPrev(): void {
		if (this.historyIndex === 0) return;
		if (this.historyIndex === this.history.length) this.draft = this.text;
		this.historyIndex--;
		this.set(this.history[this.historyIndex] ?? "");
	}

	historyNext(): void {
		if (this.historyIndex >= this.history.length) return;
		this.historyIndex++;
		this.set(
			this.historyIndex === this.history.length ? this.draft : (this.history[this.historyIndex] ?? ""),
		);
	}

	/**
	 * Lay out `prompt` + text in rows of `width` cells, breaking anywhere (an input line is not prose), and
	 * keep at most `maxRows` rows around the cursor.
	 */
	layout(prompt: string, promptWidth: number, width: number, maxRows: number): EditorLayout {
		const columns = Math.max(2, width);
		const rows: string[] = [prompt];
		let used = promptWidth;
		let cursorRow = 0;
		let cursorCol = promptWidth;
		let offset = 0;
		for (const g of graphemes(this.text)) {
			if (offset === this.cursor) {
				cursorRow = rows.length - 1;
				cursorCol = used;
			}
			const shown = g === "\n" ? "↵" : g;
			const w = displayWidth(shown);
			if (used + w > columns) {
				rows.push("");
				used = 0;
				if (offset === this.cursor) {
					cursorRow = rows.length - 1;
					cursorCol = 0;
				}
			}
			rows[rows.length - 1] += shown;
			used += w;
			offset += g.length;
		}
		if (offset === this.cursor) {
			if (used >= columns) {
				rows.push("");
				used = 0;
			}
			cursorRow = rows.length - 1;
			cursorCol = used;
		}
		const first = Math.max(0, Math.min(cursorRow - maxRows + 1, rows.length - maxRows));
		return { rows: rows.slice(first, first + maxRows), cursorRow: cursorRow - first, cursorCol };
	}
}
