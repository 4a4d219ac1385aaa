import { execFileSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { atomicTempPath } from "../../src/workspace/atomic-write.js";
import {
	type ListDirDetails,
	listDirTool,
	type ReadFileDetails,
	readFileTool,
} from "../../src/workspace/index.js";
import { call, link, put, textOf, workspace } from "./support.js";

const numbered = (from: number, to: number) =>
	Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join("\n");

describe("read_file", () => {
	it("returns the whole file, or a 1-based inclusive line range, with details", async () => {
		const { cwd } = workspace({ "a.txt": `${numbered(1, 10)}\n` });
		const tool = readFileTool({ cwd });
		const all = await call(tool, { path: "a.txt" });
		expect(textOf(all)).toBe(numbered(1, 10));
		expect(all.details).toEqual({
			path: "a.txt",
			startLine: 1,
			endLine: 10,
			totalLines: 10,
			truncated: false,
			bytes: 71,
		});
		const range = await call(tool, { path: "a.txt", start_line: 3, end_line: 5 });
		expect(textOf(range)).toBe(numbered(3, 5));
		expect(range.details).toMatchObject({ startLine: 3, endLine: 5, totalLines: 10, truncated: false });
		const tail = await call(tool, { path: "./a.txt", start_line: 9 });
		expect(textOf(tail)).toBe(numbered(9, 10));
	});

	it("stops at the size limit with a note naming the line to continue from", async () => {
		const { cwd } = workspace({ "big.txt": `${numbered(1, 1000)}\n` });
		const tool = readFileTool({ cwd, maxReadBytes: 100 });
		const first = await call(tool, { path: "big.txt" });
		const details = first.details as ReadFileDetails;
		expect(details.truncated).toBe(true);
		expect(details.endLine).toBe(13); // 9 lines of 7 bytes + 4 of 8 = 95; the 14th would pass 100
		expect(textOf(first)).toBe(
			`${numbered(1, 13)}\n\n[truncated at 100 bytes: showing lines 1-13 of 1000. Continue with start_line=14.]`,
		);
		const next = await call(tool, { path: "big.txt", start_line: 14 });
		expect(textOf(next).startsWith("line 14\n")).toBe(true);
	});

	it("returns a range of exactly the limit whole, with no note: only the newlines between lines count", async () => {
		const { cwd } = workspace({ "one.txt": "x".repeat(10), "two.txt": "abcd\nefghi" });
		const tool = readFileTool({ cwd, maxReadBytes: 10 });
		const one = await call(tool, { path: "one.txt" });
		expect(textOf(one)).toBe("x".repeat(10));
		expect(one.details).toMatchObject({ endLine: 1, totalLines: 1, truncated: false });
		const two = await call(tool, { path: "two.txt" });
		expect(textOf(two)).toBe("abcd\nefghi");
		expect(two.details).toMatchObject({ endLine: 2, totalLines: 2, truncated: false });
	});

	it("cuts a single line longer than the limit and says so", async () => {
		const { cwd } = workspace({ "min.js": `${"x".repeat(500)}\nsecond\n` });
		const result = await call(readFileTool({ cwd, maxReadBytes: 50 }), { path: "min.js" });
		expect(textOf(result)).toBe(
			`${"x".repeat(50)}\n\n[truncated at 50 bytes: showing lines 1-1 of 2. Line 1 was cut at the limit. Continue with start_line=2.]`,
		);
	});

	it("a cut last line offers no start_line past the end", async () => {
		const { cwd } = workspace({ "min.js": "x".repeat(500) });
		const result = await call(readFileTool({ cwd, maxReadBytes: 50 }), { path: "min.js" });
		expect(textOf(result)).toBe(
			`${"x".repeat(50)}\n\n[truncated at 50 bytes: showing lines 1-1 of 1. Line 1 was cut at the limit. No line follows it.]`,
		);
	});

	it("a cut line of a file too large to count lines in: the note offers the next line only if there is one", async () => {
		const long = "x".repeat(17 * 1024 * 1024); // past the 16 MiB up to which lines are counted
		const { cwd } = workspace({ "one.js": long, "two.js": `${long}\nsecond\n` });
		const tool = readFileTool({ cwd, maxReadBytes: 50 });
		expect(textOf(await call(tool, { path: "one.js" }))).toBe(
			`${"x".repeat(50)}\n\n[truncated at 50 bytes: showing lines 1-1 of 1. Line 1 was cut at the limit. No line follows it.]`,
		);
		expect(textOf(await call(tool, { path: "two.js" }))).toBe(
			`${"x".repeat(50)}\n\n[truncated at 50 bytes: showing lines 1-1. Line 1 was cut at the limit. Continue with start_line=2.]`,
		);
	});

	it("cuts a long line between characters, not inside one", async () => {
		const { cwd } = workspace({ "m.js": `${"aé".repeat(20)}\nsecond\n` });
		const result = await call(readFileTool({ cwd, maxReadBytes: 5 }), { path: "m.js" });
		expect(textOf(result).split("\n")[0]).toBe("aéa");
	});

	it("splits lines as readline does (\\n, \\r\\n, a lone \\r), across the stream's 64 KiB chunks too", async () => {
		const pieces = ["a", "é", "😀", "\n", "\r", "\r\n", "\n\r", "text "];
		let seed = 11;
		const next = () => {
			seed = (seed * 1103515245 + 12345) & 0x7fffffff;
			return seed;
		};
		for (const size of [40, 300, 65_536 + 3, 2 * 65_536 - 2]) {
			let text = "";
			while (text.length < size) text += pieces[next() % pieces.length];
			if (size > 65_536) text = `${text.slice(0, 65_535)}\r\n${text.slice(65_537)}`; // CR on a chunk's last byte
			const { cwd } = workspace({ "f.txt": text });
			const expected: string[] = [];
			const input = createReadStream(join(cwd, "f.txt"), { encoding: "utf8" });
			for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }))
				expected.push(line);
			const result = await call(readFileTool({ cwd, maxReadBytes: 1_000_000 }), { path: "f.txt" });
			expect(textOf(result)).toBe(expected.join("\n"));
			expect((result.details as ReadFileDetails).totalLines).toBe(expected.length);
		}
	});

	it("refuses binary files, directories, missing files and bad ranges with clear errors", async () => {
		const { cwd } = workspace({
			"img.png": Buffer.from([0x89, 0x50, 0x00, 0x01]),
			"d/x": "",
			"s.txt": "a\nb\n",
		});
		const tool = readFileTool({ cwd });
		await expect(call(tool, { path: "img.png" })).rejects.toThrow(
			"img.png looks like a binary file (4 bytes)",
		);
		await expect(call(tool, { path: "d" })).rejects.toThrow("d is a directory; use list_dir");
		await expect(call(tool, { path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
		await expect(call(tool, { path: "s.txt", start_line: 5 })).rejects.toThrow(
			"start_line 5 is past the end of s.txt (2 lines)",
		);
		await expect(call(tool, { path: "s.txt", start_line: 2, end_line: 1 })).rejects.toThrow(
			"end_line (1) is before start_line (2)",
		);
	});

	it("refuses a FIFO without blocking on it", async () => {
		const { cwd } = workspace();
		execFileSync("mkfifo", [join(cwd, "pipe")]);
		await expect(call(readFileTool({ cwd }), { path: "pipe" })).rejects.toThrow("pipe is not a regular file");
	});

	it("says when a file is empty", async () => {
		const { cwd } = workspace({ "empty.txt": "" });
		expect(textOf(await call(readFileTool({ cwd }), { path: "empty.txt" }))).toBe("[empty file]");
	});

	it("honours its abort signal", async () => {
		const { cwd } = workspace({ "a.txt": "a\n" });
		const controller = new AbortController();
		controller.abort("stop");
		await expect(
			call(readFileTool({ cwd }), { path: "a.txt" }, { signal: controller.signal }),
		).rejects.toThrow(/abort/i);
	});
});

describe("list_dir", () => {
	it("lists one level sorted by name: folders with '/', links with their target", async () => {
		const { cwd } = workspace({ "b.txt": "", "a/inner.txt": "", ".hidden": "" });
		link(cwd, "c-link", "b.txt");
		const result = await call(listDirTool({ cwd }), {});
		expect(textOf(result)).toBe(".hidden\na/\nb.txt\nc-link -> b.txt");
		expect((result.details as ListDirDetails).entries).toEqual([
			{ name: ".hidden", type: "file" },
			{ name: "a", type: "dir" },
			{ name: "b.txt", type: "file" },
			{ name: "c-link", type: "symlink", target: "b.txt" },
		]);
		expect(textOf(await call(listDirTool({ cwd }), { path: "a" }))).toBe("inner.txt");
	});

	it("leaves out the temporary file a crash mid-write left, and only that: a user's own .tmp files stay", async () => {
		const long = `${"ü".repeat(70)}.md`;
		const { cwd } = workspace({ "notes.md": "whole\n", [long]: "", "data.tmp": "", ".cache.tmp": "" });
		// What write_file leaves when the process dies between writing its temporary file and the rename.
		for (const target of ["notes.md", long]) put(cwd, basename(atomicTempPath(join(cwd, target))), "half");
		put(cwd, ".notes.md.0123456789AB.tmp", ""); // not hex as capstan writes it: someone else's
		const result = await call(listDirTool({ cwd }), {});
		expect(textOf(result)).toBe(`.cache.tmp\n.notes.md.0123456789AB.tmp\ndata.tmp\nnotes.md\n${long}`);
		expect(result.details).toMatchObject({ total: 5, truncated: false });
	});

	it("quotes a name with a newline, which would otherwise read as two entries", async () => {
		const { cwd } = workspace({ "a\nb": "", c: "" });
		link(cwd, "l", "x\ty");
		const result = await call(listDirTool({ cwd }), {});
		expect(textOf(result)).toBe('"a\\nb"\nc\nl -> "x\\ty"');
		expect((result.details as ListDirDetails).entries[0]).toEqual({ name: "a\nb", type: "file" });
	});

	it("caps the entries with a note, and says when a folder is empty or not a folder", async () => {
		const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, ""]));
		const { cwd } = workspace({ ...files, "empty/.keep": "" });
		const capped = await call(listDirTool({ cwd, maxListEntries: 3 }), {});
		expect(textOf(capped)).toBe("empty/\nf0\nf1\n[3 more entries not shown]");
		expect(capped.details).toMatchObject({ total: 6, truncated: true });
		await expect(call(listDirTool({ cwd }), { path: "f0" })).rejects.toThrow("f0 is a file, not a directory");
		await expect(call(listDirTool({ cwd }), { path: "missing" })).rejects.toThrow(
			"Directory not found: missing",
		);
	});
});
