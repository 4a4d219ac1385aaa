import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AssistantMessageBuilder } from "../../src/core/assistant-builder.js";
import { GrowingText } from "../../src/core/growing-text.js";
import { IncrementalJsonParser } from "../../src/core/partial-json.js";

// Enough pieces to cross several flushes (one every 64 pieces).
const MANY = 300;

describe("GrowingText", () => {
	it("reads as the concatenation of its pieces after every append, across flushes", () => {
		fc.assert(
			fc.property(
				fc.array(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.constant("\ud83d")), {
					minLength: 65,
					maxLength: MANY,
				}),
				(pieces) => {
					const text = new GrowingText();
					let expected = "";
					for (const piece of pieces) {
						expected += piece;
						expect(text.append(piece)).toBe(expected);
					}
				},
			),
			{ numRuns: 50 },
		);
	});

	it("keeps empty pieces harmless", () => {
		const text = new GrowingText();
		let last = "";
		for (let i = 0; i < 130; i++) last = text.append(i % 2 === 0 ? "" : "x");
		expect(last).toBe("x".repeat(65));
	});
});

describe("long streamed texts (SPEC L5, E4)", () => {
	it("every text and thinking snapshot holds exactly the deltas so far", () => {
		const events: { type: string; partial: { content: unknown[] } }[] = [];
		const builder = new AssistantMessageBuilder(
			{ api: "test", provider: "test", model: "m", timestamp: 0 },
			{ push: (event) => events.push(event as never), end: () => {} },
		);
		const thinking = builder.startThinking();
		const text = builder.startText();
		let said = "";
		let thought = "";
		for (let i = 0; i < MANY; i++) {
			thought += `t${i};`;
			builder.appendThinking(thinking, `t${i};`);
			said += `w${i} `;
			builder.appendText(text, `w${i} `);
			const [thinkingBlock, textBlock] = events.at(-1)!.partial.content as [
				{ thinking: string },
				{ text: string },
			];
			expect(thinkingBlock.thinking).toBe(thought);
			expect(textBlock.text).toBe(said);
		}
		builder.done("stop");
		const end = events.find((event) => event.type === "text_end") as unknown as { content: string };
		expect(end.content).toBe(said);
	});

	it("a string argument in hundreds of chunks: every snapshot is its prefix, the end exact", () => {
		const value = Array.from({ length: MANY }, (_, i) => `line ${i} "quoted" \\ é 😀\n`).join("");
		const json = JSON.stringify({ path: "a.txt", content: value });
		const parser = new IncrementalJsonParser();
		const body = json.slice(0, -2); // all but the closing `"}`
		let seen = 0;
		for (let at = 0; at < body.length; at += 7) {
			parser.push(body.slice(at, at + 7));
			const content = (parser.value as { content?: string } | undefined)?.content ?? "";
			expect(value.startsWith(content)).toBe(true);
			expect(content.length).toBeGreaterThanOrEqual(seen);
			seen = content.length;
		}
		expect((parser.value as { content: string }).content).toBe(value);
		parser.push(json.slice(-2));
		expect(parser.finish()).toEqual({ ok: true, value: { path: "a.txt", content: value } });
		expect(parser.rawText).toBe(json);
	});
});
