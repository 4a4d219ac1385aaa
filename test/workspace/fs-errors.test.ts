import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { workspaceFileError } from "../../src/workspace/fs-errors.js";
import {
	createWorkspaceTools,
	previewFileChange,
	resolveInWorkspace,
	WorkspaceEscapeError,
	WorkspaceFileError,
} from "../../src/workspace/index.js";
import { call, link, workspace } from "./support.js";

/** An error as Node's fs makes it: `CODE: description, syscall 'path'`, with those as properties too. */
function nodeError(code: string, description: string, syscall: string, path: string): NodeJS.ErrnoException {
	return Object.assign(new Error(`${code}: ${description}, ${syscall} '${path}'`), { code, syscall, path });
}

describe("workspaceFileError", () => {
	it("tells a system error by the path relative to the workspace, keeping its code", () => {
		// Tests run as root, whom chmod does not stop: EACCES is built here, the real errnos are met below.
		const error = workspaceFileError(
			nodeError("EACCES", "permission denied", "open", "/home/me/proj/src/x.ts"),
			"/home/me/proj",
			"src/x.ts",
		);
		expect(error).toBeInstanceOf(WorkspaceFileError);
		expect((error as WorkspaceFileError).message).toBe("permission denied: src/x.ts");
		expect(error).toMatchObject({ name: "WorkspaceFileError", code: "EACCES", path: "src/x.ts" });
	});

	it("names the path the error is about (a parent folder too), else the path as given", () => {
		const root = "/home/me/proj";
		const parent = workspaceFileError(
			nodeError("EACCES", "permission denied", "mkdir", `${root}/a`),
			root,
			"a/b/c",
		);
		expect((parent as Error).message).toBe("permission denied: a");
		const outside = workspaceFileError(
			nodeError("ELOOP", "too many symbolic links", "stat", "/etc/x"),
			root,
			"l",
		);
		expect((outside as Error).message).toBe("too many symbolic links: l");
		const noPath = Object.assign(new Error("EMFILE: too many open files, open"), {
			code: "EMFILE",
			syscall: "open",
		});
		expect((workspaceFileError(noPath, root, "a.txt") as Error).message).toBe("too many open files: a.txt");
	});

	it("an unlisted code keeps Node's description without its absolute path; other errors pass unchanged", () => {
		const root = "/home/me/proj";
		const odd = workspaceFileError(
			nodeError("ESTALE", "stale file handle", "open", `${root}/n.txt`),
			root,
			"n.txt",
		);
		expect((odd as Error).message).toBe("stale file handle (ESTALE): n.txt");
		const plain = new Error("old_string was not found");
		expect(workspaceFileError(plain, root, "a")).toBe(plain);
		const abort = Object.assign(new Error("The operation was aborted"), { code: "ABORT_ERR" });
		expect(workspaceFileError(abort, root, "a")).toBe(abort);
	});
});

describe("every file tool's filesystem errors", () => {
	const attempts = (path: string): [string, Record<string, unknown>][] => [
		["read_file", { path }],
		["list_dir", { path }],
		["search_text", { pattern: "x", path }],
		["write_file", { path, content: "x" }],
		["edit_file", { path, old_string: "x", new_string: "y" }],
	];

	it("a path through a file says `not a directory`, relative to the workspace, with no host path", async () => {
		const { cwd } = workspace({ "a.txt": "x\n" });
		const tools = Object.fromEntries(createWorkspaceTools({ cwd }).map((t) => [t.name, t]));
		for (const [name, args] of attempts("a.txt/b")) {
			const error = await call(tools[name]!, args).catch((e: unknown) => e);
			expect(error, name).toBeInstanceOf(WorkspaceFileError);
			expect((error as Error).message, name).toBe("not a directory: a.txt/b");
			expect((error as WorkspaceFileError).code, name).toBe("ENOTDIR");
		}
		const preview = previewFileChange({ cwd }, "write_file", { path: "a.txt/b", content: "x" });
		await expect(preview).rejects.toThrow(/^not a directory: a\.txt\/b$/);
	});

	it("a symlink loop says `too many symbolic links`, relative to the workspace, with no host path", async () => {
		const { cwd } = workspace();
		link(cwd, "loop-a", join(cwd, "loop-b"));
		link(cwd, "loop-b", join(cwd, "loop-a"));
		const tools = Object.fromEntries(createWorkspaceTools({ cwd }).map((t) => [t.name, t]));
		for (const path of ["loop-a", "loop-a/x.txt"]) {
			for (const [name, args] of attempts(path)) {
				const error = await call(tools[name]!, args).catch((e: unknown) => e);
				expect(error, `${name} ${path}`).toBeInstanceOf(WorkspaceFileError);
				expect((error as Error).message, `${name} ${path}`).toBe(`too many symbolic links: ${path}`);
				expect((error as Error).message).not.toContain(cwd);
				expect((error as WorkspaceFileError).code).toBe("ELOOP");
			}
		}
	});
});

describe("a path outside the workspace that cannot be resolved", () => {
	it("is refused as outside, not answered with what resolving it met there", async () => {
		const { cwd, outside } = workspace();
		link(outside, "loop-a", join(outside, "loop-b"));
		link(outside, "loop-b", join(outside, "loop-a"));
		for (const path of [join(outside, "loop-a"), "../outside/loop-a/x.txt"]) {
			const error = await resolveInWorkspace(cwd, path).catch((e: unknown) => e);
			expect(error, path).toBeInstanceOf(WorkspaceEscapeError);
		}
	});
});
