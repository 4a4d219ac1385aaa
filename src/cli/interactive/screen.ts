/**
 * The differential renderer. The terminal holds two things: the transcript, written once into the scrollback
 * (a resize to a new width writes the lines still on screen again, wrapped at that width) and never touched
 * otherwise, and a small live region at the bottom (streaming line, running tools, status, input) that is
 * redrawn from its first changed row. A streamed delta therefore costs a redraw of a few rows,
 * never of the transcript, and finished lines scroll away as ordinary terminal output.
 */
import { terminalText } from "../terminal-text.js";
import { CSI } from "./ansi.js";
import { displayWidth, wrapRows } from "./text-width.js";

/** Where frames go: a TTY write stream, or a recorder in tests. */
export interface ScreenOutput {
	write(chunk: string): unknown;
	readonly columns: number;
	readonly rows: number;
}

/** Where the terminal cursor rests after a frame: a row of the live region and a cell column in it. */
export interface CursorPosition {
	row: number;
	col: number;
}

/** A transcript line as it was written: kept so that a resize can write it again at the new width. */
interface WrittenLine {
	text: string;
	/** Cells of each row it was wrapped into. */
	rowWidths: number[];
}

/**
 * Rows of the latest transcript lines kept for a resize to write again: more than any screen holds, since only
 * lines still on screen are written again.
 */
const KEPT_ROWS = 1000;

/** Owns the bottom of the terminal: commits transcript lines above the live region and diffs the region. */
export class LiveScreen {
	private pending: string[] = [];
	/** The latest transcript lines written, oldest first, about {@link KEPT_ROWS} rows of them. */
	private written: WrittenLine[] = [];
	private writtenRows = 0;
	private shown: string[] = [];
	private next: string[] = [];
	private cursor: CursorPosition = { row: 0, col: 0 };
	private shownCursor: CursorPosition = { row: 0, col: 0 };
	/** Row of the live region the terminal cursor is on right now. */
	private cursorRow = 0;
	private columnsDrawn: number;

	constructor(private readonly out: ScreenOutput) {
		this.columnsDrawn = out.columns;
	}

	/**
	 * Append finished transcript lines; they are written once, above the live region, at the next flush,
	 * wrapped at spaces to the width then (the terminal's own wrap would cut words at its edge).
	 */
	print(lines: readonly string[]): void {
		for (const line of lines) this.pending.push(line);
	}

	/** Replace the live region. Each row must fit the width (callers wrap); the cursor rests at `cursor`. */
	setLive(rows: readonly string[], cursor: CursorPosition): void {
		const limit = Math.max(1, this.out.rows - 1);
		// A region taller than the screen could not be redrawn: rows scrolled off cannot be reached again.
		const drop = Math.max(0, rows.length - limit);
		this.next = rows.slice(drop);
		this.cursor = { row: Math.max(0, cursor.row - drop), col: cursor.col };
	}

	/** True when a flush would write something. */
	get dirty(): boolean {
		return (
			this.pending.length > 0 ||
			!sameRows(this.shown, this.next) ||
			!sameCursor(this.shownCursor, this.cursor)
		);
	}

	/** Write one frame: pending transcript lines, then the live rows from the first one that changed. */
	flush(): void {
		if (!this.dirty) return;
		let frame = CSI.beginFrame + CSI.hideCursor;
		let from: number;
		if (this.pending.length > 0) {
			frame += `\r${CSI.up(this.cursorRow)}${CSI.clearBelow}`;
			// One cell short of the edge, as the live rows: a row filling the last column wraps early on some terminals.
			const width = Math.max(1, this.out.columns - 1);
			for (const line of this.pending) {
				const rows = wrapRows(line, width);
				for (const row of rows) frame += `${row}${CSI.reset}\r\n`;
				this.keep({ text: line, rowWidths: rows.map(displayWidth) });
			}
			this.pending = [];
			from = 0;
		} else {
			from = firstDifference(this.shown, this.next);
			if (from >= this.shown.length && this.shown.length > 0) {
				frame += this.moveTo(this.shown.length - 1);
				frame += "\r\n";
			} else {
				frame += `${this.moveTo(from)}\r`;
			}
			frame += CSI.clearBelow;
		}
		const rows = this.next;
		frame += rows
			.slice(from)
			.map((row) => terminalText(row) + CSI.reset)
			.join("\r\n");
		// After the write the cursor ends on the last row written, or stays on `from` when nothing was.
		const at = from < rows.length ? rows.length - 1 : from;
		const target = Math.min(this.cursor.row, Math.max(0, rows.length - 1));
		frame += CSI.up(at - target) + CSI.column(this.cursor.col) + CSI.showCursor + CSI.endFrame;
		this.out.write(frame);
		this.shown = rows;
		this.shownCursor = { row: target, col: this.cursor.col };
		this.cursorRow = target;
		this.columnsDrawn = this.out.columns;
	}

