import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readStringDelta } from "../../../src/providers/anthropic/string-delta.js";
import { chunkLines, fixtureBytes, fixturesFor } from "../support/fixtures.js";

// SPEC E2: the fast path for one-string deltas gives what the full parse gives, or nothing.

/** What `readStringDelta` must equal whenever it answers: the full parse's index and delta. */
function fullParse(data: string): { index: unknown; delta: unknown } | undefined {
	try {
		const value = JSON.parse(data) as { index?: unknown; delta?: unknown };
		return { index: value.index, delta: value.delta };
	} catch {
		return undefined;
	}
}

/** Every SSE data payload of every Anthropic Messages recording (JSONL chunks and raw SSE alike). */
function recordedPayloads(): string[] {
	const payloads: string[] = [];
	for (const fixture of fixturesFor(["anthropic-messages", "anthropic-messages-compatible"])) {
		if (fixture.format === "jsonl-chunks") payloads.push(...chunkLines(fixture));
		else
			for (const line of new TextDecoder().decode(fixtureBytes(fixture)).split(/\r?\n/))
				if (line.startsWith("data: ")) payloads.push(line.slice("data: ".length));
	}
	return payloads;
}

describe("readStringDelta: Anthropic's one-string deltas without the full parse (SPEC E2)", () => {
	it("reads every recorded one-string delta exactly as JSON.parse does, padded ones included", () => {
		const payloads = recordedPayloads().filter((data) => data.includes('"content_block_delta"'));
		let read = 0;
		let padded = 0;
		for (const data of payloads) {
			const fast = readStringDelta(data);
			const parsed = JSON.parse(data) as { type: string; index: number; delta: Record<string, unknown> };
			if (fast === undefined) {
				// Only what is not in the API's own serialization is left to the full parse (a compatible
				// server's other key order, say).
				const [kind, value] = Object.entries(parsed.delta).find(([key]) => key !== "type") ?? [];
				const own = `{"type":"content_block_delta","index":${parsed.index},"delta":{"type":"${String(parsed.delta.type)}","${kind}":${JSON.stringify(value)}}}`;
				const oneString =
					Object.keys(parsed.delta).length === 2 &&
					["text_delta", "thinking_delta", "signature_delta", "input_json_delta"].includes(
						String(parsed.delta.type),
					);
				expect(oneString && own === data.replace(/ +}$/, "}")).toBe(false);
				continue;
			}
			expect(fast).toEqual({ index: parsed.index, delta: parsed.delta });
			expect(Object.keys(fast.delta)).toEqual(Object.keys(parsed.delta));
			read++;
			if (/ +}$/.test(data)) padded++;
		}
		expect(read).toBeGreaterThan(1500);
		expect(padded).toBeGreaterThan(200);
	});

	it.each([
		["another event", '{"type":"content_block_stop","index":0}'],
		[
			"a delta of another kind",
			'{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}',
		],
		[
			"a leading zero in the index (invalid JSON)",
			'{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
		],
		["no index", '{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"a"}}'],
		["other spacing", '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}'],
		["other key order", '{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}'],
		[
			"a second field",
			'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}',
		],
		[
			"a value that is not a string",
			'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}',
		],
		[
			"a broken string",
			'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\x"}}',
		],
		["a cut-off event", '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}'],
		[
			"a key after the delta",
			'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":1}',
		],
		[
			"an inherited name as the kind",
			'{"type":"content_block_delta","index":0,"delta":{"type":"toString","text":"a"}}',
		],
	])("leaves %s to the full parse", (_what, data) => {
		expect(readStringDelta(data)).toBeUndefined();
	});

	it("reads escapes, braces and quotes inside the string as JSON does", () => {
		const text = 'a "quoted" }} \\ \n\t\u0000 ☃ 😀 {"type":"x"}';
		const data = JSON.stringify({
			type: "content_block_delta",
			index: 12,
			delta: { type: "text_delta", text },
		});
		expect(readStringDelta(data)).toEqual({ index: 12, delta: { type: "text_delta", text } });
		expect(readStringDelta(`${data.slice(0, -1)}    }`)).toEqual({
			index: 12,
			delta: { type: "text_delta", text },
		});
	});

	it("never answers differently from JSON.parse, whatever the text (property)", () => {
		const kinds = ["text_delta", "thinking_delta", "signature_delta", "input_json_delta", "other_delta"];
		const fields = ["text", "thinking", "signature", "partial_json", "x"];
		const pieces = fc.constantFrom('"', "\\", "}", "{", " ", ",", ":", "u", "0", "\n", "a", "☃", "\\u00");
		const literal = fc.oneof(
			fc.string().map((s) => JSON.stringify(s)),
			fc.array(pieces, { maxLength: 12 }).map((parts) => `"${parts.join("")}"`),
			fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join("")),
		);
		const index = fc.oneof(
			fc.nat().map(String),
			fc.constantFrom("0", "00", "01", "-1", "1e2", "1.0", "", "9999999999"),
		);
		fc.assert(
			fc.property(
				index,
				fc.constantFrom(...kinds),
				fc.constantFrom(...fields),
				literal,
				fc.constantFrom("", " ", "     ", "\t"),
				(at, kind, field, value, pad) => {
					const data = `{"type":"content_block_delta","index":${at},"delta":{"type":"${kind}","${field}":${value}}${pad}}`;
					const fast = readStringDelta(data);
					if (fast !== undefined) expect(fast).toEqual(fullParse(data));
				},
			),
			{ numRuns: 3000 },
		);
	});
});
