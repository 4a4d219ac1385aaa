import {
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	editFileTool,
	listDirTool,
	readFileTool,
	searchTextTool,
	writeFileTool,
} from "../../src/workspace/index.js";
import { escapeName, unescapeName } from "../../src/workspace/names.js";
import { call, ownHome, textOf, workspace } from "./support.js";

/** `caf` + Latin-1 `é` (0xE9, not UTF-8 on its own) + `.txt`. */
const LATIN1_CAFE = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]);

/** A path of bytes: each part is UTF-8 text, or raw bytes. */
function bytesPath(...parts: (string | Buffer)[]): Buffer {
	return Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part)));
}

/** Whether the temp folder's file system takes names that are not UTF-8 (some refuse them with EILSEQ). */
function takesByteNames(): boolean {
	const dir = mkdtempSync(join(tmpdir(), "capstan-bytes-"));
	try {
		writeFileSync(bytesPath(dir, "/", LATIN1_CAFE), "");
		return true;
	} catch {
		return false;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

const supported = process.platform === "linux" && takesByteNames();

ownHome();

describe("escapeName", () => {
	it("keeps a UTF-8 name as it is and escapes the bytes of one that is not, reversibly", () => {
		expect(escapeName(Buffer.from("café \\ \uFFFD.txt"))).toBe("café \\ \uFFFD.txt");
		const odd = bytesPath("é", Buffer.from([0xe9, 0xff, 0x0a]), "a\\xE9", Buffer.from([0xc3]));
		const shown = escapeName(odd);
		expect(shown).toBe("é\\xE9\\xFF\\x0Aa\\\\xE9\\xC3");
		expect(unescapeName(shown).equals(odd)).toBe(true);
		// Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
		expect(escapeName(Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80]))).toBe(
			"\\xC0\\xAF\\xED\\xA0\\x80\\xF4\\x90\\x80\\x80",
		);
	});
});

describe.skipIf(!supported)("names that are not UTF-8", () => {
	it("search_text searches such files and names them with the bad bytes escaped", async () => {
		// A real U+FFFD in a UTF-8 name is text like any other.
		const { cwd } = workspace({ "plain.txt": "needle here\n", "r\uFFFD.txt": "needle too\n" });
		writeFileSync(bytesPath(cwd, "/", LATIN1_CAFE), "a needle\n");
		const dir = bytesPath(cwd, "/old", Buffer.from([0xff]));
		mkdirSync(dir);
		writeFileSync(bytesPath(dir, "/inner.txt"), "needle inside\n");
		writeFileSync(bytesPath(dir, "/.gitignore"), "skip.txt\n");
		writeFileSync(bytesPath(dir, "/skip.txt"), "needle ignored\n");
		const tool = searchTextTool({ cwd });
		const result = await call(tool, { pattern: "needle" });
		expect(textOf(result)).toBe(
			"caf\\xE9.txt:1: a needle\nold\\xFF/inner.txt:1: needle inside\nplain.txt:1: needle here\nr\uFFFD.txt:1: needle too",
		);
		// The four files and old\xFF/.gitignore.
		expect(result.details).toMatchObject({ filesSearched: 5, skippedUnreadable: 0 });
		expect(textOf(await call(tool, { pattern: "needle", path: "old\\xFF" }))).toBe(
			"old\\xFF/inner.txt:1: needle inside",
		);
		expect(textOf(await call(tool, { pattern: "needle", path: "caf\\xE9.txt" }))).toBe(
			"caf\\xE9.txt:1: a needle",
		);
		expect(tool.description).toContain("\\xHH");
	});

	it("list_dir shows such names escaped and read_file opens them by that name", async () => {
		const { cwd } = workspace({ "a.txt": "" });
		writeFileSync(bytesPath(cwd, "/", LATIN1_CAFE), "bonjour\n");
		mkdirSync(bytesPath(cwd, "/d", Buffer.from([0xfe])));
		writeFileSync(bytesPath(cwd, "/d", Buffer.from([0xfe]), "/x", Buffer.from([0x80]), ".md"), "deep\n");
		symlinkSync(bytesPath("caf", Buffer.from([0xe9])), bytesPath(cwd, "/link"));
		const list = await call(listDirTool({ cwd }), {});
		expect(textOf(list)).toBe("a.txt\ncaf\\xE9.txt\nd\\xFE/\nlink -> caf\\xE9");
		expect(textOf(await call(listDirTool({ cwd }), { path: "d\\xFE" }))).toBe("x\\x80.md");
		const read = await call(readFileTool({ cwd }), { path: "caf\\xE9.txt" });
		expect(textOf(read)).toBe("bonjour");
		expect(read.details).toMatchObject({ path: "caf\\xE9.txt", bytes: 8 });
		expect(textOf(await call(readFileTool({ cwd }), { path: "d\\xFE/x\\x80.md" }))).toBe("deep");
		await expect(call(readFileTool({ cwd }), { path: "caf\\xE8.txt" })).rejects.toThrow(
			"File not found: caf\\xE8.txt",
		);
	});

	it("a file of the literal name wins, and write_file/edit_file refuse a name that is not UTF-8", async () => {
		const { cwd } = workspace({ "caf\\xE9.txt": "literal\n" });
		writeFileSync(bytesPath(cwd, "/", LATIN1_CAFE), "latin-1 name\n");
		expect(textOf(await call(readFileTool({ cwd }), { path: "caf\\xE9.txt" }))).toBe("literal");
		rmSync(join(cwd, "caf\\xE9.txt"));
		await expect(call(writeFileTool({ cwd }), { path: "caf\\xE9.txt", content: "x" })).rejects.toThrow(
			"caf\\xE9.txt has a name in it that is not valid UTF-8; write_file and edit_file cannot write there.",
		);
		await expect(
			call(editFileTool({ cwd }), { path: "caf\\xE9.txt", old_string: "latin", new_string: "x" }),
		).rejects.toThrow("not valid UTF-8");
		expect(readFileSync(bytesPath(cwd, "/", LATIN1_CAFE), "utf8")).toBe("latin-1 name\n");
		// A new file in a folder so named is in that folder: refused too, not written to a new folder `d\xFE/`.
		mkdirSync(bytesPath(cwd, "/d", Buffer.from([0xfe])));
		await expect(call(writeFileTool({ cwd }), { path: "d\\xFE/new.txt", content: "x" })).rejects.toThrow(
			"d\\xFE/new.txt has a name in it that is not valid UTF-8",
		);
		await expect(call(readFileTool({ cwd }), { path: "d\\xFE/new.txt" })).rejects.toThrow(
			"File not found: d\\xFE/new.txt",
		);
		expect(readdirSync(cwd)).toHaveLength(2);
		expect(readdirSync(bytesPath(cwd, "/d", Buffer.from([0xfe])))).toEqual([]);
		// Where nothing of the name exists, a new file gets the literal name.
		await call(writeFileTool({ cwd }), { path: "n\\xE9w.txt", content: "x" });
		expect(readFileSync(join(cwd, "n\\xE9w.txt"), "utf8")).toBe("x");
	});

	it("a name in escape form still may not lead out of the workspace", async () => {
		const { cwd, outside } = workspace();
		writeFileSync(bytesPath(outside, "/", LATIN1_CAFE), "secret\n");
		symlinkSync(outside, join(cwd, "out"));
		await expect(call(readFileTool({ cwd }), { path: "out/caf\\xE9.txt" })).rejects.toThrow(
			"is outside the workspace",
		);
		await expect(call(readFileTool({ cwd }), { path: "../outside/caf\\xE9.txt" })).rejects.toThrow(
			"is outside the workspace",
		);
	});
});
