import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IncrementalJsonParser, parseJsonText, wholeObject } from "../../src/core/partial-json.js";

function parseInChunks(chunks: string[]): { parser: IncrementalJsonParser; snapshots: unknown[] } {
	const parser = new IncrementalJsonParser();
	const snapshots: unknown[] = [];
	for (const chunk of chunks) {
		parser.push(chunk);
		snapshots.push(parser.value);
	}
	return { parser, snapshots };
}

function deepFreeze<T>(value: T): T {
	if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const child of Object.values(value)) deepFreeze(child);
	}
	return value;
}

/** An intermediate snapshot may only ever grow into the final value (SPEC E4 best-effort partials). */
function isPrefixConsistent(partial: unknown, final: unknown, last = true): boolean {
	if (partial === undefined) return true;
	if (typeof partial === "string")
		return typeof final === "string" && (last ? final.startsWith(partial) : final === partial);
	if (Array.isArray(partial)) {
		if (!Array.isArray(final) || partial.length > final.length) return false;
		return partial.every((item, i) => isPrefixConsistent(item, final[i], last && i === partial.length - 1));
	}
	if (partial !== null && typeof partial === "object") {
		if (final === null || typeof final !== "object" || Array.isArray(final)) return false;
		const keys = Object.keys(partial);
		const finalRecord = final as Record<string, unknown>;
		return keys.every(
			(key, i) =>
				Object.hasOwn(finalRecord, key) &&
				isPrefixConsistent(
					(partial as Record<string, unknown>)[key],
					finalRecord[key],
					last && i === keys.length - 1,
				),
		);
	}
	return Object.is(partial, final);
}

describe("IncrementalJsonParser partial values (SPEC E4)", () => {
	it.each([
		["", undefined],
		["   ", undefined],
		["{", {}],
		['{"pa', {}],
		['{"path"', {}],
		['{"path":', {}],
		['{"path": ', {}],
		['{"path": "', { path: "" }],
		['{"path": "src/ma', { path: "src/ma" }],
		['{"path": "a\\', { path: "a" }],
		['{"path": "a\\n', { path: "a\n" }],
		['{"path": "a\\u00', { path: "a" }],
		['{"path": "a\\u00e9', { path: "aé" }],
		['{"path": "a\\ud83d', { path: "a" }], // half a surrogate pair is held back
		['{"path": "a\\ud83d\\ude00', { path: "a😀" }],
		['{"n": tru', {}],
		['{"n": true', { n: true }],
		['{"n": nul', {}],
		['{"n": null', { n: null }],
		['{"n": -1.', {}],
		['{"n": -1.5', {}], // a number is only known complete at its delimiter
		['{"n": -1.5 ', { n: -1.5 }],
		['{"n": -1.5,', { n: -1.5 }],
		['{"n": 1e3}', { n: 1000 }],
		['{"a": [', { a: [] }],
		['{"a": [1, 2', { a: [1] }],
		['{"a": [1, 2,', { a: [1, 2] }],
		['{"a": [1, {"b": "x', { a: [1, { b: "x" }] }],
		['{"a": [1, {"b": "x"}], "c": {"d": [', { a: [1, { b: "x" }], c: { d: [] } }],
		["[", []],
		['"hal', "hal"],
		["42", undefined],
		["42 ", 42],
	])("%j → %j", (text, expected) => {
		const parser = new IncrementalJsonParser();
		parser.push(text);
		expect(parser.value).toEqual(expected);
	});

	it("keeps escapes intact when every character arrives alone (SPEC E4)", () => {
		const text = JSON.stringify({ s: 'q"uo\\te\n\t\u0001é😀/', t: ["\ud83d\ude00x"] });
		const { parser, snapshots } = parseInChunks([...text].flatMap((c) => c.split("")));
		expect(parser.finish()).toEqual({ ok: true, value: JSON.parse(text) });
		const final = JSON.parse(text);
		for (const snapshot of snapshots) expect(isPrefixConsistent(snapshot, final)).toBe(true);
	});

	it("joins a raw surrogate pair split across chunks without showing half of it", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"e": "a\ud83d');
		expect(parser.value).toEqual({ e: "a" });
		parser.push('\ude00"}');
		expect(parser.value).toEqual({ e: "a😀" });
	});

	it("treats a __proto__ key as data, like JSON.parse", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"__proto__": {"x": 1}, "y": "');
		const partial = parser.value as Record<string, unknown>;
		expect(Object.getPrototypeOf(partial)).toBe(Object.prototype);
		expect(Object.hasOwn(partial, "__proto__")).toBe(true);
		parser.push('z"}');
		expect(parser.value).toEqual(JSON.parse('{"__proto__": {"x": 1}, "y": "z"}'));
	});
});

