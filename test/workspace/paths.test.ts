import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createWorkspaceTools, resolveInWorkspace, WorkspaceEscapeError } from "../../src/workspace/index.js";
import { call, link, workspace } from "./support.js";

describe("resolveInWorkspace", () => {
	it("resolves relative and absolute paths inside the workspace to real paths", async () => {
		const { cwd } = workspace({ "src/a.ts": "x" });
		expect(await resolveInWorkspace(cwd, "src/a.ts")).toBe(join(cwd, "src/a.ts"));
		expect(await resolveInWorkspace(cwd, join(cwd, "src/a.ts"))).toBe(join(cwd, "src/a.ts"));
		expect(await resolveInWorkspace(cwd, ".")).toBe(cwd);
		expect(await resolveInWorkspace(cwd, "src/../src/./a.ts")).toBe(join(cwd, "src/a.ts"));
		// A file that does not exist yet, under folders that do not either.
		expect(await resolveInWorkspace(cwd, "new/deep/file.ts")).toBe(join(cwd, "new/deep/file.ts"));
	});

	it("refuses ../ escapes and absolute paths outside with a WorkspaceEscapeError naming the path", async () => {
		const { cwd, outside } = workspace();
		for (const path of [
			"..",
			"../outside/secret.txt",
			"src/../../outside",
			join(outside, "secret.txt"),
			"/etc/passwd",
		]) {
			const error = await resolveInWorkspace(cwd, path).catch((e: unknown) => e);
			expect(error, path).toBeInstanceOf(WorkspaceEscapeError);
			expect((error as Error).message).toContain(`"${path}" is outside the workspace ${cwd}`);
			expect((error as Error).message).not.toContain("symlink");
		}
	});

	it("follows symlinks before deciding: links out are refused, links within are fine", async () => {
		const { cwd, outside } = workspace({ "real/inner.txt": "in" });
		link(cwd, "out-dir", outside);
		link(cwd, "out-file", join(outside, "secret.txt"));
		link(cwd, "in-dir", join(cwd, "real"));
		link(cwd, "chain", join(cwd, "out-dir"));
		for (const path of ["out-dir", "out-dir/secret.txt", "out-file", "chain/secret.txt"]) {
			const error = await resolveInWorkspace(cwd, path).catch((e: unknown) => e);
			expect(error, path).toBeInstanceOf(WorkspaceEscapeError);
			expect((error as Error).message).toContain("resolves through a symlink to");
		}
		expect(await resolveInWorkspace(cwd, "in-dir/inner.txt")).toBe(join(cwd, "real/inner.txt"));
	});

	it("refuses a not-yet-existing file under a symlinked directory, and a dangling link pointing out", async () => {
		const { cwd, outside } = workspace();
		link(cwd, "out-dir", outside);
		link(cwd, "dangling", join(outside, "not-yet.txt"));
		link(cwd, "sub/loop-a", join(cwd, "sub/loop-b"));
		link(cwd, "sub/loop-b", join(cwd, "sub/loop-a"));
		await expect(resolveInWorkspace(cwd, "out-dir/new/file.txt")).rejects.toBeInstanceOf(
			WorkspaceEscapeError,
		);
		await expect(resolveInWorkspace(cwd, "dangling")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		await expect(resolveInWorkspace(cwd, "sub/loop-a/x")).rejects.toThrow(/symbolic links|ELOOP/);
	});

	it("resolves `..` against the real folder, not lexically through a link", async () => {
		const { cwd, outside } = workspace({ "secret.txt": "inside" });
		link(cwd, "out-dir", outside);
		// Lexically `out-dir/../secret.txt` is the workspace's own secret.txt, and that is what a tool gets.
		expect(await resolveInWorkspace(cwd, "out-dir/../secret.txt")).toBe(join(cwd, "secret.txt"));
	});

	it("accepts the workspace through a symlinked spelling of its own path", async () => {
		const { cwd } = workspace({ "a.txt": "a" });
		const alias = join(cwd, "..", "alias");
		link(join(cwd, ".."), "alias", cwd);
		expect(await resolveInWorkspace(alias, "a.txt")).toBe(join(cwd, "a.txt"));
		expect(await resolveInWorkspace(cwd, join(alias, "a.txt"))).toBe(join(cwd, "a.txt"));
	});
});

describe("every workspace tool refuses paths outside", () => {
	it("read_file, list_dir, search_text, write_file and edit_file reject escapes and touch nothing outside", async () => {
		const { cwd, outside } = workspace();
		link(cwd, "out-dir", outside);
		const tools = Object.fromEntries(createWorkspaceTools({ cwd }).map((t) => [t.name, t]));
		const attempts: [string, Record<string, unknown>][] = [
			["read_file", { path: "../outside/secret.txt" }],
			["read_file", { path: "out-dir/secret.txt" }],
			["list_dir", { path: outside }],
			["search_text", { pattern: "secret", path: "out-dir" }],
			["write_file", { path: "out-dir/created/new.txt", content: "x" }],
			["write_file", { path: "../outside/new.txt", content: "x" }],
			["edit_file", { path: "out-dir/secret.txt", old_string: "outside", new_string: "changed" }],
		];
		for (const [name, args] of attempts) {
			await expect(call(tools[name]!, args), name).rejects.toBeInstanceOf(WorkspaceEscapeError);
		}
		expect(existsSync(join(outside, "created"))).toBe(false);
		expect(existsSync(join(outside, "new.txt"))).toBe(false);
	});
});