	/**
	 * The terminal changed size. Terminals reflow the rows they hold, so the region now spans more (or fewer)
	 * physical rows than we drew: clear from where its top moved to and draw it again at the next flush. At a
	 * new width the transcript lines still on screen are cleared too and written again, wrapped between words
	 * at that width: the terminal's own reflow of a narrower screen cuts words at its edge, and a wider one
	 * would keep the old short rows. Lines partly or wholly in the scrollback stay as they were: the screen
	 * cannot reach them.
	 */
	resized(): void {
		const columns = Math.max(1, this.out.columns);
		let above = 0;
		for (let i = 0; i < this.cursorRow; i++) above += physicalRows(this.shown[i] ?? "", columns);
		above += Math.floor(Math.min(this.shownCursor.col, this.columnsDrawn) / columns);
		if (columns !== this.columnsDrawn) {
			let region = 0;
			for (const row of this.shown) region += physicalRows(row, columns);
			const again = this.linesOnScreen(columns, this.out.rows - region);
			above += again.rows;
			this.pending.unshift(...again.lines);
		}
		this.out.write(`\r${CSI.up(above)}${CSI.clearBelow}`);
		this.shown = [];
		this.cursorRow = 0;
		this.shownCursor = { row: -1, col: -1 };
	}

	/** Leave the terminal clean: erase the live region and put the cursor at its top (for exit). */
	clear(): void {
		this.flush();
		this.out.write(`\r${CSI.up(this.cursorRow)}${CSI.clearBelow}${CSI.showCursor}`);
		this.shown = [];
		this.next = [];
		this.cursorRow = 0;
	}

	/** Remember a written line; the oldest are forgotten past {@link KEPT_ROWS} rows. */
	private keep(line: WrittenLine): void {
		this.written.push(line);
		this.writtenRows += line.rowWidths.length;
		while (this.writtenRows > KEPT_ROWS && this.written.length > 1)
			this.writtenRows -= this.written.shift()?.rowWidths.length ?? 0;
	}

	/**
	 * Take the latest written lines that lie wholly in the `room` rows above the live region once the terminal
	 * has reflowed them to `columns`, and the rows they take there. Only whole lines: the top of one cut by the
	 * screen's edge lies in the scrollback, and writing it again would show that part twice.
	 */
	private linesOnScreen(columns: number, room: number): { lines: string[]; rows: number } {
		let rows = 0;
		let first = this.written.length;
		while (first > 0) {
			const line = this.written[first - 1] as WrittenLine;
			const height = line.rowWidths.reduce((sum, width) => sum + Math.max(1, Math.ceil(width / columns)), 0);
			if (rows + height > room) break;
			rows += height;
			first--;
		}
		const taken = this.written.splice(first);
		for (const line of taken) this.writtenRows -= line.rowWidths.length;
		return { lines: taken.map((line) => line.text), rows };
	}

	private moveTo(row: number): string {
		const move = row < this.cursorRow ? CSI.up(this.cursorRow - row) : CSI.down(row - this.cursorRow);
		this.cursorRow = row;
		return move;
	}
}

function physicalRows(row: string, columns: number): number {
	return Math.max(1, Math.ceil(displayWidth(row) / columns));
}

function firstDifference(a: readonly string[], b: readonly string[]): number {
	const n = Math.min(a.length, b.length);
	for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
	return n;
}

function sameRows(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && firstDifference(a, b) === a.length;
}

function sameCursor(a: CursorPosition, b: CursorPosition): boolean {
	return a.row === b.row && a.col === b.col;
}