describe("IncrementalJsonParser.finish (SPEC E4)", () => {
	const documents = [
		'{"path": "src/main.ts", "edits": [{"old": "a\\nb", "new": "\\u00e9\\ud83d\\ude00"}], "dry": false, "n": -12.5e-3}',
		' [1, [2, [3, {"k": null}]], "x", true] ',
		'{"empty": {}, "list": [], "s": "", "z": 0}',
		'"just a string"',
		"  -0.25e+2  ",
	];

	it.each(documents)("every split point of %j finishes equal to JSON.parse", (text) => {
		for (let split = 0; split <= text.length; split++) {
			const { parser } = parseInChunks([text.slice(0, split), text.slice(split)]);
			expect(parser.finish()).toEqual({ ok: true, value: JSON.parse(text) });
		}
	});

	it("parses empty or whitespace-only arguments as {} (parameterless tools)", () => {
		expect(parseJsonText("")).toEqual({ ok: true, value: {} });
		expect(parseJsonText(" \n ")).toEqual({ ok: true, value: {} });
	});

	it.each([
		['{"a": 1,}', "Expected a property name but found '}' at position 8"],
		['{"a": {}, }', "Expected a property name but found '}' at position 10"],
		["[{}, ]", "Unexpected ']' where a value should start at position 5"],
		['{"a" 1}', "Expected ':' after property name but found '1' at position 5"],
		['{"a": [1 2]}', "Expected ',' or ']' but found '2' at position 9"],
		['{"a": tru}', "Unexpected '}' in literal 'true' at position 9"],
		['{"a": 01}', "Malformed number '01' at position 8"],
		['{"a": "\\x"}', "Bad escaped character '\\x' in string at position 8"],
		['{"a": "x', "Unexpected end of JSON input at position 8 (unterminated string)"],
		['{"a": [1', "Unexpected end of JSON input at position 8 (unclosed array)"],
		['{"a": 1} {', "Unexpected '{' after the end of the JSON value at position 9"],
		["nope", "Unexpected 'o' in literal 'null' at position 1"],
	])("reports %j as a JSON problem with its position", (text, error) => {
		expect(parseJsonText(text)).toEqual({ ok: false, error });
	});

	it("stops updating the partial value at the first problem", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"a": "x", "b": 1 "c": "more');
		const frozen = parser.value;
		expect(frozen).toEqual({ a: "x", b: 1 });
		parser.push('", "d": 2}');
		expect(parser.value).toBe(frozen);
		expect(parser.finish().ok).toBe(false);
	});

	it("is idempotent and ignores pushes after finish", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"a": 1}');
		const first = parser.finish();
		parser.push("garbage");
		expect(parser.finish()).toBe(first);
	});
});

