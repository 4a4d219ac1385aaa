/**
 * Just enough of git's config format to find `core.excludesFile` without running git: a small parser of the
 * syntax `git config` reads (sections, quoting, escapes, comments, continued lines), which keeps the value of
 * that one key. Includes (`[include]`, `[includeIf]`), the system file (`/etc/gitconfig`) and
 * `GIT_CONFIG_GLOBAL` are not read.
 */

import { join, resolve } from "node:path";

/** The result of {@link parseExcludesFile}. */
export type ExcludesFileSetting =
	/** The file sets `core.excludesFile`, the last time to `value` (raw: `~` not yet expanded). */
	| { kind: "set"; value: string }
	/** The file does not set it. */
	| { kind: "unset" }
	/** The file is not one git would read (git stops with "bad config line"): nothing in it counts. */
	| { kind: "invalid" };

/** What git allows after `\` in a value (a `\` at the end of a line continues the value on the next). */
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\", '"': '"', n: "\n", t: "\t", b: "\b" };

/** Git's own `isspace` (space, tab, CR; not \v or \f), without the newline, which ends a line. */
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r";

/** A section header as git reads it: `[name]`, or `[name "subsection"]` with `\` escaping in the quotes. */
const SECTION = /\[([A-Za-z0-9.-]+)(?:[ \t]+"((?:[^"\\\n]|\\[^\n])*)")?\]/y;

/**
 * The value `text` (a git config file) gives `core.excludesFile`, as git reads it: section and key names
 * case-insensitive, only a `[core]` section without a subsection (`[core "x"]` and the old `[core.x]` are
 * others), the last assignment winning.
 */
export function parseExcludesFile(text: string): ExcludesFileSetting {
	// Git reads CRLF as LF everywhere, a continued line's `\` included.
	const src = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
	let i = 0;
	let inCore = false;
	let found: string | undefined;
	while (i < src.length) {
		const c = src[i]!;
		if (c === "\n" || isSpace(c)) {
			i++;
		} else if (c === "#" || c === ";") {
			while (i < src.length && src[i] !== "\n") i++;
		} else if (c === "[") {
			SECTION.lastIndex = i;
			const header = SECTION.exec(src);
			if (!header) return { kind: "invalid" };
			inCore = header[2] === undefined && header[1]!.toLowerCase() === "core";
			// A key may follow on the same line.
			i += header[0].length;
		} else if (/[A-Za-z]/.test(c)) {
			const start = i;
			while (i < src.length && /[A-Za-z0-9-]/.test(src[i]!)) i++;
			const ours = inCore && src.slice(start, i).toLowerCase() === "excludesfile";
			while (src[i] === " " || src[i] === "\t") i++;
			if (i >= src.length || src[i] === "\n") {
				// `key` alone means true: for a path git stops ("missing value").
				if (ours) return { kind: "invalid" };
				continue;
			}
			if (src[i] !== "=") return { kind: "invalid" };
			i++;
			const value = readValue();
			if (value === undefined) return { kind: "invalid" };
			if (ours) found = value;
		} else {
			return { kind: "invalid" };
		}
	}
	return found === undefined ? { kind: "unset" } : { kind: "set", value: found };

	/**
	 * A value, from after its `=` to the end of its line (a continued line's too): quotes removed, escapes
	 * taken in, a comment outside quotes left out, and each whitespace character outside quotes a space, kept
	 * only between parts of the value. Undefined when git would refuse it (an unknown escape, a quote left
	 * open at the end of the line).
	 */
	function readValue(): string | undefined {
		let value = "";
		let spaces = 0;
		let quoted = false;
		let comment = false;
		for (;;) {
			const c = src[i++];
			if (c === undefined || c === "\n") return quoted ? undefined : value;
			if (comment) continue;
			if (!quoted && isSpace(c)) {
				if (value !== "") spaces++;
				continue;
			}
			if (!quoted && (c === "#" || c === ";")) {
				comment = true;
				continue;
			}
			value += " ".repeat(spaces);
			spaces = 0;
			if (c === "\\") {
				const next = src[i++];
				if (next === "\n") continue;
				const escaped = next === undefined ? undefined : ESCAPES[next];
				if (escaped === undefined) return undefined;
				value += escaped;
			} else if (c === '"') {
				quoted = !quoted;
			} else {
				value += c;
			}
		}
	}
}

/**
 * `~` or `~/…` at the start of a config path expanded with `home`, as git does; undefined when `home` is
 * unknown, or for `~user/…` (another user's home is not looked up).
 */
export function expandConfigPath(value: string, home: string | undefined): string | undefined {
	if (value !== "~" && !value.startsWith("~/")) return value.startsWith("~") ? undefined : value;
	return home === undefined ? undefined : home + value.slice(1);
}

/** The environment variables git's file locations depend on. */
export interface GitConfigEnv {
	HOME?: string | undefined;
	XDG_CONFIG_HOME?: string | undefined;
}

/** `$XDG_CONFIG_HOME/git/<name>`, or `~/.config/git/<name>` when that variable is unset or empty. */
function xdgGitFile(name: string, env: GitConfigEnv): string | undefined {
	if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "git", name);
	return env.HOME ? join(env.HOME, ".config", "git", name) : undefined;
}

/**
 * The config files git reads `core.excludesFile` from, lowest precedence first: the XDG one, `~/.gitconfig`,
 * then the repository's `config` in `gitDir` (its common git folder, for a linked worktree).
 */
export function gitConfigFiles(gitDir: string, env: GitConfigEnv): string[] {
	const files = [xdgGitFile("config", env), env.HOME ? join(env.HOME, ".gitconfig") : undefined];
	return [...files.filter((file) => file !== undefined), join(gitDir, "config")];
}

/**
 * The global excludes file for the repository whose top is `top`, given the last `core.excludesFile` of its
 * config files (undefined when none sets it): the setting, `~` expanded and relative to `top` (git runs at the
 * top of the work tree), or when unset git's default `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`).
 * Undefined when there is none: set empty, or needing a home that is unknown.
 */
export function excludesFilePath(
	setting: string | undefined,
	top: string,
	env: GitConfigEnv,
): string | undefined {
	if (setting === undefined) return xdgGitFile("ignore", env);
	if (setting === "") return undefined;
	const expanded = expandConfigPath(setting, env.HOME || undefined);
	return expanded === undefined ? undefined : resolve(top, expanded);
}
