import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { atomicTempPath } from "../../src/workspace/atomic-write.js";
import { type SearchTextDetails, searchTextTool } from "../../src/workspace/index.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { call, link, ownHome, put, textOf, workspace } from "./support.js";

const home = ownHome();

describe("search_text", () => {
	it("finds a regex line by line across the tree, in path order, as path:line: text", async () => {
		const { cwd } = workspace({
			"src/b.ts": "const x = 1;\n// TODO: two\n",
			"src/a.ts": "// todo one\n",
			"README.md": "nothing\r\nTODO three\r\n",
		});
		const tool = searchTextTool({ cwd });
		const result = await call(tool, { pattern: "TODO" });
		expect(textOf(result)).toBe("README.md:2: TODO three\nsrc/b.ts:2: // TODO: two");
		const insensitive = await call(tool, { pattern: "todo", ignore_case: true, path: "src" });
		expect(textOf(insensitive)).toBe("src/a.ts:1: // todo one\nsrc/b.ts:2: // TODO: two");
		expect(insensitive.details).toMatchObject({ path: "src", filesSearched: 2, truncated: false });
		const included = await call(tool, { pattern: "TODO", include: "*.md" });
		expect(textOf(included)).toBe("README.md:2: TODO three");
	});

	it("respects .gitignore files at every level, negations included, and never enters .git/", async () => {
		const { cwd } = workspace({
			".gitignore": "*.log\nbuild/\n",
			"keep.ts": "needle\n",
			"debug.log": "needle\n",
			"build/out.js": "needle\n",
			"pkg/.gitignore": "!important.log\nlocal.ts\n",
			"pkg/important.log": "needle\n",
			"pkg/local.ts": "needle\n",
			"pkg/other.log": "needle\n",
			".git/config": "needle\n",
		});
		const result = await call(searchTextTool({ cwd }), { pattern: "needle" });
		expect(textOf(result)).toBe("keep.ts:1: needle\npkg/important.log:1: needle");
		// The root's rules still apply when the search starts below it.
		expect(textOf(await call(searchTextTool({ cwd }), { pattern: "needle", path: "pkg" }))).toBe(
			"pkg/important.log:1: needle",
		);
	});

	it("skips binary and large files, counting them, and does not follow symlinks", async () => {
		const { cwd, outside } = workspace({
			"bin.dat": Buffer.concat([Buffer.from("needle"), Buffer.from([0])]),
			"big.txt": `needle\n${"x".repeat(2000)}`,
			"ok.txt": "needle\n",
		});
		link(cwd, "out", outside);
		link(cwd, "ok-link.txt", "ok.txt");
		const result = await call(searchTextTool({ cwd, maxSearchFileBytes: 1000 }), {
			pattern: "needle|secret",
		});
		expect(textOf(result)).toBe("ok.txt:1: needle\n[skipped 1 binary and 1 large files]");
		expect(result.details).toMatchObject({ skippedBinary: 1, skippedLarge: 1, filesSearched: 1 });
	});

	it("caps the matches with a note saying how to see the rest; the model may ask for fewer", async () => {
		const { cwd } = workspace({ "many.txt": Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n") });
		const capped = await call(searchTextTool({ cwd, maxSearchMatches: 10 }), { pattern: "hit" });
		const details = capped.details as SearchTextDetails;
		expect(details.matches).toHaveLength(10);
		expect(details.truncated).toBe(true);
		expect(textOf(capped)).toMatch(
			/many.txt:10: hit 9\n\[stopped at 10 matches; narrow the pattern, path or include/,
		);
		const fewer = await call(searchTextTool({ cwd, maxSearchMatches: 10 }), {
			pattern: "hit",
			max_matches: 50,
		});
		expect((fewer.details as SearchTextDetails).matches).toHaveLength(10);
		const exact = await call(searchTextTool({ cwd }), { pattern: "hit 4\\d", max_matches: 10 });
		expect((exact.details as SearchTextDetails).truncated).toBe(false);
	});

	it("cuts very long matching lines, and reports no match plainly", async () => {
		const { cwd } = workspace({ "min.js": `${"a".repeat(1000)}needle` });
		const long = await call(searchTextTool({ cwd }), { pattern: "^a" });
		expect(textOf(long)).toBe(`min.js:1: ${"a".repeat(240)}…`);
		expect(textOf(await call(searchTextTool({ cwd }), { pattern: "zzz" }))).toBe(
			"No matches for /zzz/ in . (1 files searched).",
		);
	});

	it("honours its abort signal", async () => {
		const { cwd } = workspace({ "a.txt": "needle\n" });
		const controller = new AbortController();
		controller.abort("enough");
		await expect(
			call(searchTextTool({ cwd }), { pattern: "needle" }, { signal: controller.signal }),
		).rejects.toThrow("Aborted: enough");
	});

	it("a long matching line is cut between characters, never inside an emoji's surrogate pair", async () => {
		const { cwd } = workspace({ "e.txt": `${"a".repeat(239)}😀 hit\n` });
		const text = textOf(await call(searchTextTool({ cwd }), { pattern: "hit" }));
		expect(text).toBe(`e.txt:1: ${"a".repeat(239)}…`);
	});

	it("a .gitignore rule applies to names that start with two dots", async () => {
		const { cwd } = workspace({
			".gitignore": "*.log\n",
			"..foo.log": "hit\n",
			"a.log": "hit\n",
			"k.txt": "hit\n",
		});
		const result = await call(searchTextTool({ cwd }), { pattern: "hit" });
		expect(textOf(result)).toBe("k.txt:1: hit");
	});

	it("a workspace inside a git repository obeys the .gitignore files above it, from the repository's top down", async () => {
		// `capstan` run in one package of a monorepo: the repository's root .gitignore names node_modules/.
		const { cwd } = workspace({ "main.ts": "hit\n", "x.log": "hit\n", "node_modules/dep/index.js": "hit\n" });
		const repo = dirname(cwd);
		mkdirSync(join(repo, ".git"));
		put(repo, ".gitignore", "node_modules/\n*.log\n");
		expect(textOf(await call(searchTextTool({ cwd }), { pattern: "hit" }))).toBe("main.ts:1: hit");
	});

	it(".git/info/exclude applies from the repository's top, below every .gitignore; a linked worktree reads the main repository's", async () => {
		const { cwd } = workspace({
			".git/info/exclude": "*.log\nscratch/\npkg/gen/\n",
			".gitignore": "!keep.log\n",
			"main.ts": "hit\n",
			"a.log": "hit\n",
			"keep.log": "hit\n",
			"scratch/x.ts": "hit\n",
			"pkg/b.log": "hit\n",
			"pkg/c.ts": "hit\n",
			"pkg/gen/z.ts": "hit\n",
		});
		const tool = searchTextTool({ cwd });
		expect(textOf(await call(tool, { pattern: "hit" }))).toBe(
			"keep.log:1: hit\nmain.ts:1: hit\npkg/c.ts:1: hit",
		);
		// A workspace below the top: the patterns stay relative to the top, as git reads them.
		expect(textOf(await call(searchTextTool({ cwd: join(cwd, "pkg") }), { pattern: "hit" }))).toBe(
			"c.ts:1: hit",
		);
		// `git worktree add`: `.git` is a file naming the worktree's git folder, whose `commondir` names the main one.
		const linked = join(dirname(cwd), "linked");
		put(linked, "c.log", "hit\n");
		put(linked, "d.ts", "hit\n");
		put(cwd, ".git/worktrees/linked/commondir", "../..\n");
		writeFileSync(join(linked, ".git"), `gitdir: ${join(cwd, ".git/worktrees/linked")}\n`);
		expect(textOf(await call(searchTextTool({ cwd: linked }), { pattern: "hit" }))).toBe("d.ts:1: hit");
	});

	it("git's global excludes file (default ~/.config/git/ignore, or under $XDG_CONFIG_HOME) applies in a repository, below info/exclude and every .gitignore", async () => {
		const { cwd } = workspace({
			".git/info/exclude": "!keep.log\n",
			".gitignore": "!c.tmp\n",
			"main.ts": "hit\n",
			"a.log": "hit\n",
			"keep.log": "hit\n",
			"b.tmp": "hit\n",
			"c.tmp": "hit\n",
		});
		put(home(), ".config/git/ignore", "*.log\n*.tmp\n");
		const tool = searchTextTool({ cwd });
		// info/exclude re-includes keep.log and the .gitignore c.tmp: the global file ranks below both, as in git.
		expect(textOf(await call(tool, { pattern: "hit" }))).toBe(
			"c.tmp:1: hit\nkeep.log:1: hit\nmain.ts:1: hit",
		);
		// A workspace below the top: the patterns stay relative to the top.
		put(cwd, "pkg/d.log", "hit\n");
		put(cwd, "pkg/e.ts", "hit\n");
		expect(textOf(await call(searchTextTool({ cwd: join(cwd, "pkg") }), { pattern: "hit" }))).toBe(
			"e.ts:1: hit",
		);
		rmSync(join(cwd, "pkg"), { recursive: true });
		// With $XDG_CONFIG_HOME set, git looks there instead of ~/.config.
		const xdg = join(home(), "xdg");
		put(xdg, "git/ignore", "main.ts\n");
		vi.stubEnv("XDG_CONFIG_HOME", xdg);
		expect(textOf(await call(tool, { pattern: "hit" }))).toBe(
			"a.log:1: hit\nb.tmp:1: hit\nc.tmp:1: hit\nkeep.log:1: hit",
		);
		// Outside a repository git reads none of it, and neither does the search.
		rmSync(join(cwd, ".git"), { recursive: true });
		expect(textOf(await call(tool, { pattern: "hit" }))).toBe(
			"a.log:1: hit\nb.tmp:1: hit\nc.tmp:1: hit\nkeep.log:1: hit\nmain.ts:1: hit",
		);
	});

	it("core.excludesFile is read from $XDG_CONFIG_HOME/git/config, ~/.gitconfig and .git/config, the later winning, ~ expanded", async () => {
		const files = { "x.a": "hit\n", "x.b": "hit\n", "x.c": "hit\n", "x.d": "hit\n", "x.e": "hit\n" };
		const { cwd, outside } = workspace({ ...files, ".git/HEAD": "ref: refs/heads/main\n" });
		const tool = searchTextTool({ cwd });
		const found = async () => textOf(await call(tool, { pattern: "hit" })).replaceAll(":1: hit", "");
		put(home(), "a-ignore", "*.a\n");
		put(home(), "b ignore", "*.b\n");
		put(home(), "c-ignore", "*.c\n");
		put(home(), ".config/git/ignore", "*.d\n");
		// Unset everywhere: the default file.
		expect(await found()).toBe("x.a\nx.b\nx.c\nx.e");
		put(home(), ".config/git/config", "[core]\n\texcludesFile = ~/a-ignore\n");
		expect(await found()).toBe("x.b\nx.c\nx.d\nx.e");
		// ~/.gitconfig comes later (here a dotfile manager's symlink, quoted, with a comment).
		put(
			outside,
			"dotfiles/gitconfig",
			'[user]\n\tname = someone\n[Core]\n\tExcludesFile = "~/b ignore" ; global\n',
		);
		symlinkSync(join(outside, "dotfiles/gitconfig"), join(home(), ".gitconfig"));
		expect(await found()).toBe("x.a\nx.c\nx.d\nx.e");
		// The repository's config comes last.
		put(cwd, ".git/config", `[core]\n\tbare = false\n\texcludesfile = ${join(home(), "c-ignore")}\n`);
		expect(await found()).toBe("x.a\nx.b\nx.d\nx.e");
		// Set empty: no excludes file at all, not even the default.
		put(cwd, ".git/config", "[core]\n\texcludesfile =\n");
		expect(await found()).toBe("x.a\nx.b\nx.c\nx.d\nx.e");
		// A config file git would refuse is passed over: the one before it decides.
		put(cwd, ".git/config", "[core]\n\texcludesfile = bad\\q\n");
		expect(await found()).toBe("x.a\nx.c\nx.d\nx.e");
	});

	it("skips the temporary file a crash mid-write left beside its target, but not a user's .tmp file", async () => {
		const { cwd } = workspace({ "src/a.ts": "hit\n", "src/b.tmp": "hit\n" });
		put(cwd, `src/${basename(atomicTempPath(join(cwd, "src/a.ts")))}`, "hit, half written\n");
		expect(textOf(await call(searchTextTool({ cwd }), { pattern: "hit" }))).toBe(
			"src/a.ts:1: hit\nsrc/b.tmp:1: hit",
		);
	});

	it("outer .gitignore files count only inside a repository, and not when they ignore the workspace itself", async () => {
		const { cwd } = workspace({ "main.ts": "hit\n", "x.log": "hit\n" });
		const above = dirname(cwd);
		put(above, ".gitignore", "*.log\n");
		// No repository: git would not read that file, and neither does the search.
		expect(textOf(await call(searchTextTool({ cwd }), { pattern: "hit" }))).toBe(
			"main.ts:1: hit\nx.log:1: hit",
		);
		// A workspace the repository ignores (a scratch folder) is searched as if the rules above it were not there.
		mkdirSync(join(above, ".git"));
		put(above, ".gitignore", "work/\n*.log\n");
		expect(textOf(await call(searchTextTool({ cwd }), { pattern: "hit" }))).toBe(
			"main.ts:1: hit\nx.log:1: hit",
		);
	});

	it("never opens a FIFO: named, it is a clear error; as a .gitignore, or a .gitignore linked out of the tree, it is not read", async () => {
		const { cwd, outside } = workspace({ "sub/k.txt": "hit\n", "sub/skip.log": "hit\n" });
		execFileSync("mkfifo", [join(cwd, "pipe"), join(cwd, ".gitignore")]);
		writeFileSync(join(outside, "rules"), "*.log\n");
		symlinkSync(join(outside, "rules"), join(cwd, "sub", ".gitignore"));
		const tool = searchTextTool({ cwd });
		await expect(call(tool, { pattern: "x", path: "pipe" })).rejects.toThrow("pipe is not a regular file");
		const result = await call(tool, { pattern: "hit" });
		expect(textOf(result)).toBe("sub/k.txt:1: hit\nsub/skip.log:1: hit");
	});

	it("a folder .gitignore excludes is searched when named in path, its own .gitignore still applying", async () => {
		const { cwd } = workspace({
			".gitignore": "build/\n",
			"build/.gitignore": "*.map\n",
			"build/out.js": "hit\n",
			"build/out.js.map": "hit\n",
			"build/sub/x.js": "hit\n",
			"src/a.ts": "hit\n",
		});
		const tool = searchTextTool({ cwd });
		expect(textOf(await call(tool, { pattern: "hit" }))).toBe("src/a.ts:1: hit");
		expect(textOf(await call(tool, { pattern: "hit", path: "build" }))).toBe(
			"build/out.js:1: hit\nbuild/sub/x.js:1: hit",
		);
		expect(textOf(await call(tool, { pattern: "hit", path: "build/sub" }))).toBe("build/sub/x.js:1: hit");
	});

	it("a UTF-8 byte-order mark is not part of the first line: ^ matches after it, as in ripgrep", async () => {
		const { cwd } = workspace({ "bom.ts": "\uFEFFimport a\nimport b\n" });
		const result = await call(searchTextTool({ cwd }), { pattern: "^import" });
		expect(textOf(result)).toBe("bom.ts:1: import a\nbom.ts:2: import b");
	});

	it("a pattern that backtracks without end is stopped at maxSearchMs, and the host keeps running meanwhile", async () => {
		const { cwd } = workspace({ "a.txt": "fine\n", "b.txt": `${"a".repeat(40)}!\n` });
		let ticks = 0;
		const ticker = setInterval(() => ticks++, 10);
		try {
			const search = call(searchTextTool({ cwd, maxSearchMs: 300 }), { pattern: "^(a+)+$" });
			await expect(search).rejects.toThrow(
				/^search_text stopped after 0\.3 s \(maxSearchMs\) with 0 matches so far: the pattern may backtrack without end/,
			);
		} finally {
			clearInterval(ticker);
		}
		// On the main thread the regex would have frozen the timers until it ended (centuries).
		expect(ticks).toBeGreaterThan(5);
	});

	it("an abort stops a regex mid-match, and the next search runs as usual", async () => {
		const { cwd } = workspace({ "b.txt": `${"a".repeat(40)}!\n`, "c.txt": "needle\n" });
		const controller = new AbortController();
		const tool = searchTextTool({ cwd });
		const search = call(tool, { pattern: "^(a+)+$" }, { signal: controller.signal });
		setTimeout(() => controller.abort("user stop"), 100);
		await expect(search).rejects.toThrow("Aborted: user stop");
		// Two at once (search_text is a shared tool), then one more on the worker they left.
		const [one, two] = await Promise.all([
			call(tool, { pattern: "needle" }),
			call(tool, { pattern: "^a+!" }),
		]);
		expect(textOf(one)).toBe("c.txt:1: needle");
		expect(textOf(two)).toBe(`b.txt:1: ${"a".repeat(40)}!`);
		expect(textOf(await call(tool, { pattern: "needle", max_matches: 1 }))).toBe("c.txt:1: needle");
	});

	it("counts lines as read_file does: \\r\\n, \\n and a lone \\r each end one", async () => {
		const { cwd } = workspace({ "mac.txt": "one\rtwo hit\r\nthree\nfour hit\r" });
		const result = await call(searchTextTool({ cwd }), { pattern: "hit$" });
		expect(textOf(result)).toBe("mac.txt:2: two hit\nmac.txt:4: four hit");
	});

	it("keeps path order and the match cap across many files", async () => {
		const files: Record<string, string> = {};
		for (let i = 0; i < 600; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "hit\n";
		const { cwd } = workspace(files);
		const capped = await call(searchTextTool({ cwd, maxSearchMatches: 520 }), { pattern: "hit" });
		const details = capped.details as SearchTextDetails;
		expect(details.truncated).toBe(true);
		expect(details.matches.map((m) => m.path)).toEqual(Object.keys(files).slice(0, 520));
		// Files past the one where the cap stopped the search were not searched, and are not counted.
		const few = await call(searchTextTool({ cwd }), { pattern: "hit", max_matches: 5 });
		expect(few.details).toMatchObject({ truncated: true, filesSearched: 6 });
		const all = await call(searchTextTool({ cwd, maxSearchMatches: 600 }), { pattern: "hit" });
		expect(all.details).toMatchObject({ truncated: false, filesSearched: 600 });
		expect((all.details as SearchTextDetails).matches).toHaveLength(600);
	});

	it("matches under tsx (npm run capstan, the examples), whose esbuild keepNames rewrites the worker's program", () => {
		const { cwd } = workspace({ "a.txt": "one\nneedle\n" });
		// esbuild's keepNames wraps the program's inner functions in `__name(…)`, a helper of the module's scope.
		const script = `require(process.argv[1]).searchTextTool({ cwd: process.argv[2] })
			.execute("1", { pattern: "needle" }, new AbortController().signal)
			.then((result) => process.stdout.write(result.content[0].text));`;
		const out = execFileSync(
			process.execPath,
			["--import", "tsx", "-e", script, join(REPO_ROOT, "src/workspace/search-text.ts"), cwd],
			{ cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 },
		);
		expect(out).toBe("a.txt:2: needle");
	});

	it("matches in a host started with --input-type=module, a flag its worker does not take over", () => {
		const { cwd } = workspace({ "a.txt": "needle\n" });
		const script = `const { searchTextTool } = await import(process.argv[1]);
			const result = await searchTextTool({ cwd: process.argv[2] })
				.execute("1", { pattern: "needle" }, new AbortController().signal);
			process.stdout.write(result.content[0].text);`;
		const out = execFileSync(
			process.execPath,
			[
				"--import",
				"tsx",
				"--input-type=module",
				"-e",
				script,
				join(REPO_ROOT, "src/workspace/search-text.ts"),
				cwd,
			],
			{ cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 },
		);
		expect(out).toBe("a.txt:1: needle");
	});

	it("names the files and folders it could not read, counts them all, and searches the rest", async () => {
		// Tests run as root, which reads a chmod 000 file. A path longer than PATH_MAX (4096 bytes) stops root as
		// well: the workspace is a folder a little short of it, whose entries with long names lie past it.
		const base = mkdtempSync(join(tmpdir(), "capstan-long-"));
		const cwd = join(base, ...Array.from({ length: 30 }, () => "p".repeat(128)));
		mkdirSync(cwd, { recursive: true });
		try {
			writeFileSync(join(cwd, "ok.txt"), "needle\n");
			const pad = "x".repeat(200);
			const names = [`d${pad}`, ...Array.from({ length: 6 }, (_, i) => `${pad}${i + 1}.txt`)];
			// Made from inside the workspace: by their absolute paths they cannot be made either.
			execFileSync("sh", [
				"-c",
				'cd "$1" && mkdir "$2" && shift 2 && for f in "$@"; do echo needle > "$f"; done',
				"sh",
				cwd,
				...names,
			]);
			const result = await call(searchTextTool({ cwd }), { pattern: "needle" });
			const first = [`${names[0]}/`, ...names.slice(1, 5)];
			expect(textOf(result)).toBe(
				`ok.txt:1: needle\n[skipped 7 unreadable (not searched): ${first.join(", ")} and 2 more]`,
			);
			expect(result.details).toMatchObject({ filesSearched: 1, skippedUnreadable: 7, unreadable: first });
		} finally {
			// Node's rm goes by absolute paths, which are too long here; rm -rf does not.
			execFileSync("rm", ["-rf", base]);
		}
	});

	it.skipIf(process.getuid?.() === 0)(
		"a file or folder it may not read is noted, not searched; one named in path is a clear error",
		async () => {
			const { cwd } = workspace({
				"ok.txt": "needle\n",
				"locked.txt": "needle\n",
				"shut/in.txt": "needle\n",
			});
			chmodSync(join(cwd, "locked.txt"), 0o000);
			chmodSync(join(cwd, "shut"), 0o000);
			try {
				const tool = searchTextTool({ cwd });
				expect(textOf(await call(tool, { pattern: "needle" }))).toBe(
					"ok.txt:1: needle\n[skipped 2 unreadable (not searched): locked.txt, shut/]",
				);
				await expect(call(tool, { pattern: "needle", path: "locked.txt" })).rejects.toThrow(
					"permission denied: locked.txt",
				);
				await expect(call(tool, { pattern: "needle", path: "shut" })).rejects.toThrow(
					"permission denied: shut",
				);
			} finally {
				chmodSync(join(cwd, "shut"), 0o755); // so that the workspace can be removed
			}
		},
	);

	it("an invalid regex or a missing path is a clear error", async () => {
		const { cwd } = workspace();
		await expect(call(searchTextTool({ cwd }), { pattern: "(" })).rejects.toThrow(
			'Invalid regular expression "("',
		);
		await expect(call(searchTextTool({ cwd }), { pattern: "x", path: "nope" })).rejects.toThrow(
			"Path not found: nope",
		);
	});
});
