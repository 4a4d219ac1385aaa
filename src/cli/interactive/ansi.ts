/**
 * ANSI styling and cursor control for the interactive mode. A dozen SGR codes do not justify a dependency;
 * colour is dropped when the host asks for none (`NO_COLOR`, a dumb terminal) so the text stays readable.
 */

/** Applies one text style; the identity function when colour is off. */
export type Style = (text: string) => string;

/** The styles the interactive mode uses. */
export interface Palette {
	/**
	 * False when every style is the identity (`NO_COLOR`, a dumb terminal): what markup means can then only be
	 * shown by keeping the markup, so the Markdown renderer leaves `` `code` ``, `**bold**` and `# heading` as
	 * written rather than strip them into plain words.
	 */
	styled: boolean;
	bold: Style;
	dim: Style;
	italic: Style;
	underline: Style;
	inverse: Style;
	red: Style;
	green: Style;
	yellow: Style;
	blue: Style;
	magenta: Style;
	cyan: Style;
	gray: Style;
}

function sgr(open: number, close: number): Style {
	return (text) => (text === "" ? "" : `\x1b[${open}m${text}\x1b[${close}m`);
}

const plain: Style = (text) => text;

/** A palette with real SGR codes, or one of identity functions when `color` is false. */
export function createPalette(color: boolean): Palette {
	if (!color) {
		return {
			styled: false,
			bold: plain,
			dim: plain,
			italic: plain,
			underline: plain,
			inverse: plain,
			red: plain,
			green: plain,
			yellow: plain,
			blue: plain,
			magenta: plain,
			cyan: plain,
			gray: plain,
		};
	}
	return {
		styled: true,
		bold: sgr(1, 22),
		dim: sgr(2, 22),
		italic: sgr(3, 23),
		underline: sgr(4, 24),
		inverse: sgr(7, 27),
		red: sgr(31, 39),
		green: sgr(32, 39),
		yellow: sgr(33, 39),
		blue: sgr(34, 39),
		magenta: sgr(35, 39),
		cyan: sgr(36, 39),
		gray: sgr(90, 39),
	};
}

/** Whether to colour: `NO_COLOR` (any value) and `TERM=dumb` turn it off, `FORCE_COLOR` turns it on. */
export function wantsColor(env: NodeJS.ProcessEnv): boolean {
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
	return env.TERM !== "dumb";
}

/** Cursor and screen control sequences (ECMA-48 / xterm). */
export const CSI = {
	up: (n: number) => (n > 0 ? `\x1b[${n}A` : ""),
	down: (n: number) => (n > 0 ? `\x1b[${n}B` : ""),
	column: (col: number) => `\x1b[${col + 1}G`,
	clearLine: "\x1b[2K",
	clearBelow: "\x1b[J",
	reset: "\x1b[0m",
	hideCursor: "\x1b[?25l",
	showCursor: "\x1b[?25h",
	/** Synchronized output (mode 2026): terminals that know it paint a frame at once; others ignore it. */
	beginFrame: "\x1b[?2026h",
	endFrame: "\x1b[?2026l",
	bracketedPasteOn: "\x1b[?2004h",
	bracketedPasteOff: "\x1b[?2004l",
} as const;
