/**
 * Rule E4: incremental parsing of streamed tool-call arguments.
 *
 * The parser is a character state machine that builds the value tree as it goes: containers get keys and
 * items appended, the string being written grows by appended slices. Every character is visited exactly
 * once, so the parsing work for one tool call is linear in the size of its arguments; nothing re-scans the
 * buffer. The exact final value still comes from a single `JSON.parse` of the whole text in `finish()`.
 */

/** The outcome of {@link IncrementalJsonParser.finish}: the exact value, or the JSON problem with its position. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Work counters of one parser. Diagnostic only: tests use them to pin linearity without timing anything. */
export interface IncrementalJsonWork {
	/**
	 * Characters visited, by the state machine, by the one `JSON.parse` of a first chunk that is a whole
	 * object, or by the one search of a chunk appended whole to a string; equals the input length when
	 * nothing is re-scanned.
	 */
	charsScanned: number;
	/** Snapshots built (lazily, on a `.value` read after a visible change). */
	snapshots: number;
	/** Container entries copied while building snapshots: the size of the open spine, summed. */
	entriesCopied: number;
}

type Frame =
	// `size`: the object's own keys, counted as values complete (a snapshot's cost without `Object.keys`).
	| { kind: "object"; value: Record<string, unknown>; key: string; size: number }
	| { kind: "array"; value: unknown[] };

enum Mode {
	Value, // a value must start here
	Key, // a key string (or `}` right after `{`) must start here
	Colon,
	AfterValue, // `,` or a closing bracket; at the root only whitespace
	String,
	Escape,
	Unicode,
	Number,
	Literal,
	Error,
}

