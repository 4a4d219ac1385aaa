import { describe, expect, it } from "vitest";
import { coerceToolResult, EMPTY_ERROR_TEXT } from "../../src/tools/coerce.js";

const text = (t: string) => ({ type: "text" as const, text: t });
const image = { type: "image" as const, data: "aGk=", mimeType: "image/png" };

describe("coerceToolResult", () => {
	// SPEC T9
	const table: [
		string,
		unknown,
		boolean | undefined,
		{ texts: RegExp[]; isError: boolean; images?: number },
	][] = [
		["valid text result", { content: [text("ok")] }, undefined, { texts: [/^ok$/], isError: false }],
		["valid image result", { content: [image] }, undefined, { texts: [], isError: false, images: 1 }],
		[
			"isError honoured",
			{ content: [text("bad")], isError: true },
			undefined,
			{ texts: [/^bad$/], isError: true },
		],
		["declared error", { content: [text("boom")] }, true, { texts: [/^boom$/], isError: true }],
		["undefined", undefined, undefined, { texts: [/invalid result.*got undefined/], isError: true }],
		["null", null, undefined, { texts: [/invalid result.*got null/], isError: true }],
		["a string", "hello", undefined, { texts: [/invalid result.*got string/], isError: true }],
		["content not an array", { content: "hi" }, undefined, { texts: [/invalid result/], isError: true }],
		[
			"unsupported blocks dropped and counted",
			{ content: [text("kept"), { type: "audio" }, { type: "text" }, 42] },
			undefined,
			{ texts: [/^kept$/, /3 unsupported content blocks were dropped/], isError: true },
		],
		[
			"empty error result",
			{ content: [], isError: true },
			undefined,
			{ texts: [/^The tool failed with no output\.$/], isError: true },
		],
		[
			"blank error text",
			{ content: [text("  ")] },
			true,
			{ texts: [/^The tool failed with no output\.$/], isError: true },
		],
		["empty success stays empty", { content: [] }, undefined, { texts: [], isError: false }],
	];
	it.each(table)("%s", (_name, raw, declared, expected) => {
		const result = coerceToolResult(raw, declared);
		expect(result.isError).toBe(expected.isError);
		const texts = result.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
		expect(texts).toHaveLength(expected.texts.length);
		expected.texts.forEach((pattern, index) => {
			expect(texts[index]).toMatch(pattern);
		});
		expect(result.content.filter((block) => block.type === "image")).toHaveLength(expected.images ?? 0);
	});

	it("keeps details and never mutates the raw result", () => {
		const raw = { content: [text("a"), { type: "video" }], details: { x: 1 } };
		const result = coerceToolResult(raw);
		expect(result.details).toEqual({ x: 1 });
		expect(raw.content).toHaveLength(2);
		expect(result.content).not.toBe(raw.content);
	});

	it("never throws: a result it cannot read is an error result saying why (SPEC T9)", () => {
		const { proxy, revoke } = Proxy.revocable({}, {});
		revoke();
		const unreadable = [
			{
				content: [text("ok")],
				get details(): unknown {
					throw new Error("details getter failed");
				},
			},
			{
				content: [
					{
						type: "text",
						get text(): string {
							throw new Error("text getter failed");
						},
					},
				],
			},
			proxy,
		];
		for (const raw of unreadable) {
			const result = coerceToolResult(raw);
			expect(result.isError).toBe(true);
			expect(result.content).toHaveLength(1);
			expect(result.content[0]).toMatchObject({
				type: "text",
				text: expect.stringMatching(/^The tool returned an invalid result \(reading it threw: /),
			});
		}
	});

	it("exports the empty-error text", () => {
		expect(EMPTY_ERROR_TEXT).toBe("The tool failed with no output.");
	});
});
