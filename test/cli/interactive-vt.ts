/**
 * A tiny terminal emulator for the renderer tests: just the sequences the live screen writes (CR, LF, cursor
 * up/down/column, erase below/line, SGR and private modes ignored), with a scrollback. Characters are one
 * cell each, which is all these tests use; wide characters are covered by the tmux test.
 */
/** A CSI sequence after its ESC: `[`, an optional private marker, numeric parameters, the final letter. */
const CSI_SEQUENCE = /^\[(\??)([0-9;]*)([A-Za-z])/;

export class VirtualTerminal {
	readonly lines: string[] = [""];
	/** Whether a row goes on in the next one: the terminal wrapped it there on a resize (no line break). */
	private continues: boolean[] = [false];
	private row = 0;
	private col = 0;
	written = "";

	constructor(
		public columns = 80,
		public rows = 24,
	) {}

	/**
	 * Change size as a reflowing terminal (VTE, iTerm2, kitty, tmux) does: a row wider than the new width goes
	 * on in the rows below it, cut at the edge whatever it cuts, rows cut so by an earlier resize join again when
	 * there is room, and the cursor stays on its character. Line breaks written (CR LF) are never joined.
	 */
	resize(columns: number, rows: number): void {
		const next: string[] = [];
		const continues: boolean[] = [];
		let cursor = { row: 0, col: 0 };
		for (let row = 0; row < this.lines.length; row++) {
			// One line as written: this row and the rows it goes on in.
			let line = "";
			let cursorAt: number | undefined;
			for (; ; row++) {
				if (row === this.row) cursorAt = line.length + this.col;
				line += this.lines[row] ?? "";
				if (!this.continues[row] || row + 1 >= this.lines.length) break;
			}
			if (cursorAt !== undefined)
				cursor = { row: next.length + Math.floor(cursorAt / columns), col: cursorAt % columns };
			for (let at = 0; at === 0 || at < line.length; at += columns) {
				next.push(line.slice(at, at + columns));
				continues.push(at + columns < line.length);
			}
		}
		while (next.length <= cursor.row) {
			next.push("");
			continues.push(false);
		}
		this.lines.splice(0, this.lines.length, ...next);
		this.continues = continues;
		this.row = cursor.row;
		this.col = cursor.col;
		this.columns = columns;
		this.rows = rows;
	}

	write(chunk: string): boolean {
		this.written += chunk;
		let i = 0;
		while (i < chunk.length) {
			const ch = chunk[i] as string;
			if (ch === "\x1b") {
				const match = CSI_SEQUENCE.exec(chunk.slice(i + 1));
				if (!match) throw new Error(`unsupported escape at ${JSON.stringify(chunk.slice(i, i + 8))}`);
				this.csi(match[1] === "?", match[2] ?? "", match[3] ?? "");
				i += match[0].length + 1;
				continue;
			}
			if (ch === "\r") this.col = 0;
			else if (ch === "\n") {
				this.row++;
				if (this.row >= this.lines.length) {
					this.lines.push("");
					this.continues.push(false);
				}
			} else {
				const line = (this.lines[this.row] ?? "").padEnd(this.col);
				this.lines[this.row] = line.slice(0, this.col) + ch + line.slice(this.col + 1);
				this.col++;
			}
			i++;
		}
		return true;
	}

	/** The visible screen: the last `rows` lines, trailing blanks trimmed. */
	screen(): string[] {
		const text = this.lines.map((l) => l.trimEnd());
		while (text.length > 0 && text[text.length - 1] === "") text.pop();
		return text.slice(-this.rows);
	}

	/** Forget what was written so far (to measure one frame). */
	take(): string {
		const out = this.written;
		this.written = "";
		return out;
	}

	private csi(isPrivate: boolean, params: string, final: string): void {
		if (isPrivate || final === "m") return;
		const n = params === "" ? 1 : Number(params);
		const top = Math.max(0, this.lines.length - this.rows);
		if (final === "A") this.row = Math.max(top, this.row - n);
		else if (final === "B") this.row = Math.min(this.lines.length - 1, this.row + n);
		else if (final === "G") this.col = n - 1;
		else if (final === "J") {
			this.lines[this.row] = (this.lines[this.row] ?? "").slice(0, this.col);
			this.lines.length = this.row + 1;
			this.continues.length = this.row + 1;
			this.continues[this.row] = false;
		} else if (final === "K") this.lines[this.row] = "";
		else throw new Error(`unsupported CSI ${params}${final}`);
	}
}
