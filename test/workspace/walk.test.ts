import { rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolPath } from "../../src/workspace/names.js";
import { walkFiles } from "../../src/workspace/walk.js";
import { workspace } from "./support.js";

describe("walkFiles", () => {
	it("reports a folder it cannot list and walks on; the start folder failing is an error", async () => {
		const { cwd } = workspace({ "a.txt": "", "b/c.txt": "", "d.txt": "" });
		const signal = new AbortController().signal;
		const unreadable: [string, boolean, string | undefined][] = [];
		const walk = walkFiles(cwd, cwd, signal, (path, isDirectory, error) =>
			unreadable.push([relative(cwd, path), isDirectory, (error as NodeJS.ErrnoException).code]),
		);
		// The start folder is listed before the first file comes back.
		expect((await walk.next()).value).toBe(join(cwd, "a.txt"));
		// b/ turns into a file between its listing and its walk (a build's churn): it fails for root too.
		rmSync(join(cwd, "b"), { recursive: true });
		writeFileSync(join(cwd, "b"), "");
		const rest: ToolPath[] = [];
		for await (const file of walk) rest.push(file);
		expect(rest).toEqual([join(cwd, "d.txt")]);
		expect(unreadable).toEqual([["b", true, "ENOTDIR"]]);
		await expect(walkFiles(cwd, join(cwd, "b"), signal).next()).rejects.toMatchObject({ code: "ENOTDIR" });
	});
});
