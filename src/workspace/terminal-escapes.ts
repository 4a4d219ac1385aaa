/**
 * Terminal escape sequences in command output: colours (`ls --color`, npm, test runners), cursor moves,
 * window titles and hyperlinks. A terminal acts on them; for a model they are noise that costs tokens and
 * splits words (`\x1b[1m\x1b[31merror\x1b[39m\x1b[22m`). Matched: CSI (`ESC [` or the one-byte `0x9B`, then
 * parameters, intermediates and a final byte), OSC (`ESC ]` or `0x9D`, ended by BEL or ST), and the other
 * two- and three-byte escapes (`ESC ( B`, `ESC =`, `ESC 7`). A sequence cut off by the end of the text stays.
 */
const TERMINAL_ESCAPE =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this finds.
	/(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]/g;

/** `text` without its terminal escape sequences, as a model should read a command's output. */
export function withoutTerminalEscapes(text: string): string {
	return text.replace(TERMINAL_ESCAPE, "");
}
