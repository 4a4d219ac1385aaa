import { describe, expect, it } from "vitest";
import { createPalette, type Palette } from "../../src/cli/interactive/ansi.js";
import { MarkdownStream, renderInline } from "../../src/cli/interactive/markdown.js";

/** Styles as visible tags, so a test can read what was bold, dim or code. */
function tags(): Palette {
	const plain = createPalette(false);
	const tag = (name: string) => (text: string) => (text === "" ? "" : `<${name}>${text}</${name}>`);
	return {
		...plain,
		styled: true,
		bold: tag("b"),
		dim: tag("d"),
		italic: tag("i"),
		underline: tag("u"),
		cyan: tag("c"),
	};
}

function renderAll(doc: string, chunk: number): string[] {
	const md = new MarkdownStream(tags());
	const out: string[] = [];
	for (let i = 0; i < doc.length; i += chunk) out.push(...md.push(doc.slice(i, i + chunk)));
	out.push(...md.end());
	return out;
}

const DOC = [
	"# Title",
	"## Part **two**",
	"Some **bold**, *italic*, `code *not italic*` and a [link](https://example.com).",
	"- item one",
	"  * nested `x`",
	"- [x] done",
	"1. first",
	"> quoted",
	"---",
	"```ts",
	"const a = **b**;",
	"```",
	"snake_case_name stays",
].join("\n");

describe("MarkdownStream: line-based rendering of streamed text", () => {
	it("renders headings, lists, quotes, rules, fences and inline styles", () => {
		expect(renderAll(DOC, DOC.length)).toEqual([
			"<b><u>Title</u></b>",
			"<b>Part <b>two</b></b>",
			"Some <b>bold</b>, <i>italic</i>, <c>code *not italic*</c> and a <u>link</u> <d>(https://example.com)</d>.",
			"<d>•</d> item one",
			"  <d>•</d> nested <c>x</c>",
			"<d>☑</d> done",
			"<d>1.</d> first",
			"<d>│</d> <i>quoted</i>",
			`<d>${"─".repeat(40)}</d>`,
			"  <d>┌─ ts</d>",
			"  <d>│</d> <c>const a = **b**;</c>",
			"  <d>└─</d>",
			"snake_case_name stays",
		]);
	});

	it("gives the same lines however the text is split into deltas", () => {
		const whole = renderAll(DOC, DOC.length);
		for (const chunk of [1, 2, 3, 7, 16]) expect(renderAll(DOC, chunk)).toEqual(whole);
	});

	it("hands out each line once, when its newline arrives; the unfinished line is only a preview", () => {
		const md = new MarkdownStream(tags());
		expect(md.push("Hello **wor")).toEqual([]);
		expect(md.partial()).toBe("Hello **wor");
		expect(md.push("ld**\nnext")).toEqual(["Hello <b>world</b>"]);
		expect(md.partial()).toBe("next");
		expect(md.push("```py")).toEqual([]);
		expect(md.partial()).toBe("next```py");
		expect(md.end()).toEqual(["next```py"]);
	});

	it("closes a fence the reply never closed, and previews code lines inside an open fence", () => {
		const md = new MarkdownStream(tags());
		expect(md.push("```\nlet x")).toEqual(["  <d>┌─ code</d>"]);
		expect(md.partial()).toBe("  <d>│</d> <c>let x</c>");
		expect(md.end()).toEqual(["  <d>│</d> <c>let x</c>", "  <d>└─</d>"]);
	});

	it("a fence closes only on a bare fence of its character at least as long (CommonMark); others are its code", () => {
		const code = (line: string) => `  <d>│</d> <c>${line}</c>`;
		const cases: [string[], string[]][] = [
			// An info string: the line is code, however long its marker.
			[
				["```markdown", "```ts", "let a", "```", "after"],
				["  <d>┌─ markdown</d>", code("```ts"), code("let a"), "  <d>└─</d>", "after"],
			],
			// Shorter than the opening fence, or of the other character: code.
			[
				["````markdown", "```ts", "let a", "```", "````", "after"],
				["  <d>┌─ markdown</d>", code("```ts"), code("let a"), code("```"), "  <d>└─</d>", "after"],
			],
			[
				["~~~", "```", "~~~~  ", "after"],
				["  <d>┌─ code</d>", code("```"), "  <d>└─</d>", "after"],
			],
			[
				["```", "``` x", "``` `", "  `````", "after"],
				["  <d>┌─ code</d>", code("``` x"), code("``` `"), "  <d>└─</d>", "after"],
			],
		];
		for (const [lines, rendered] of cases) {
			const doc = `${lines.join("\n")}\n`;
			expect(renderAll(doc, doc.length)).toEqual(rendered);
			expect(renderAll(doc, 1)).toEqual(rendered);
		}
	});

	it("keeps a # that ends a heading's last word (C#), and drops only a closing run after a space", () => {
		const md = new MarkdownStream(tags());
		expect([...md.push("## Calling it from C#\n### F# and C#  \n# Title ##\n"), ...md.end()]).toEqual([
			"<b>Calling it from C#</b>",
			"<b>F# and C#</b>",
			"<b><u>Title</u></b>",
		]);
	});

	it("leaves text without markup as it is", () => {
		expect(renderInline("2 * 3 * 4 = 24", tags())).toBe("2 * 3 * 4 = 24");
	});

	it("without colour (NO_COLOR) the markup stays: code, emphasis and headings are not flattened into prose", () => {
		const md = new MarkdownStream(createPalette(false));
		const doc = "# Setup\nRun `rm -rf build` **first**, see [docs](https://x.dev).\n- item `a`\n";
		expect([...md.push(doc), ...md.end()]).toEqual([
			"# Setup",
			"Run `rm -rf build` **first**, see [docs](https://x.dev).",
			"• item `a`",
		]);
	});
});
