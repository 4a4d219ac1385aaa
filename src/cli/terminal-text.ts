/**
 * Text from the model, its tools and the files they read goes to the user's terminal, where control
 * characters are commands: a file name or a command's output holding `ESC ] 52 ;` could write the
 * clipboard, `ESC [ 2 J` clear the screen, a carriage return overwrite what was shown. Before anything is
 * written, every control character but line feed and tab becomes its visible picture (`␛`, `␍`, …); the
 * only escape sequences kept are SGR ones (`ESC [ … m`) made of the codes the command itself styles with.
 * Other SGR codes can hide text — conceal (8), black (30), a colour that matches the background — and a
 * command to approve must not be able to hide its tail: they are shown as pictures too.
 */

/**
 * An SGR sequence; a carriage return that ends a line (CRLF text, or a line split off it at its LF), dropped;
 * or one control character other than tab and line feed (shown as a picture).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
const CONTROL = /\x1b\[([0-9;]*)m|(\r)(?=\n|$)|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * The SGR codes of the interactive palette (`interactive/ansi.ts`), the trace's dim and the reset; none of
 * them, in any combination, makes text invisible.
 */
const OWN_SGR_CODES = new Set(["", ..."0 1 2 3 4 7 22 23 24 27 31 32 33 34 35 36 39 90".split(" ")]);

/** `text` with its control characters made visible; the command's own SGR sequences, tabs and line feeds kept. */
export function terminalText(text: string): string {
	return text.replace(CONTROL, picture);
}

function picture(match: string, sgrCodes: string | undefined, lineEnd: string | undefined): string {
	if (lineEnd !== undefined) return "";
	if (sgrCodes !== undefined)
		return sgrCodes.split(";").every((code) => OWN_SGR_CODES.has(code)) ? match : `\u241b${match.slice(1)}`;
	const code = match.charCodeAt(0);
	if (code < 0x20) return String.fromCharCode(0x2400 + code);
	if (code === 0x7f) return "\u2421";
	// C1 controls (0x80–0x9f; 0x9b is a one-byte CSI on some terminals) have no pictures.
	return "\ufffd";
}
