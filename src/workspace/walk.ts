import { lstat, readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import ignore from "ignore";
import { isAtomicWriteTemp } from "./atomic-write.js";
import { excludesFilePath, gitConfigFiles, parseExcludesFile } from "./git-config.js";
import { type BytesPath, childPath, escapeName, realPath, shownPath, type ToolPath } from "./names.js";
import { throwIfAborted } from "./options.js";

/** The largest ignore file read (git's own are a few kilobytes). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** The rules of one `.gitignore` file and the directory its patterns are relative to. */
interface IgnoreLevel {
	base: string;
	rules: ignore.Ignore;
}

/**
 * The ignore files that apply in one directory, lowest precedence first: git's global excludes file
 * (`core.excludesFile`), the repository's `info/exclude`, then the `.gitignore` files outermost first.
 * Evaluated like git: a later file's rules override an earlier one's, so `!keep.log` in a subdirectory
 * re-includes what the root ignored.
 */
export class GitignoreChain {
	private constructor(private readonly levels: readonly IgnoreLevel[]) {}

	/**
	 * The chain for `dir`: every `.gitignore` from the workspace `root` down to `dir` itself, after those of
	 * the folders above `root` up to the top of the git repository `root` lies in, that repository's
	 * `.git/info/exclude` (the main repository's, in a linked worktree) and git's global excludes file, as git
	 * reads them (a workspace that is one package of a monorepo obeys the root's `node_modules/`); outside a
	 * repository no file above `root` counts, the global excludes file included. A `dir` that the files above
	 * it ignore was named on purpose (a search of `node_modules/react`, or a workspace that is a scratch folder
	 * git ignores): only its own and deeper `.gitignore` files apply in it, else everything in it would be
	 * ignored along with it.
	 */
	static async forDirectory(root: string, dir: ToolPath): Promise<GitignoreChain> {
		let chain = await GitignoreChain.above(root);
		const parts = relative(root, shownPath(dir)).split(sep).filter(Boolean);
		let current = root;
		for (const part of parts) {
			if (chain.ignores(current, true)) chain = new GitignoreChain([]);
			chain = await chain.descend(current);
			current = join(current, part);
		}
		if (chain.ignores(current, true)) chain = new GitignoreChain([]);
		return chain.descend(dir);
	}

	/**
	 * The rules that apply above `root`: git's global excludes file, the repository's `info/exclude`, then the
	 * `.gitignore` files of the folders above `root` from the repository's top down; none outside a repository.
	 * The two exclude files come first because git ranks them below every `.gitignore` (and the global one
	 * below `info/exclude`): a `!name` in a later one re-includes what an earlier one excludes.
	 */
	private static async above(root: string): Promise<GitignoreChain> {
		const folders: string[] = [];
		let top = root;
		for (;;) {
			if (await hasGitEntry(top)) break;
			const parent = dirname(top);
			if (parent === top) return new GitignoreChain([]);
			folders.unshift(parent);
			top = parent;
		}
		const gitDir = await commonGitDir(top);
		const globalFile = await globalExcludesFile(top, gitDir);
		const global = globalFile === undefined ? undefined : await readRules(globalFile, true);
		const excludes = await readRules(join(gitDir, "info", "exclude"));
		const levels: IgnoreLevel[] = [];
		for (const rules of [global, excludes]) if (rules) levels.push({ base: top, rules });
		let chain = new GitignoreChain(levels);
		for (const folder of folders) chain = await chain.descend(folder);
		return chain;
	}

	/** The chain for a subdirectory: this one plus the subdirectory's own `.gitignore`, if it has one. */
	async descend(dir: ToolPath): Promise<GitignoreChain> {
		const rules = await readRules(realPath(childPath(dir, ".gitignore")));
		return rules ? new GitignoreChain([...this.levels, { base: shownPath(dir), rules }]) : this;
	}

	/** Whether git would ignore this path. */
	ignores(absolute: string, isDirectory: boolean): boolean {
		let ignored = false;
		for (const level of this.levels) {
			const rel = relative(level.base, absolute);
			// Outside this level: `..` or `../…` — not a name that merely starts with two dots (`..foo.log`).
			if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`)) continue;
			const result = level.rules.test(rel.split(sep).join("/") + (isDirectory ? "/" : ""));
			if (result.ignored) ignored = true;
			else if (result.unignored) ignored = false;
		}
		return ignored;
	}
}

/** Whether `dir` is the top of a git work tree: it holds `.git` (a folder, or a file in a linked worktree). */
async function hasGitEntry(dir: string): Promise<boolean> {
	return (await lstat(join(dir, ".git")).catch(() => undefined)) !== undefined;
}

/** The rules of one ignore file, or undefined when there is none to read (see {@link readSmallFile}). */
async function readRules(path: string | Buffer, followLinks = false): Promise<ignore.Ignore | undefined> {
	const text = await readSmallFile(path, { followLinks });
	return text === undefined ? undefined : ignore().add(text);
}

/**
 * Git's global excludes file for the repository at `top`, found as git finds it but without running git: the
 * last `core.excludesFile` of `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config`), `~/.gitconfig` and the
 * repository's `config`, else `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`). Undefined when there is
 * none. A config file git would refuse to read (a syntax error) is passed over.
 */
async function globalExcludesFile(top: string, gitDir: string): Promise<string | undefined> {
	const env = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
	let setting: string | undefined;
	for (const file of gitConfigFiles(gitDir, env)) {
		const text = await readSmallFile(file, { followLinks: true });
		const parsed = text === undefined ? undefined : parseExcludesFile(text);
		if (parsed?.kind === "set") setting = parsed.value;
	}
	return excludesFilePath(setting, top, env);
}

/**
 * The folder holding the repository's shared files (`info/exclude` among them) for the work tree at `top`:
 * its `.git` folder, or for a linked worktree (`.git` is then a file, `gitdir: <path>`) the main repository's,
 * which the worktree's own git folder names in its `commondir` file.
 */
async function commonGitDir(top: string): Promise<string> {
	const dotGit = join(top, ".git");
	const pointer = await readSmallFile(dotGit);
	const gitDir = /^gitdir: *(.+?)\s*$/m.exec(pointer ?? "")?.[1];
	if (gitDir === undefined) return dotGit;
	const own = resolve(top, gitDir);
	const common = (await readSmallFile(join(own, "commondir")))?.trim();
	return common ? resolve(own, common) : own;
}

/**
 * The text of a git file (an ignore file, a `.git` pointer, a `commondir`, a config file), or undefined when
 * there is none to read. Only a regular file of a sane size is read: one that is a symlink (perhaps out of the
 * tree, or to `/dev/zero`), a FIFO (an open that never returns) or huge is not one git would use either.
 * `followLinks` reads what a symlink points to (still only a regular file), for the config files and the
 * global excludes file, which dotfile managers often link.
 */
async function readSmallFile(
	path: string | Buffer,
	{ followLinks = false } = {},
): Promise<string | undefined> {
	const stats = await (followLinks ? stat : lstat)(path).catch(() => undefined);
	if (!stats?.isFile() || stats.size > MAX_GITIGNORE_BYTES) return undefined;
	return readFile(path, "utf8").catch(() => undefined);
}

/**
 * One entry of a folder: a `Dirent`, or, for a name that is not valid UTF-8, its escape form
 * ({@link escapeName}) with the real `bytes` that open it.
 */
export interface FolderEntry {
	/** The name as shown. */
	readonly name: string;
	/** The name's real bytes, when they are not valid UTF-8. */
	readonly bytes?: Buffer;
	isDirectory(): boolean;
	isFile(): boolean;
	isSymbolicLink(): boolean;
}

/**
 * The entries of a folder. Node writes each byte of a name that is not UTF-8 as U+FFFD, a name that then opens
 * nothing: only a folder with a U+FFFD in a name is read again, as bytes, so the common one costs nothing more.
 */
export async function readFolder(dir: ToolPath): Promise<FolderEntry[]> {
	const entries = await readdir(realPath(dir), { withFileTypes: true });
	if (!entries.some((entry) => entry.name.includes("\uFFFD"))) return entries;
	const raw = await readdir(realPath(dir), { withFileTypes: true, encoding: "buffer" });
	return raw.map((entry) => {
		const name = escapeName(entry.name);
		return {
			name,
			bytes: name === entry.name.toString("utf8") ? undefined : entry.name,
			isDirectory: () => entry.isDirectory(),
			isFile: () => entry.isFile(),
			isSymbolicLink: () => entry.isSymbolicLink(),
		};
	});
}

/** Called for a folder or file below the start that the walk lists but cannot read; the walk goes on. */
export type OnUnreadable = (absolute: string, isDirectory: boolean, error: unknown) => void;

/**
 * Every regular file under `dir`, depth first in name order, skipping `.git/`, what `.gitignore` files
 * exclude, the temporary files of writes a crash cut short, and symlinks (following them could leave the
 * workspace or loop). A file or folder whose name is not valid UTF-8 comes as a {@link BytesPath}: shown with
 * its bad bytes escaped, opened by its bytes. A folder below `dir` that cannot be listed (permission, I/O
 * error, replaced or removed mid-walk) goes to `onUnreadable` (its shown path) and the walk goes on; `dir`
 * itself failing throws its error.
 */
export async function* walkFiles(
	root: string,
	dir: ToolPath,
	signal: AbortSignal,
	onUnreadable: OnUnreadable = () => {},
): AsyncGenerator<ToolPath> {
	throwIfAborted(signal);
	const chain = await GitignoreChain.forDirectory(root, dir);
	yield* walkDirectory(dir, await readFolder(dir), chain, signal, onUnreadable);
}

async function* walkDirectory(
	dir: ToolPath,
	entries: FolderEntry[],
	chain: GitignoreChain,
	signal: AbortSignal,
	onUnreadable: OnUnreadable,
): AsyncGenerator<ToolPath> {
	entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	for (const entry of entries) {
		const path = childPath(dir, entry.name, entry.bytes);
		const absolute = typeof path === "string" ? path : path.shown;
		if (entry.isDirectory()) {
			if (entry.name === ".git" || chain.ignores(absolute, true)) continue;
			throwIfAborted(signal);
			let inner: FolderEntry[];
			try {
				inner = await readFolder(path);
			} catch (error) {
				onUnreadable(absolute, true, error);
				continue;
			}
			yield* walkDirectory(path, inner, await chain.descend(path), signal, onUnreadable);
		} else if (entry.isFile() && !isAtomicWriteTemp(entry.name) && !chain.ignores(absolute, false)) {
			yield path;
		}
	}
}
