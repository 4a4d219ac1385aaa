/**
 * Terminal cell widths. East Asian wide characters, emoji and combining marks make `string.length` wrong for
 * cursor arithmetic; `string-width` and `wrap-ansi` keep the tables, we only decide where rows break.
 */
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Display width of `text` in terminal cells, ignoring ANSI escapes. */
export function displayWidth(text: string): number {
	return stringWidth(text);
}

/** The user-perceived characters (grapheme clusters) of `text`, so an edit never splits an emoji or accent. */
export function graphemes(text: string): string[] {
	return Array.from(segmenter.segment(text), (s) => s.segment);
}

/**
 * Wrap (possibly styled) text into rows of at most `width` cells, breaking at spaces where it can and hard
 * inside long words; styles are closed and reopened across rows so each row can be redrawn on its own.
 */
export function wrapRows(text: string, width: number): string[] {
	const columns = Math.max(1, width);
	if (text === "") return [""];
	return wrapAnsi(text, columns, { hard: true, trim: false, wordWrap: true }).split("\n");
}

/** Cut plain text to `width` cells, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	if (width <= 1) return width === 1 ? "…" : "";
	let out = "";
	let used = 0;
	for (const g of graphemes(text)) {
		const w = displayWidth(g);
		if (used + w > width - 1) break;
		out += g;
		used += w;
	}
	return `${out}…`;
}

/** Cut styled text to one row of `width` cells (the first wrapped row, with an ellipsis when more followed). */
export function truncateStyled(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	const rows = wrapAnsi(text, Math.max(1, width - 1), { hard: true, trim: false, wordWrap: false }).split(
		"\n",
	);
	return `${rows[0] ?? ""}…`;
}
