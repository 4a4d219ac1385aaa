import { describe, expect, it } from "vitest";
import { excludesFilePath, gitConfigFiles, parseExcludesFile } from "../../src/workspace/git-config.js";

// Each expectation is what git 2.39 reads (`git config --file <f> --get core.excludesFile`; "invalid" where git
// stops with "bad config line" or, for a key with no value, "missing value for 'core.excludesfile'").
const set = (value: string) => ({ kind: "set", value });
const unset = { kind: "unset" };
const invalid = { kind: "invalid" };

describe("parseExcludesFile: core.excludesFile as git reads it", () => {
	it.each([
		["[core]\n\texcludesFile = ~/.gitignore_global\n", set("~/.gitignore_global")],
		["[Core]\n\tExcludesFILE=  a b  c  # comment\n", set("a b  c")],
		[
			'[core]\nexcludesfile = "  spaced ; not comment  " tail ; comment\n',
			set("  spaced ; not comment   tail"),
		],
		["[core] excludesfile = same-line\n", set("same-line")],
		["[core]\nexcludesfile = first\n[user]\nname = x\n[core]\nexcludesfile = second\n", set("second")],
		["[core]\nexcludesfile = con\\\ntinued\n", set("continued")],
		["[core]\r\nexcludesfile = crlf\r\n", set("crlf")],
		['[core]\nexcludesfile = esc\\t\\"q\\"\\\\\n', set('esc\t"q"\\')],
		["# comment\n; another\n[core]\n  excludesfile = x\t\t\n", set("x")],
		['[core]\nexcludesfile = "a"b"c"\n', set("abc")],
		["[core]\nexcludesfile = tab\there\n", set("tab here")],
		["\uFEFF[core]\nexcludesfile = bom\n", set("bom")],
		["[core]\nexcludesfile =\n", set("")],
		['[core "a\\"b"]\nexcludesfile = x\n[core]\nexcludesfile = y\n', set("y")],
	])("%j", (text, expected) => {
		expect(parseExcludesFile(text)).toEqual(expected);
	});

	it.each([
		['[core "sub"]\nexcludesfile = no\n'],
		["[core.sub]\nexcludesfile = no\n"],
		["excludesfile = top\n[core]\n"],
		["[core]\nexcludes-file = other\n"],
		["[user]\n\tname = someone\n"],
		[""],
	])("unset: %j", (text) => {
		expect(parseExcludesFile(text)).toEqual(unset);
	});

	it.each([
		["[core]\nexcludesfile = bad\\q\n"],
		['[core]\nexcludesfile = "open\n'],
		["[core]\nexcludesfile\n"],
		["[core]\nexcludesfile # hi\n"],
		["[core ]\nexcludesfile = x\n"],
		["[ core]\nexcludesfile = x\n"],
		["[core]\nexcludesfile = x\n$bad\n"],
	])("refused by git, so nothing in it counts: %j", (text) => {
		expect(parseExcludesFile(text)).toEqual(invalid);
	});
});

describe("where git looks", () => {
	it("reads the XDG config, then ~/.gitconfig, then the repository's config", () => {
		expect(gitConfigFiles("/r/.git", { HOME: "/h", XDG_CONFIG_HOME: "/x" })).toEqual([
			"/x/git/config",
			"/h/.gitconfig",
			"/r/.git/config",
		]);
		expect(gitConfigFiles("/r/.git", { HOME: "/h", XDG_CONFIG_HOME: "" })).toEqual([
			"/h/.config/git/config",
			"/h/.gitconfig",
			"/r/.git/config",
		]);
		expect(gitConfigFiles("/r/.git", {})).toEqual(["/r/.git/config"]);
	});

	it("expands ~ with HOME, resolves a relative path from the repository's top, and defaults to git/ignore", () => {
		const env = { HOME: "/h", XDG_CONFIG_HOME: "/x" };
		expect(excludesFilePath("~/.gitignore_global", "/r", env)).toBe("/h/.gitignore_global");
		expect(excludesFilePath("~", "/r", env)).toBe("/h");
		expect(excludesFilePath("/abs/ignore", "/r", env)).toBe("/abs/ignore");
		expect(excludesFilePath("rel/ignore", "/r", env)).toBe("/r/rel/ignore");
		// Another user's home is not looked up, and without HOME `~` means nothing.
		expect(excludesFilePath("~bob/ignore", "/r", env)).toBeUndefined();
		expect(excludesFilePath("~/ignore", "/r", {})).toBeUndefined();
		// Set but empty: no file, not even the default.
		expect(excludesFilePath("", "/r", env)).toBeUndefined();
		expect(excludesFilePath(undefined, "/r", env)).toBe("/x/git/ignore");
		expect(excludesFilePath(undefined, "/r", { HOME: "/h" })).toBe("/h/.config/git/ignore");
		expect(excludesFilePath(undefined, "/r", {})).toBeUndefined();
	});
});
