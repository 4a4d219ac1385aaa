/**
 * Keys to editor actions. Node's `readline.emitKeypressEvents` decodes the byte stream (CSI and SS3
 * sequences, Alt as an ESC prefix, UTF-8, bracketed paste markers); this module only decides what each
 * decoded key means here. A lone Esc is ambiguous with the start of a sequence until a short timeout passes.
 */
import { emitKeypressEvents } from "node:readline";

/** A decoded key as `readline` reports it. */
export interface KeyPress {
	sequence?: string;
	name?: string;
	ctrl?: boolean;
	meta?: boolean;
	shift?: boolean;
}

/** What a key asks the interactive mode to do. */
export type KeyAction =
	| { type: "insert"; text: string }
	| { type: "submit" }
	| { type: "submitLater" }
	| { type: "backspace" }
	| { type: "delete" }
	| { type: "left" }
	| { type: "right" }
	| { type: "wordLeft" }
	| { type: "wordRight" }
	| { type: "home" }
	| { type: "end" }
	| { type: "deleteWordBack" }
	| { type: "killToStart" }
	| { type: "killToEnd" }
	| { type: "historyPrev" }
	| { type: "historyNext" }
	| { type: "complete" }
	| { type: "escape" }
	| { type: "interrupt" }
	| { type: "eof" }
	| { type: "toggleThinking" }
	| { type: "redraw" }
	| { type: "pasteStart" }
	| { type: "pasteEnd" }
	| { type: "ignore" };

const CTRL: Record<string, KeyAction["type"]> = {
	a: "home",
	e: "end",
	b: "left",
	f: "right",
	u: "killToStart",
	k: "killToEnd",
	w: "deleteWordBack",
	h: "backspace",
	p: "historyPrev",
	n: "historyNext",
	c: "interrupt",
	d: "eof",
	t: "toggleThinking",
	l: "redraw",
};

const NAMED: Record<string, KeyAction["type"]> = {
	backspace: "backspace",
	delete: "delete",
	left: "left",
	right: "right",
	home: "home",
	end: "end",
	up: "historyPrev",
	down: "historyNext",
	tab: "complete",
	escape: "escape",
	"paste-start": "pasteStart",
	"paste-end": "pasteEnd",
};

/**
 * Map one key to an action. Inside a bracketed paste every key is text (a pasted newline must not send).
 * Alt+Enter arrives as ESC CR, which `readline` reports as `return` with `meta`.
 */
export function keyAction(text: string | undefined, key: KeyPress | undefined, pasting: boolean): KeyAction {
	const name = key?.name;
	if (name === "paste-end") return { type: "pasteEnd" };
	if (pasting) {
		if (name === "return" || name === "enter") return { type: "insert", text: "\n" };
		return text ? { type: "insert", text } : { type: "ignore" };
	}
	if (name === "return" || name === "enter") return { type: key?.meta ? "submitLater" : "submit" };
	if (key?.ctrl && name !== undefined) {
		const action = CTRL[name];
		if (action) return { type: action } as KeyAction;
		if (name === "left") return { type: "wordLeft" };
		if (name === "right") return { type: "wordRight" };
		return { type: "ignore" };
	}
	if (key?.meta && name !== undefined) {
		if (name === "b" || name === "left") return { type: "wordLeft" };
		if (name === "f" || name === "right") return { type: "wordRight" };
		if (name === "backspace") return { type: "deleteWordBack" };
		if (name === "escape") return { type: "escape" };
		return { type: "ignore" };
	}
	if (name !== undefined) {
		const action = NAMED[name];
		if (action) return { type: action } as KeyAction;
	}
	// Printable text: letters, digits, punctuation, any non-ASCII character; never a control character.
	if (text && !hasControlCharacter(text)) return { type: "insert", text };
	return { type: "ignore" };
}

function hasControlCharacter(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x20 || code === 0x7f) return true;
	}
	return false;
}

/** The terminal input: raw mode, decoded keys, and the way back to cooked mode. */
export interface KeyInput {
	on(event: "keypress", listener: (text: string | undefined, key: KeyPress | undefined) => void): unknown;
	off(event: "keypress", listener: (text: string | undefined, key: KeyPress | undefined) => void): unknown;
	setRawMode?(mode: boolean): unknown;
	resume(): unknown;
	pause(): unknown;
	readonly isTTY?: boolean;
}

/** How long a lone Esc waits for the rest of a sequence: long enough for a pty, short enough to feel instant. */
export const ESCAPE_TIMEOUT_MS = 50;

/** Options for {@link readKeys}. */
export interface ReadKeysOptions {
	/**
	 * How long a lone Esc waits for the rest of a sequence, in ms; {@link ESCAPE_TIMEOUT_MS} unless given.
	 * `readline` runs this timer itself (out of reach of fake timers), so a test passes 0 and awaits the key.
	 */
	escapeTimeoutMs?: number;
}

/**
 * Start reading keys from `input` in raw mode; returns a function that restores the terminal.
 * `readline` takes the Esc timeout from its second argument (an interface, or any object carrying it).
 */
export function readKeys(
	input: NodeJS.ReadableStream & KeyInput,
	onKey: (text: string | undefined, key: KeyPress | undefined) => void,
	options: ReadKeysOptions = {},
): () => void {
	const escapeCodeTimeout = options.escapeTimeoutMs ?? ESCAPE_TIMEOUT_MS;
	emitKeypressEvents(input, { escapeCodeTimeout } as unknown as Parameters<typeof emitKeypressEvents>[1]);
	input.setRawMode?.(true);
	input.on("keypress", onKey);
	input.resume();
	return () => {
		input.off("keypress", onKey);
		input.setRawMode?.(false);
		input.pause();
	};
}
