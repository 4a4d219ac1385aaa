import { once } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { type KeyAction, keyAction, readKeys } from "../../src/cli/interactive/keys.js";
import { LineEditor } from "../../src/cli/interactive/line-editor.js";
import { graphemes } from "../../src/cli/interactive/text-width.js";

/**
 * Decode raw terminal bytes through the real readline decoder into actions. Waits for what it can see: the
 * input's end, and for a trailing Esc (which might start a sequence) the escape key that readline reports
 * once its timeout passes; the timeout is 0 here, as readline's own timer is out of reach of fake timers.
 */
async function decode(chunks: string[]): Promise<KeyAction[]> {
	const input = new PassThrough();
	const actions: KeyAction[] = [];
	let pasting = false;
	let sawEscape = (): void => {};
	const escaped = new Promise<void>((resolve) => {
		sawEscape = resolve;
	});
	const stop = readKeys(
		input as unknown as NodeJS.ReadStream,
		(text, key) => {
			const action = keyAction(text, key, pasting);
			if (action.type === "pasteStart") pasting = true;
			if (action.type === "pasteEnd") pasting = false;
			if (action.type === "escape") sawEscape();
			actions.push(action);
		},
		{ escapeTimeoutMs: 0 },
	);
	const ended = once(input, "end");
	for (const chunk of chunks) input.write(chunk);
	input.end();
	await ended;
	if (chunks.at(-1)?.endsWith("\x1b")) await escaped;
	stop();
	return actions;
}

describe("keys: terminal bytes to actions", () => {
	it("tells a lone Esc from escape sequences and Alt+Enter (ESC CR)", async () => {
		expect(await decode(["\x1b"])).toEqual([{ type: "escape" }]);
		expect(await decode(["\x1b[A", "\x1b[B", "\x1b[D", "\x1b[C", "\x1bOH"])).toEqual([
			{ type: "historyPrev" },
			{ type: "historyNext" },
			{ type: "left" },
			{ type: "right" },
			{ type: "home" },
		]);
		expect(await decode(["\x1b\r"])).toEqual([{ type: "submitLater" }]);
		expect(await decode(["\r"])).toEqual([{ type: "submit" }]);
	});

	it("reads Ctrl keys and non-ASCII text", async () => {
		expect(await decode(["\x03", "\x04", "\x14", "é", "中", "👍"])).toEqual([
			{ type: "interrupt" },
			{ type: "eof" },
			{ type: "toggleThinking" },
			{ type: "insert", text: "é" },
			{ type: "insert", text: "中" },
			{ type: "insert", text: "👍" },
		]);
	});

	it("keeps a bracketed paste as text: its newline does not send", async () => {
		const actions = await decode(["\x1b[200~a\rb\x1b[201~"]);
		expect(actions).toEqual([
			{ type: "pasteStart" },
			{ type: "insert", text: "a" },
			{ type: "insert", text: "\n" },
			{ type: "insert", text: "b" },
			{ type: "pasteEnd" },
		]);
	});

	it("ignores control characters it has no meaning for", () => {
		expect(keyAction("\x07", { name: "g", ctrl: true }, false)).toEqual({ type: "ignore" });
		expect(keyAction("\x1b[15~", { name: "f5" }, false)).toEqual({ type: "ignore" });
	});
});

describe("LineEditor: editing by grapheme, layout by cell", () => {
	it("moves and deletes whole graphemes (emoji sequences, combining accents)", () => {
		const e = new LineEditor();
		e.insert("a👨‍👩‍👧e\u0301");
		e.backspace();
		expect(e.value).toBe("a👨‍👩‍👧");
		e.left();
		e.insert("-");
		expect(e.value).toBe("a-👨‍👩‍👧");
		e.home();
		e.delete();
		expect(e.value).toBe("-👨‍👩‍👧");
	});

	it("word motions, kill to start and end, history with the draft kept", () => {
		const e = new LineEditor();
		e.insert("one two three");
		e.deleteWordBack();
		expect(e.value).toBe("one two ");
		e.wordLeft();
		e.killToEnd();
		expect(e.value).toBe("one ");
		e.insert("x");
		expect(e.take()).toBe("one x");
		e.insert("second");
		expect(e.take()).toBe("second");
		e.insert("draft");
		e.historyPrev();
		expect(e.value).toBe("second");
		e.historyPrev();
		expect(e.value).toBe("one x");
		e.historyNext();
		e.historyNext();
		expect(e.value).toBe("draft");
		e.killToStart();
		expect(e.value).toBe("");
	});

	it("lays out wide characters by cell and puts the cursor after them", () => {
		const e = new LineEditor();
		e.insert("中文ab");
		expect(e.layout("› ", 2, 20, 5)).toEqual({ rows: ["› 中文ab"], cursorRow: 0, cursorCol: 8 });
		e.left();
		e.left();
		expect(e.layout("› ", 2, 20, 5).cursorCol).toBe(6);
	});

	it("wraps a long input on a narrow terminal and keeps the cursor row in view", () => {
		const e = new LineEditor();
		e.insert("x".repeat(25));
		const layout = e.layout("› ", 2, 10, 2);
		expect(layout.rows).toEqual(["xxxxxxxxxx", "xxxxxxx"]);
		expect(layout).toMatchObject({ cursorRow: 1, cursorCol: 7 });
		e.insert("\nz");
		expect(e.layout("› ", 2, 40, 3).rows).toEqual([`› ${"x".repeat(25)}↵z`]);
	});
});

describe("graphemes: long text", () => {
	it("segments a long text exactly as one Intl.Segmenter pass does", () => {
		const pieces = [
			"ab",
			"👨‍👩‍👧",
			"e\u0301",
			"🇺🇸",
			"\r\n",
			"한국어",
			"\u0915\u094d\u0937",
			" x ",
			"中文",
			"\n",
		];
		let text = "";
		for (let i = 0; text.length < 5000; i++) text += pieces[i % pieces.length]?.repeat(1 + (i % 7));
		const whole = Array.from(
			new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text),
			(s) => s.segment,
		);
		expect(graphemes(text)).toEqual(whole);
	});
});