describe("IncrementalJsonParser properties (SPEC E4)", () => {
	const chunked = fc
		.tuple(
			fc.jsonValue({ stringUnit: "binary" }),
			fc.integer({ min: 0, max: 3 }),
			fc.array(fc.nat(), { maxLength: 40 }),
		)
		.map(([value, indent, cuts]) => {
			const text = JSON.stringify(value, null, indent);
			const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
			const chunks: string[] = [];
			let previous = 0;
			for (const point of [...points, text.length]) {
				chunks.push(text.slice(previous, point));
				previous = point;
			}
			return { text, chunks };
		});

	// A chunk of plain string characters is appended whole, without the state machine: after every push the
	// value must be the one the state machine gives for the same text read in one piece (one open string in
	// one object: nothing is amortized, so every read is a fresh snapshot on both sides).
	it("appends plain runs of a long string exactly as the state machine reads them", () => {
		const document = fc
			.tuple(
				fc.string({ unit: "binary", maxLength: 300 }),
				fc.constantFrom("data", 'a"b', "\ud83d"),
				fc.array(fc.nat(), { maxLength: 30 }),
			)
			.map(([value, key, cuts]) => {
				const text = JSON.stringify({ [key]: value });
				const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
				return { text, points: [...points, text.length] };
			});
		fc.assert(
			fc.property(document, ({ text, points }) => {
				const parser = new IncrementalJsonParser();
				let previous = 0;
				for (const point of points) {
					parser.push(text.slice(previous, point));
					previous = point;
					const whole = new IncrementalJsonParser();
					whole.push(text.slice(0, point));
					expect(parser.value).toEqual(whole.value);
					expect(parser.work.charsScanned).toBe(point);
				}
				expect(parser.finish()).toEqual({ ok: true, value: JSON.parse(text) });
			}),
			{ numRuns: 500 },
		);
	});

	it("finishes equal to JSON.parse for any chunking; snapshots are prefix-consistent and never mutated", () => {
		fc.assert(
			fc.property(chunked, ({ text, chunks }) => {
				const parser = new IncrementalJsonParser();
				const kept: { snapshot: unknown; copy: unknown }[] = [];
				for (const chunk of chunks) {
					parser.push(chunk);
					// Frozen snapshots make any later in-place mutation by the parser throw.
					const snapshot = deepFreeze(parser.value);
					kept.push({ snapshot, copy: structuredClone(snapshot) });
				}
				const final = JSON.parse(text);
				parser.push(" "); // a delimiter completes a top-level number; then the built tree is the whole value
				expect(parser.value).toEqual(final);
				expect(parser.finish()).toEqual({ ok: true, value: final });
				for (const { snapshot, copy } of kept) {
					expect(snapshot).toEqual(copy);
					expect(isPrefixConsistent(snapshot, final)).toBe(true);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("agrees with JSON.parse on mutated documents and names the position of every problem", () => {
		const mutated = fc
			.tuple(
				fc.jsonValue({ maxDepth: 3 }),
				fc.nat(),
				fc.constantFrom("", ",", "}", "]", "{", "[", '"', ":", "\\", "x", "1", " ", "-", "e", "."),
				fc.boolean(),
			)
			.map(([value, at, insert, removeOne]) => {
				const text = JSON.stringify(value);
				const cut = at % (text.length + 1);
				return text.slice(0, cut) + insert + text.slice(removeOne ? cut + 1 : cut);
			});
		fc.assert(
			fc.property(mutated, (text) => {
				let valid = true;
				try {
					JSON.parse(text);
				} catch {
					valid = false;
				}
				if (text.trim() === "") return;
				const result = parseJsonText(text);
				expect(result.ok).toBe(valid);
				if (!result.ok) expect(result.error).toMatch(/at position \d+/);
			}),
			{ numRuns: 1000 },
		);
	});

	it("a whole object in one chunk reads as the character machine reads it, trailing text included (SPEC E4)", () => {
		const whole = fc.tuple(
			fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
			fc.integer({ min: 0, max: 2 }),
			fc.constantFrom("", " ", "\n ", "x", ",", "}", " 1", '"'),
		);
		fc.assert(
			fc.property(whole, ([value, indent, suffix]) => {
				const text = JSON.stringify(value, null, indent);
				const oneChunk = new IncrementalJsonParser();
				oneChunk.push(text);
				const afterWhole = oneChunk.value;
				oneChunk.push(suffix);
				const { parser: byChar } = parseInChunks([...text, ...suffix]);
				expect(afterWhole).toEqual(JSON.parse(text));
				expect(oneChunk.value).toEqual(byChar.value);
				expect(oneChunk.work.charsScanned).toBe(byChar.work.charsScanned);
				expect(oneChunk.finish()).toEqual(byChar.finish());
			}),
			{ numRuns: 300 },
		);
	});

	it("pushWhole starts from a value already read by wholeObject, without parsing it again (SPEC E4)", () => {
		const text = '{"ms": 100}';
		const value = wholeObject(text) as Record<string, unknown>;
		expect(value).toEqual({ ms: 100 });
		expect(wholeObject('{"ms": 1')).toBeUndefined();
		expect(wholeObject('{"a": 1} {"b": 2}')).toBeUndefined();
		const parser = new IncrementalJsonParser();
		parser.pushWhole(text, value);
		expect(parser.value).toBe(value);
		parser.push(" x");
		expect(parser.value).toBe(value);
		expect(parser.finish()).toEqual({
			ok: false,
			error: "Unexpected 'x' after the end of the JSON value at position 12",
		});
		expect(parser.work.charsScanned).toBe(13);
		expect(() => parser.pushWhole(text, value)).toThrow(/first push/);
	});

	it("an object that only looks whole in its first chunk is scanned on (SPEC E4)", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"a": {"b": 1}');
		expect(parser.value).toEqual({ a: { b: 1 } });
		parser.push(', "c": "d"}');
		expect(parser.value).toEqual({ a: { b: 1 }, c: "d" });
		expect(parser.work.charsScanned).toBe(25);
		expect(parser.finish()).toEqual({ ok: true, value: { a: { b: 1 }, c: "d" } });
	});

	it("visits every character exactly once, however the text is chunked", () => {
		fc.assert(
			fc.property(chunked, ({ text, chunks }) => {
				const { parser } = parseInChunks(chunks);
				expect(parser.work.charsScanned).toBe(text.length);
			}),
			{ numRuns: 200 },
		);
	});
});

describe("IncrementalJsonParser cost (SPEC E4, not timed)", () => {
	it("builds snapshots lazily and reuses them until something visible changes", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"a": "x"');
		parser.push(", ");
		parser.push('"b": 12');
		expect(parser.work.snapshots).toBe(0);
		const first = parser.value;
		expect(parser.value).toBe(first);
		parser.push("3"); // the number is not complete yet: nothing visible changed
		expect(parser.value).toBe(first);
		parser.push("}");
		expect(parser.value).not.toBe(first);
		expect(parser.work.snapshots).toBe(2);
	});

	it("copies only the open spine: a long streamed string costs O(1) entries per snapshot", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"done": [1, 2, 3], "nested": {"more": {"x": 1}}, "content": "');
		for (let i = 0; i < 10_000; i++) {
			parser.push("abcdefgh");
			void parser.value;
		}
		// Open spine = the root object (3 entries incl. the streaming string); completed children are shared.
		expect(parser.work.entriesCopied).toBeLessThanOrEqual(2 * 10_001);
		const value = parser.value as { content: string; done: number[] };
		expect(value.content.length).toBe(80_000);
		parser.push('"}');
		expect((parser.value as { done: number[] }).done).toBe(value.done);
	});

	it("SPEC E4: a huge array still being written costs linear snapshot work in total (snapshots are spaced)", () => {
		const parser = new IncrementalJsonParser();
		parser.push('{"rows": [');
		let text = 0;
		for (let i = 0; i < 20_000; i++) {
			const piece = `${i === 0 ? "" : ","}{"n":${i}}`;
			text += piece.length;
			parser.push(piece);
			void parser.value; // the builder reads the partial value on every delta
		}
		// Without spacing this would copy 1 + 2 + … + 20,000 ≈ 2·10^8 entries.
		expect(parser.work.entriesCopied).toBeLessThanOrEqual(2 * text + 20_000);
		expect((parser.value as { rows: unknown[] }).rows.length).toBeGreaterThan(10_000);
		parser.push("]}");
		expect((parser.value as { rows: unknown[] }).rows).toHaveLength(20_000);
	});
});
