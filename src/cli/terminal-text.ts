/**
 * Text from the model, its tools and the files they read goes to the user's terminal, where control
 * characters are commands: a file name or a command's output holding `ESC ] 52 ;` could write the
 * clipboard, `ESC [ 2 J` clear the screen, a carriage return overwrite what was shown. Before anything is
 * written, every control character but line feed and tab becomes its visible picture (`␛`, `␍`, …); the
 * only escape sequences kept are SGR ones (`ESC [ … m`), the colours and weights the command itself uses.
 */

/** An SGR sequence (kept), or one control character other than tab and line feed (shown as a picture). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
const CONTROL = /\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` with its control characters made visible; SGR colour sequences, tabs and line feeds kept. */
export function terminalText(text: string): string {
	return text.replace(CONTROL, picture);
}

function picture(match: string): string {
	if (match.length > 1) return match;
	const code = match.charCodeAt(0);
	if (code < 0x20) return String.fromCharCode(0x2400 + code);
	if (code === 0x7f) return "\u2421";
	// C1 controls (0x80–0x9f; 0x9b is a one-byte CSI on some terminals) have no pictures.
	return "\ufffd";
}
