/**
 * Terminal cell widths. East Asian wide characters, emoji and combining marks make `string.length` wrong for
 * cursor arithmetic; `string-width` and `wrap-ansi` keep the tables, we only decide where rows break.
 *
 * Text is measured and cut as the screen shows it: with its control characters as their pictures
 * ({@link terminalText}), one cell each, where `string-width` counts them (and any escape sequence) as none.
 * A row measured before would come out wider than the terminal, which would wrap it, and the live region's
 * redraw would then miss the extra terminal row.
 */
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";
import { terminalText } from "../terminal-text.js";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Display width of `text` in terminal cells as shown: SGR escapes take none, control characters one. */
export function displayWidth(text: string): number {
	return stringWidth(terminalText(text));
}

/**
 * The user-perceived characters (grapheme clusters) of `text`, so an edit never splits an emoji or accent.
 * `Intl.Segmenter` slows down more than linearly with the length of what it segments (40,000 characters take
 * half a second), and the input line is segmented on every key and frame: a pasted log would freeze the
 * screen. So the text is segmented in pieces of about {@link SEGMENT_CHUNK} code units, cut where a grapheme
 * always ends (UAX #29): after a line feed, or between two printable ASCII characters.
 */
export function graphemes(text: string): string[] {
	const out: string[] = [];
	for (let start = 0; start < text.length; ) {
		const end = safeCut(text, start + SEGMENT_CHUNK);
		for (const s of segmenter.segment(text.slice(start, end))) out.push(s.segment);
		start = end;
	}
	return out;
}

const SEGMENT_CHUNK = 256;

/** The first index from `from` on where a grapheme boundary is certain, or the end of `text`. */
function safeCut(text: string, from: number): number {
	for (let i = from; i < text.length; i++) {
		const before = text.charCodeAt(i - 1);
		if (before === 0x0a || (isPrintableAscii(before) && isPrintableAscii(text.charCodeAt(i)))) return i;
	}
	return text.length;
}

function isPrintableAscii(code: number): boolean {
	return code >= 0x20 && code < 0x7f;
}

/**
 * Wrap (possibly styled) text into rows of at most `width` cells, breaking at spaces where it can (the spaces
 * at a break dropped) and hard inside long words; a line's continued rows keep its indentation, and its styles
 * are closed and reopened across them so each row can be redrawn on its own.
 */
export function wrapRows(text: string, width: number): string[] {
	const columns = Math.max(1, width);
	if (text === "") return [""];
	return terminalText(text)
		.split("\n")
		.flatMap((line) => wrapLine(line, columns));
}

/** A line's indentation: its leading spaces, after any style sequences that open it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape is what this finds.
const INDENT = /^((?:\x1b\[[0-9;]*m)*)( +)/;

/**
 * One line (no line feed) in rows of at most `columns` cells. wrap-ansi's `trim` takes the spaces off where a
 * row breaks (kept, they start the next row one cell in, or push its last word off); it would take the line's
 * indentation too, so that is set aside and put before every row: a code line or a nested bullet continues at
 * its own indentation (at most half the width, so some text still fits beside it).
 */
function wrapLine(line: string, columns: number): string[] {
	const match = INDENT.exec(line);
	const indent = (match?.[2] ?? "").slice(0, Math.floor(columns / 2));
	const rest = match ? (match[1] ?? "") + line.slice(match[0].length) : line;
	const rows = wrapAnsi(rest, columns - indent.length, { hard: true, trim: true, wordWrap: true }).split(
		"\n",
	);
	return rows.map((row) => indent + row);
}

/** Cut plain text to `width` cells, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
	if (displayWidth(text) <= width) return terminalText(text);
	if (width <= 1) return width === 1 ? "…" : "";
	let out = "";
	let used = 0;
	for (const g of graphemes(terminalText(text))) {
		const w = displayWidth(g);
		if (used + w > width - 1) break;
		out += g;
		used += w;
	}
	return `${out}…`;
}

/** Cut styled text to one row of `width` cells (the first wrapped row, with an ellipsis when more followed). */
export function truncateStyled(text: string, width: number): string {
	if (displayWidth(text) <= width) return terminalText(text);
	const rows = wrapAnsi(terminalText(text), Math.max(1, width - 1), {
		hard: true,
		trim: false,
		wordWrap: false,
	}).split("\n");
	return `${rows[0] ?? ""}…`;
}
