import { execFileSync, spawnSync } from "node:child_process";
import {
	chmodSync,
	closeSync,
	existsSync,
	lstatSync,
	openSync,
	readdirSync,
	readFileSync,
	statSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/index.js";
import { writeFileAtomically } from "../../src/workspace/atomic-write.js";
import {
	editFileTool,
	type FileChangeDetails,
	previewFileChange,
	writeFileTool,
} from "../../src/workspace/index.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { call, link, put, textOf, workspace } from "./support.js";

const read = (cwd: string, path: string) => readFileSync(join(cwd, path), "utf8");

describe("write_file", () => {
	it("creates a file with its folders, and overwrites with a diff in the details", async () => {
		const { cwd } = workspace();
		const tool = writeFileTool({ cwd });
		const created = await call(tool, { path: "src/deep/new.ts", content: "one\ntwo\n" });
		expect(read(cwd, "src/deep/new.ts")).toBe("one\ntwo\n");
		expect(textOf(created)).toBe("Created src/deep/new.ts (8 bytes, +2 -0 lines).");
		expect(created.details).toEqual({
			path: "src/deep/new.ts",
			created: true,
			bytes: 8,
			diff: "--- /dev/null\n+++ b/src/deep/new.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n",
			added: 2,
			removed: 0,
		});
		const over = await call(tool, { path: "src/deep/new.ts", content: "one\n2\n" });
		expect((over.details as FileChangeDetails).diff).toBe(
			"--- a/src/deep/new.ts\n+++ b/src/deep/new.ts\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
		);
		expect(tool.concurrency).toBe("exclusive");
	});

	it("a rewrite too large to diff in time says so instead of blocking the process", async () => {
		const lines = (tag: string) => Array.from({ length: 10_000 }, (_, i) => `${tag} ${i * 7919}`).join("\n");
		const { cwd } = workspace({ "big.txt": `${lines("old")}\n` });
		const result = await call(writeFileTool({ cwd }), { path: "big.txt", content: `${lines("new")}\n` });
		expect((result.details as FileChangeDetails).diff).toContain(
			"too many changes to show a diff: 10000 lines replaced by 10000",
		);
		expect(result.details).toMatchObject({ added: 10_000, removed: 10_000 });
		expect(read(cwd, "big.txt")).toBe(`${lines("new")}\n`);
	}, 20_000);

	it("a file too large to diff whole: a rewrite is summed up; one changed line still shows its hunk", async () => {
		// 9 M characters a side: splitting both into lines alone took seconds and gigabytes at 100 MB.
		const line = (n: number) => `${String(n).padStart(7, "0")} abcdefghijklmnopqrstuvwxyz\n`;
		const big = Array.from({ length: 250_000 }, (_, i) => line(i + 1)).join("");
		const { cwd } = workspace({ "big.txt": big });
		const tool = writeFileTool({ cwd });
		const rewrite = await call(tool, { path: "big.txt", content: big.replaceAll("a", "A") });
		expect((rewrite.details as FileChangeDetails).diff).toBe(
			"--- a/big.txt\n+++ b/big.txt\n(too large to show a diff: 250000 lines replaced by 250000)\n",
		);
		expect(rewrite.details).toMatchObject({ added: 250_000, removed: 250_000 });
		put(cwd, "big.txt", big);
		const one = big.replace(line(125_001), "changed\n");
		const edited = await call(tool, { path: "big.txt", content: one });
		const context = (from: number) => [from, from + 1, from + 2].map((n) => ` ${line(n)}`).join("");
		expect((edited.details as FileChangeDetails).diff).toBe(
			`--- a/big.txt\n+++ b/big.txt\n@@ -124998,7 +124998,7 @@\n${context(124_998)}-${line(125_001)}+changed\n${context(125_002)}`,
		);
		expect(edited.details).toMatchObject({ added: 1, removed: 1 });
		expect(read(cwd, "big.txt")).toBe(one);
	});

	it("keeps the CRLF or CR line endings of a file it overwrites when the model sends LF, as edit_file does", async () => {
		const { cwd } = workspace({
			"win.txt": "one\r\ntwo\r\nthree\r\n",
			"mac.txt": "one\rtwo\r",
			"mixed.txt": "one\r\ntwo\n",
			"sent.txt": "one\r\ntwo\r\n",
		});
		const tool = writeFileTool({ cwd });
		const win = await call(tool, { path: "win.txt", content: "one\n2\nthree\nfour" });
		expect(read(cwd, "win.txt")).toBe("one\r\n2\r\nthree\r\nfour");
		// The diff shows the lines that changed, not every line's ending.
		expect(win.details).toMatchObject({ added: 2, removed: 1 });
		await call(tool, { path: "mac.txt", content: "one\n2\n" });
		expect(read(cwd, "mac.txt")).toBe("one\r2\r");
		// No one ending to keep, or endings the model chose itself: the content goes in as sent.
		await call(tool, { path: "mixed.txt", content: "one\ntwo\n" });
		expect(read(cwd, "mixed.txt")).toBe("one\ntwo\n");
		await call(tool, { path: "sent.txt", content: "one\r\ntwo\n" });
		expect(read(cwd, "sent.txt")).toBe("one\r\ntwo\n");
		await call(tool, { path: "new.txt", content: "a\nb\n" });
		expect(read(cwd, "new.txt")).toBe("a\nb\n");
	});

	it("refuses to write over a directory or the workspace itself", async () => {
		const { cwd } = workspace({ "d/x": "" });
		await expect(call(writeFileTool({ cwd }), { path: "d", content: "" })).rejects.toThrow(
			"d is a directory",
		);
		await expect(call(writeFileTool({ cwd }), { path: ".", content: "" })).rejects.toThrow(
			"is the workspace directory itself",
		);
	});

	it("a path ending in / names a folder: neither write_file nor edit_file makes or edits a file of that name", async () => {
		const { cwd } = workspace({ "a.txt": "one\n" });
		await expect(call(writeFileTool({ cwd }), { path: "notes/", content: "x" })).rejects.toThrow(
			'notes/ ends in "/", which names a folder; give the path of a file.',
		);
		expect(existsSync(join(cwd, "notes"))).toBe(false);
		await expect(
			call(editFileTool({ cwd }), { path: "a.txt/", old_string: "one", new_string: "two" }),
		).rejects.toThrow('a.txt/ ends in "/"');
		expect(read(cwd, "a.txt")).toBe("one\n");
	});

	// Node 20's recursive mkdir never returns for a folder /proc refuses with ENOENT, spinning a thread of the
	// pool at full CPU; the tool makes folders one level at a time, so it fails at once. The short timeout ends
	// the test, not the suite, should that come back.
	it.runIf(existsSync("/proc/self/stat"))(
		"a parent folder that cannot be made fails with its name instead of hanging",
		{ timeout: 5_000 },
		async () => {
			await expect(
				call(writeFileTool({ cwd: "/proc" }), { path: "capstan-no-such/deeper/x.txt", content: "x" }),
			).rejects.toThrow(
				/^(no such file or directory|permission denied|operation not permitted): capstan-no-such$/,
			);
		},
	);
});

describe("edit_file", () => {
	it("replaces the one exact match and returns the unified diff in content and details", async () => {
		const { cwd } = workspace({ "a.ts": "l1\nl2\nl3\nconst a = 1;\nl5\nl6\nl7\nl8\n" });
		const tool = editFileTool({ cwd });
		const result = await call(tool, {
			path: "a.ts",
			old_string: "const a = 1;",
			new_string: "const a = 2;\nconst b = 3;",
		});
		expect(read(cwd, "a.ts")).toBe("l1\nl2\nl3\nconst a = 2;\nconst b = 3;\nl5\nl6\nl7\nl8\n");
		const diff =
			"--- a/a.ts\n+++ b/a.ts\n@@ -1,7 +1,8 @@\n l1\n l2\n l3\n-const a = 1;\n+const a = 2;\n+const b = 3;\n l5\n l6\n l7\n";
		expect(textOf(result)).toBe(`Edited a.ts:\n${diff}`);
		expect(result.details).toMatchObject({ path: "a.ts", created: false, diff, added: 2, removed: 1 });
		expect(tool.concurrency).toBe("exclusive");
	});

	it("keeps $ patterns in the new text literal", async () => {
		const { cwd } = workspace({ "a.txt": "price\n" });
		await call(editFileTool({ cwd }), { path: "a.txt", old_string: "price", new_string: "$& $1 $$" });
		expect(read(cwd, "a.txt")).toBe("$& $1 $$\n");
	});

	it("refuses no match and several matches with what to do, and changes nothing", async () => {
		const { cwd } = workspace({ "a.txt": "x = 1\nx = 1\n" });
		const tool = editFileTool({ cwd });
		await expect(call(tool, { path: "a.txt", old_string: "x = 1", new_string: "x = 2" })).rejects.toThrow(
			"old_string occurs 2 times in a.txt; it must match exactly once. Include more surrounding lines",
		);
		await expect(call(tool, { path: "a.txt", old_string: "x  = 1", new_string: "x = 2" })).rejects.toThrow(
			"old_string was not found in a.txt. It must match the file exactly, including whitespace",
		);
		await expect(call(tool, { path: "a.txt", old_string: "", new_string: "y" })).rejects.toThrow(
			"old_string is empty",
		);
		await expect(call(tool, { path: "a.txt", old_string: "x", new_string: "x" })).rejects.toThrow(
			"identical",
		);
		await expect(call(tool, { path: "b.txt", old_string: "x", new_string: "y" })).rejects.toThrow(
			"File not found: b.txt. To create it use write_file.",
		);
		expect(read(cwd, "a.txt")).toBe("x = 1\nx = 1\n");
	});

	it("replace_all replaces every occurrence, literally and in the file's line endings, and says how many", async () => {
		const { cwd } = workspace({ "a.ts": "let n = 1;\nn += n;\nlog(n);\n", "w.txt": "a\r\nb\r\na\r\nb\r\n" });
		const tool = editFileTool({ cwd });
		const result = await call(tool, {
			path: "a.ts",
			old_string: "n",
			new_string: "$&count",
			replace_all: true,
		});
		expect(read(cwd, "a.ts")).toBe("let $&count = 1;\n$&count += $&count;\nlog($&count);\n");
		expect(textOf(result)).toMatch(/^Edited a\.ts \(4 occurrences replaced\):\n--- a\/a\.ts/);
		expect(result.details).toMatchObject({ path: "a.ts", replacements: 4, added: 3, removed: 3 });
		await call(tool, { path: "w.txt", old_string: "a\nb", new_string: "c", replace_all: true });
		expect(read(cwd, "w.txt")).toBe("c\r\nc\r\n");
		// Once is fine too; none is the usual error.
		const once = await call(tool, {
			path: "w.txt",
			old_string: "c\r\nc",
			new_string: "d",
			replace_all: true,
		});
		expect(textOf(once)).toMatch(/^Edited w\.txt \(1 occurrence replaced\):/);
		await expect(
			call(tool, { path: "w.txt", old_string: "zz", new_string: "y", replace_all: true }),
		).rejects.toThrow("old_string was not found in w.txt");
		// Without it, several occurrences are still refused, and the error names the way out.
		await expect(call(tool, { path: "a.ts", old_string: "$&count", new_string: "n" })).rejects.toThrow(
			"or set replace_all to replace every occurrence",
		);
		expect(tool.parameters).toMatchObject({ properties: { replace_all: { type: "boolean" } } });
	});

	it("refuses an old_string whose occurrences overlap: it names more than one place", async () => {
		const { cwd } = workspace({ "o.txt": "}\n}\n}\n" });
		await expect(
			call(editFileTool({ cwd }), { path: "o.txt", old_string: "}\n}", new_string: "X" }),
		).rejects.toThrow(/occurs 2 times/);
		expect(read(cwd, "o.txt")).toBe("}\n}\n}\n");
	});

	it("refuses to edit a binary file or a FIFO", async () => {
		const { cwd } = workspace({ "bin.dat": Buffer.from([0x61, 0, 0x62]) });
		execFileSync("mkfifo", [join(cwd, "pipe")]);
		const tool = editFileTool({ cwd });
		await expect(call(tool, { path: "bin.dat", old_string: "a", new_string: "c" })).rejects.toThrow(
			"bin.dat looks like a binary file; edit_file changes text files only.",
		);
		await expect(call(writeFileTool({ cwd }), { path: "pipe", content: "x" })).rejects.toThrow(
			"pipe is not a regular file",
		);
	});

	it("refuses text that is not UTF-8, and a binary whose first NUL comes late, changing no byte", async () => {
		const latin1 = Buffer.from("caf\xe9 = 1\nx = 2\n", "latin1");
		const late = Buffer.concat([Buffer.from("x".repeat(9000)), Buffer.from([0, 0xff, 0xfe, 0x80, 0])]);
		const { cwd } = workspace({ "l.txt": latin1, "late.bin": late, "bom.txt": "\ufeffa = 1\n" });
		const tool = editFileTool({ cwd });
		await expect(call(tool, { path: "l.txt", old_string: "x = 2", new_string: "x = 3" })).rejects.toThrow(
			"l.txt is not UTF-8 text",
		);
		await expect(call(tool, { path: "late.bin", old_string: "xx", new_string: "y" })).rejects.toThrow(
			"late.bin looks like a binary file",
		);
		expect(readFileSync(join(cwd, "l.txt"))).toEqual(latin1);
		expect(readFileSync(join(cwd, "late.bin"))).toEqual(late);
		// A byte-order mark is text, and stays.
		await call(tool, { path: "bom.txt", old_string: "a = 1", new_string: "a = 2" });
		expect(read(cwd, "bom.txt")).toBe("\ufeffa = 2\n");
	});

	it("edits a CRLF file when the model sends LF line endings, keeping CRLF", async () => {
		const { cwd } = workspace({ "w.txt": "one\r\ntwo\r\nthree\r\n" });
		await call(editFileTool({ cwd }), { path: "w.txt", old_string: "one\ntwo", new_string: "1\n2" });
		expect(read(cwd, "w.txt")).toBe("1\r\n2\r\nthree\r\n");
	});

	it("a one-line old_string in a CRLF file: the lines the new text adds end in CRLF too", async () => {
		const { cwd } = workspace({ "w.txt": "one\r\ntwo\r\n", "mixed.txt": "one\r\ntwo\n" });
		const tool = editFileTool({ cwd });
		await call(tool, { path: "w.txt", old_string: "one", new_string: "one\none and a half" });
		expect(read(cwd, "w.txt")).toBe("one\r\none and a half\r\ntwo\r\n");
		// A file with bare LF lines already has no single ending to keep: the new text goes in as sent.
		await call(tool, { path: "mixed.txt", old_string: "two", new_string: "two\nthree" });
		expect(read(cwd, "mixed.txt")).toBe("one\r\ntwo\nthree\n");
	});

	it("edits a lone-CR (old Mac) file when the model sends LF line endings, keeping CR", async () => {
		const { cwd } = workspace({ "mac.txt": "one\rtwo\rthree\r", "mixed.txt": "one\rtwo\nthree\n" });
		const tool = editFileTool({ cwd });
		await call(tool, { path: "mac.txt", old_string: "one\ntwo", new_string: "1\n2" });
		expect(read(cwd, "mac.txt")).toBe("1\r2\rthree\r");
		// One line as it is: the lines the new text adds end in CR too.
		await call(tool, { path: "mac.txt", old_string: "three", new_string: "three\nfour" });
		expect(read(cwd, "mac.txt")).toBe("1\r2\rthree\rfour\r");
		// With bare LF lines too, the new text goes in as sent.
		await call(tool, { path: "mixed.txt", old_string: "one\ntwo", new_string: "1\n2" });
		expect(read(cwd, "mixed.txt")).toBe("1\r2\nthree\n");
		await call(tool, { path: "mixed.txt", old_string: "three", new_string: "three\nfour" });
		expect(read(cwd, "mixed.txt")).toBe("1\r2\nthree\nfour\n");
	});

	it("previewFileChange shows a host the diff of a pending write or edit without writing", async () => {
		const { cwd } = workspace({ "a.txt": "old\n" });
		const edit = await previewFileChange({ cwd }, "edit_file", {
			path: "a.txt",
			old_string: "old",
			new_string: "new",
		});
		expect(edit?.diff).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n");
		const write = await previewFileChange({ cwd }, "write_file", { path: "b.txt", content: "b\n" });
		expect(write).toMatchObject({ path: "b.txt", before: undefined, after: "b\n", added: 1 });
		expect(await previewFileChange({ cwd }, "shell", { command: "ls" })).toBeUndefined();
		expect(read(cwd, "a.txt")).toBe("old\n");
		expect(() => read(cwd, "b.txt")).toThrow();
	});
});

describe("write_file and edit_file write atomically", () => {
	it("a reader that opened the file before a write or an edit reads the old text whole", async () => {
		const { cwd } = workspace({ "a.txt": "old text\n" });
		for (const [tool, args] of [
			[writeFileTool({ cwd }), { path: "a.txt", content: "new\n" }],
			[editFileTool({ cwd }), { path: "a.txt", old_string: "new", new_string: "newer" }],
		] as const) {
			const before = read(cwd, "a.txt");
			const reader = openSync(join(cwd, "a.txt"), "r");
			try {
				await call(tool as AgentTool<typeof args, FileChangeDetails>, args);
				// Written in place, the reader would see the file truncated under it and the new text.
				expect(readFileSync(reader, "utf8")).toBe(before);
			} finally {
				closeSync(reader);
			}
		}
		expect(read(cwd, "a.txt")).toBe("newer\n");
		expect(readdirSync(cwd)).toEqual(["a.txt"]);
	});

	it("a write that fails partway (the file size limit) leaves the old file whole and no temporary file", {
		timeout: 30_000,
	}, () => {
		const { cwd } = workspace({ "big.txt": "the old content\n" });
		const limitKiB = 64;
		const child = spawnSync(
			"bash",
			[
				"-c",
				`ulimit -f ${limitKiB} && exec "$0" --import tsx test/workspace/write-child.ts "$1" big.txt "$2"`,
				process.execPath,
				cwd,
				String(2 * limitKiB * 1024),
			],
			{ cwd: REPO_ROOT, encoding: "utf8" },
		);
		expect(child.stderr).toBe("");
		expect(JSON.parse(child.stdout)).toEqual({ error: "file too large: big.txt" });
		expect(read(cwd, "big.txt")).toBe("the old content\n");
		expect(readdirSync(cwd)).toEqual(["big.txt"]);
	});

	// Root may write any file: as root the child runs without the capabilities that override the mode bits
	// (setpriv), and stays root, so it can still read the repository wherever the checkout lies.
	const asRoot = process.getuid?.() === 0;
	const dropOverride = asRoot && existsSync("/usr/bin/setpriv");
	it.skipIf(asRoot && !dropOverride)(
		"a read-only file stays refused (permission denied), though its folder would allow the rename",
		{ timeout: 30_000 },
		() => {
			const { cwd } = workspace({ "ro.txt": "old\n" });
			chmodSync(join(cwd, "ro.txt"), 0o444);
			const user = dropOverride ? "setpriv --bounding-set=-dac_override,-dac_read_search " : "";
			const child = spawnSync(
				"bash",
				[
					"-c",
					`exec ${user}"$0" --import tsx test/workspace/write-child.ts "$1" ro.txt 4`,
					process.execPath,
					cwd,
				],
				{ cwd: REPO_ROOT, encoding: "utf8" },
			);
			expect(child.stderr).toBe("");
			expect(JSON.parse(child.stdout)).toEqual({ error: "permission denied: ro.txt" });
			expect(read(cwd, "ro.txt")).toBe("old\n");
			expect(readdirSync(cwd)).toEqual(["ro.txt"]);
		},
	);

	it("keeps the file's mode, and writes through a symlink to the file it points to", async () => {
		const { cwd } = workspace({ "run.sh": "echo old\n", "real/target.txt": "old\n" });
		chmodSync(join(cwd, "run.sh"), 0o750);
		link(cwd, "alias.txt", join(cwd, "real/target.txt"));
		await call(writeFileTool({ cwd }), { path: "run.sh", content: "echo new\n" });
		expect(statSync(join(cwd, "run.sh")).mode & 0o7777).toBe(0o750);
		await call(editFileTool({ cwd }), { path: "alias.txt", old_string: "old", new_string: "new" });
		expect(lstatSync(join(cwd, "alias.txt")).isSymbolicLink()).toBe(true);
		expect(read(cwd, "real/target.txt")).toBe("new\n");
		expect(readdirSync(join(cwd, "real"))).toEqual(["target.txt"]);
	});

	it("a failed write removes its temporary file; an abort mid-write leaves the old file", async () => {
		const { cwd } = workspace({ "d/x": "", "a.txt": "old\n" });
		// Renaming a file over a folder fails after the text was written.
		await expect(writeFileAtomically(join(cwd, "d"), "text", new AbortController().signal)).rejects.toThrow(
			/EISDIR/,
		);
		const controller = new AbortController();
		controller.abort("stop");
		await expect(writeFileAtomically(join(cwd, "a.txt"), "new\n", controller.signal)).rejects.toThrow(
			"Aborted: stop",
		);
		expect(read(cwd, "a.txt")).toBe("old\n");
		expect(readdirSync(cwd).sort()).toEqual(["a.txt", "d"]);
	});
});