// Numbers are gathered loosely by NUMBER_CHAR, then checked once against the JSON grammar at their delimiter.
const NUMBER_CHAR = /[0-9.eE+-]/;
const NUMBER_TOKEN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
// What ends a run of plain string characters: a quote, a backslash or a (forbidden) control character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON forbids here.
const STRING_STOP = /["\\\u0000-\u001f]/g;
// The same, searched for anywhere in a chunk (no `lastIndex` to keep).
const STRING_STOP_ANYWHERE = new RegExp(STRING_STOP.source);
// JSON whitespace only: other Unicode spaces are an error in JSON, not emptiness.
const JSON_BLANK = /^[ \t\n\r]*$/;
const ESCAPES: Record<string, string> = {
	'"': '"',
	"\\": "\\",
	"/": "/",
	b: "\b",
	f: "\f",
	n: "\n",
	r: "\r",
	t: "\t",
};
const LITERALS: Record<string, { text: string; value: unknown }> = {
	t: { text: "true", value: true },
	f: { text: "false", value: false },
	n: { text: "null", value: null },
};

function isWhitespace(code: number): boolean {
	return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

/**
 * A chunk that can be appended whole to the string being read: no quote, backslash or control character, and
 * not ending in the first half of a surrogate pair (that half waits for its pair, see `appendText`).
 */
function isPlainRun(chunk: string): boolean {
	return !STRING_STOP_ANYWHERE.test(chunk) && !isHighSurrogate(chunk.charCodeAt(chunk.length - 1));
}

/** Assign without tripping the `__proto__` setter: JSON.parse makes `"__proto__"` an ordinary own key. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
	if (key === "__proto__")
		Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
	else target[key] = value;
}

/**
 * Parses a JSON document that arrives in chunks (rule E4).
 *
 * - `value` is a best-effort partial value: strings appear with the text so far; numbers and `true`/`false`/
 *   `null` appear once complete; a key whose value has not started is omitted. It is a snapshot: later
 *   pushes never mutate it. Snapshots are built lazily (on the first read after a visible change) by copying
 *   only the open spine — the containers currently being written into, root to leaf — while every completed
 *   child is shared. The cost of one snapshot is therefore the number of entries in the open containers,
 *   never the size of the text, and snapshots are spaced so their total cost stays linear in the text
 *   (a huge open array is re-snapshotted only every "its size" characters).
 * - On malformed input the partial value stops updating and `finish()` reports the problem with its position.
 * - Empty (or whitespace-only) input finishes as `{}`: providers send no arguments for parameterless tools.
 *
 * @example
 * ```ts
 * const parser = new IncrementalJsonParser();
 * parser.push('{"path": "src/ma');
 * parser.value; // { path: "src/ma" }
 * parser.push('in.ts", "line": 4}');
 * parser.finish(); // { ok: true, value: { path: "src/main.ts", line: 4 } }
 * ```
 */
export class IncrementalJsonParser {
	/** Work counters, for tests and benchmarks. */
	readonly work: IncrementalJsonWork = { charsScanned: 0, snapshots: 0, entriesCopied: 0 };

	// Everything pushed before the current chunk, as one string grown by concatenation (a rope the engine
	// flattens once, at `finish`); its length is where the current chunk starts. Not an array of chunks: a
	// call of 1 MB is 16,000 deltas, and an array growing that long is copied again and again (and, in such a
	// call, made V8 deoptimize `push` as it grew).
	private raw = "";
	private mode: Mode = Mode.Value;
	private readonly stack: Frame[] = [];
	// The top-level value once complete (JSON has no `undefined`, so undefined means none yet). A field, not a
	// `{ value }` object made per parse: V8 builds such a literal's boilerplate on its second run, and the
	// field-type change that comes with it threw away the optimized delta path at the end of a process's
	// second call (`--trace-deopt`: `parsedArguments`, `get value`, `snapshot`).
	private rootValue: unknown;
	private error: string | undefined;
	private started = false; // a non-whitespace character has been seen
	// The string being read. A trailing high surrogate waits in `heldSurrogate` so that no snapshot shows half
	// of a pair split across chunks (raw or as two `\uXXXX` escapes).
	private text = "";
	private heldSurrogate = "";
	private stringIsKey = false;
	private token = ""; // number or literal characters so far
	private literal: { text: string; value: unknown } | undefined;
	private unicodeDigits = "";
	// True right after `{`, where `}` may close the object; false after `,` (a trailing comma is invalid).
	private keyExpectedFirst = false;
	private dirty = true;
	private cached: unknown;
	private lastSnapshotCost = 0;
	private charsAtSnapshot = 0;
	private finished: JsonParseResult | undefined;

	/** Feed the next piece of text. Ignored after `finish()`. */
	push(chunk: string): void {
		if (this.finished || chunk.length === 0) return;
		if (this.mode === Mode.String && this.heldSurrogate === "" && isPlainRun(chunk)) {
			// The usual delta of a long string value (a file being written): plain characters from end to
			// end, appended as one piece without a turn of the state machine. Each still counts as visited once.
			this.work.charsScanned += chunk.length;
			this.text += chunk;
			if (!this.stringIsKey) this.dirty = true;
		} else if (this.raw.length > 0 || !this.takeWhole(chunk)) {
			if (this.mode !== Mode.Error) this.scan(chunk);
		}
		this.raw += chunk;
	}

	/**
	 * Small arguments usually arrive whole, as one chunk: `{` … `}` that `JSON.parse` accepts. Its value is
	 * exactly what the state machine would build, and afterwards the machine stands where it would stand
	 * after scanning it (a complete top-level value, nothing open), so later chunks are scanned as usual.
	 * One native parse instead of a JavaScript loop per character, once per call; a chunk that only looks
	 * whole (an object still open) costs one failed parse and is then scanned, so the work stays linear.
	 */
	private takeWhole(chunk: string): boolean {
		const value = wholeObject(chunk);
		if (value === undefined) return false;
		this.adoptWhole(chunk, value);
		return true;
	}

	/**
	 * Begin with a first chunk already read by `wholeObject` as `value` (the builder reads a call's first
	 * delta that way and makes a parser only when more text follows): its characters are not parsed again.
	 */
	pushWhole(chunk: string, value: Record<string, unknown>): void {
		if (this.raw.length > 0 || this.finished)
			throw new Error("IncrementalJsonParser: pushWhole must be the first push");
		this.adoptWhole(chunk, value);
		this.raw += chunk;
	}

	private adoptWhole(chunk: string, value: Record<string, unknown>): void {
		this.work.charsScanned += chunk.length;
		this.started = true;
		this.rootValue = value;
		this.mode = Mode.AfterValue;
		this.dirty = true;
	}

	/** The best-effort partial value so far (`undefined` until the top-level value starts). Never mutated later. */
	get value(): unknown {
		if (this.dirty && this.snapshotDue()) {
			const before = this.work.entriesCopied;
			this.cached = this.snapshot();
			this.lastSnapshotCost = this.work.entriesCopied - before;
			this.charsAtSnapshot = this.work.charsScanned;
			this.dirty = false;
		}
		return this.cached;
	}

	/**
	 * Amortization (rule E4): a snapshot copies the open containers, so a huge array still being written
	 * would cost O(n) per delta and O(n²) per call. A new snapshot is built only once at least as many
	 * characters arrived since the last one as that one copied entries; until then readers get the previous
	 * (slightly stale, still best-effort) value. Total snapshot work stays linear in the text; small
	 * containers still get a fresh snapshot on every delta.
	 */
	private snapshotDue(): boolean {
		if (this.cached === undefined || this.stack.length === 0) return true; // nothing to copy, or complete
		return this.work.charsScanned - this.charsAtSnapshot >= this.lastSnapshotCost;
	}

	/** The raw text pushed so far (used off the hot path, e.g. when parsing failed). */
	get rawText(): string {
		return this.raw;
	}

	/**
	 * Parse the whole text once with `JSON.parse` (rule E4: final arguments are parsed once). On failure the
	 * error names the JSON problem and its position. Idempotent.
	 */
	finish(): JsonParseResult {
		if (this.finished) return this.finished;
		const text = this.raw;
		if (!this.started && this.mode !== Mode.Error) {
			this.finished = { ok: true, value: {} };
			return this.finished;
		}
		try {
			this.finished = { ok: true, value: JSON.parse(text) };
		} catch (error) {
			this.finished = { ok: false, error: this.error ?? this.endProblem(text.length, error) };
		}
		return this.finished;
	}

	private endProblem(length: number, parseError: unknown): string {
		if (this.mode === Mode.AfterValue && this.stack.length === 0)
			return parseError instanceof Error ? parseError.message : String(parseError);
		const what =
			this.mode === Mode.String || this.mode === Mode.Escape || this.mode === Mode.Unicode
				? "unterminated string"
				: this.stack.length > 0
					? `unclosed ${this.stack[this.stack.length - 1]?.kind}`
					: "incomplete value";
		return `Unexpected end of JSON input at position ${length} (${what})`;
	}

	private fail(message: string, index: number): void {
		// Freeze the partial value as it stood before the problem; nothing updates it afterwards.
		void this.value;
		this.mode = Mode.Error;
		this.error = `${message} at position ${this.raw.length + index}`;
	}

	private scan(chunk: string): void {
		let i = 0;
		let sliceStart = -1; // start of the pending run of plain string characters in this chunk
		for (; i < chunk.length && this.mode !== Mode.Error; i++) {
			this.work.charsScanned++;
			const code = chunk.charCodeAt(i);
			switch (this.mode) {
				case Mode.String:
					if (code === 0x22 || code === 0x5c) {
						if (sliceStart >= 0) this.appendText(chunk.slice(sliceStart, i));
						sliceStart = -1;
						if (code === 0x22) this.endString();
						else this.mode = Mode.Escape;
					} else if (code < 0x20) this.fail("Bad control character in string", i);
					else {
						if (sliceStart < 0) sliceStart = i;
						// The rest of the run in one native search instead of one loop turn per character; the
						// skipped characters still count as visited, each exactly once.
						STRING_STOP.lastIndex = i + 1;
						const stop = STRING_STOP.exec(chunk);
						const next = stop ? stop.index : chunk.length;
						this.work.charsScanned += next - (i + 1);
						i = next - 1;
					}
					break;
				case Mode.Escape:
					this.readEscape(chunk[i] as string, i);
					break;
				case Mode.Unicode:
					this.readUnicodeDigit(chunk[i] as string, i);
					break;
				case Mode.Number:
					if (NUMBER_CHAR.test(chunk[i] as string)) this.token += chunk[i];
					else {
						// Only a delimiter proves a number complete; the delimiter then belongs to the structure.
						this.endNumber(i);
						if ((this.mode as Mode) !== Mode.Error && !isWhitespace(code))
							this.structural(chunk[i] as string, i);
					}
					break;
				case Mode.Literal:
					this.readLiteral(chunk[i] as string, i);
					break;
				default:
					if (!isWhitespace(code)) this.structural(chunk[i] as string, i);
			}
		}
		if (this.mode === Mode.String && sliceStart >= 0) this.appendText(chunk.slice(sliceStart, i));
	}

	private structural(char: string, index: number): void {
		this.started = true;
		switch (this.mode) {
			case Mode.Value:
				this.startValue(char, index);
				return;
			case Mode.Key:
				if (char === '"') {
					this.stringIsKey = true;
					this.text = "";
					this.mode = Mode.String;
				} else if (char === "}" && this.emptyContainer()) this.closeContainer("object", index);
				else this.fail(`Expected a property name but found '${char}'`, index);
				return;
			case Mode.Colon:
				if (char === ":") this.mode = Mode.Value;
				else this.fail(`Expected ':' after property name but found '${char}'`, index);
				return;
			case Mode.AfterValue: {
				const top = this.stack[this.stack.length - 1];
				if (!top) {
					this.fail(`Unexpected '${char}' after the end of the JSON value`, index);
					return;
				}
				if (char === ",") {
					this.mode = top.kind === "object" ? Mode.Key : Mode.Value;
					this.keyExpectedFirst = false;
				} else if (char === "}" || char === "]")
					this.closeContainer(char === "}" ? "object" : "array", index);
				else this.fail(`Expected ',' or '${top.kind === "object" ? "}" : "]"}' but found '${char}'`, index);
			}
		}
	}

	private emptyContainer(): boolean {
		const top = this.stack[this.stack.length - 1];
		return top !== undefined && (top.kind === "array" ? top.value.length === 0 : this.keyExpectedFirst);
	}

	private startValue(char: string, index: number): void {
		this.keyExpectedFirst = false;
		if (char === "{") {
			this.stack.push({ kind: "object", value: {}, key: "", size: 0 });
			this.mode = Mode.Key;
			this.keyExpectedFirst = true;
			this.dirty = true;
		} else if (char === "[") {
			this.stack.push({ kind: "array", value: [] });
			this.mode = Mode.Value;
			this.dirty = true;
		} else if (char === '"') {
			this.stringIsKey = false;
			this.text = "";
			this.mode = Mode.String;
			this.dirty = true;
		} else if (char === "-" || (char >= "0" && char <= "9")) {
			this.token = char;
			this.mode = Mode.Number;
		} else if (LITERALS[char]) {
			this.literal = LITERALS[char];
			this.token = char;
			this.mode = Mode.Literal;
		} else if (char === "]" && this.emptyContainer()) this.closeContainer("array", index);
		else this.fail(`Unexpected '${char}' where a value should start`, index);
	}

	private closeContainer(kind: "object" | "array", index: number): void {
		const top = this.stack[this.stack.length - 1];
		if (!top || top.kind !== kind) {
			this.fail(`Unexpected '${kind === "object" ? "}" : "]"}'`, index);
			return;
		}
		this.stack.pop();
		this.completeValue(top.value);
	}

	/** Attach a finished value to its parent; from now on it is shared by every snapshot, never mutated. */
	private completeValue(value: unknown): void {
		const top = this.stack[this.stack.length - 1];
		if (!top) this.rootValue = value;
		else if (top.kind === "array") top.value.push(value);
		else {
			if (!Object.hasOwn(top.value, top.key)) top.size++; // a repeated key replaces, as in JSON.parse
			setKey(top.value, top.key, value);
		}
		this.mode = Mode.AfterValue;
		this.dirty = true;
	}

	private appendText(piece: string): void {
		if (piece.length === 0) return;
		let text = this.heldSurrogate + piece;
		this.heldSurrogate = "";
		if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
			this.heldSurrogate = text.slice(-1);
			text = text.slice(0, -1);
		}
		this.text += text;
		if (!this.stringIsKey && text.length > 0) this.dirty = true;
	}

	private endString(): void {
		const text = this.text + this.heldSurrogate;
		this.text = "";
		this.heldSurrogate = "";
		if (this.stringIsKey) {
			const top = this.stack[this.stack.length - 1];
			if (top?.kind === "object") top.key = text;
			this.mode = Mode.Colon;
		} else this.completeValue(text);
	}

	private readEscape(char: string, index: number): void {
		if (char === "u") {
			this.unicodeDigits = "";
			this.mode = Mode.Unicode;
			return;
		}
		const decoded = ESCAPES[char];
		if (decoded === undefined) {
			this.fail(`Bad escaped character '\\${char}' in string`, index);
			return;
		}
		this.mode = Mode.String;
		this.appendText(decoded);
	}

	private readUnicodeDigit(char: string, index: number): void {
		if (!/[0-9a-fA-F]/.test(char)) {
			this.fail(`Bad Unicode escape digit '${char}'`, index);
			return;
		}
		this.unicodeDigits += char;
		if (this.unicodeDigits.length < 4) return;
		this.mode = Mode.String;
		this.appendText(String.fromCharCode(Number.parseInt(this.unicodeDigits, 16)));
	}

	private readLiteral(char: string, index: number): void {
		const literal = this.literal as { text: string; value: unknown };
		if (literal.text[this.token.length] !== char) {
			this.fail(`Unexpected '${char}' in literal '${literal.text}'`, index);
			return;
		}
		this.token += char;
		if (this.token.length === literal.text.length) this.completeValue(literal.value);
	}

	private endNumber(index: number): void {
		if (!NUMBER_TOKEN.test(this.token)) {
			this.fail(`Malformed number '${this.token}'`, index);
			return;
		}
		this.completeValue(Number(this.token));
	}

	/** Copy the open spine bottom-up, attaching the in-progress string; completed children are shared. */
	private snapshot(): unknown {
		this.work.snapshots++;
		let child: unknown;
		let hasChild = false;
		if (
			!this.stringIsKey &&
			(this.mode === Mode.String || this.mode === Mode.Escape || this.mode === Mode.Unicode)
		) {
			child = this.text;
			hasChild = true;
		}
		for (let depth = this.stack.length - 1; depth >= 0; depth--) {
			const frame = this.stack[depth] as Frame;
			if (frame.kind === "array") {
				this.work.entriesCopied += frame.value.length;
				const copy = frame.value.slice();
				if (hasChild) copy.push(child);
				child = copy;
			} else {
				const copy = { ...frame.value };
				this.work.entriesCopied += frame.size;
				if (hasChild) setKey(copy, frame.key, child);
				child = copy;
			}
			hasChild = true;
		}
		return hasChild ? child : this.rootValue;
	}
}

/**
 * The value of `text` when it is one whole JSON object — `{` first, `}` last, and valid — else undefined.
 * Small tool arguments usually arrive as one such delta; its value is what the incremental parser would
 * build from it, for one native parse (see `IncrementalJsonParser`'s first chunk, and the builder's).
 */
export function wholeObject(text: string): Record<string, unknown> | undefined {
	if (text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d) return undefined;
	try {
		return JSON.parse(text) as Record<string, unknown>;
	} catch {
		return undefined;
	}
}

/**
 * Parse a complete tool-argument text once (rule E4). Empty or whitespace-only text is `{}`; on failure the
 * error names the JSON problem and its position.
 */
export function parseJsonText(text: string): JsonParseResult {
	// Valid text needs no state machine: its value is `JSON.parse`'s, as in `finish()`. Only a failure takes
	// the parser, for its error message and position.
	if (JSON_BLANK.test(text)) return { ok: true, value: {} };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		// Fall through to the parser below.
	}
	const parser = new IncrementalJsonParser();
	parser.push(text);
	return parser.finish();
}
