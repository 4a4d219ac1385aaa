// The repository stands alone: a bare clone has no sibling folders, so no file may point outside it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../providers/support/fixtures.js";

/** Every file git tracks or would track (untracked but not ignored), so a new file is checked before it lands. */
function repoFiles(): string[] {
	const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
		cwd: REPO_ROOT,
		encoding: "utf8",
		maxBuffer: 64 * 1024 * 1024,
	});
	return out.split("\0").filter((file) => file !== "" && !file.startsWith("test/fixtures/"));
}

describe("the repository is self-contained", () => {
	it("no file names the sibling shared folder", () => {
		// Built from parts so this file does not name it either.
		const sibling = [".", ".", "/", "shared"].join("");
		const naming = repoFiles().filter((file) => {
			try {
				return readFileSync(resolve(REPO_ROOT, file), "utf8").includes(sibling);
			} catch {
				return false; // deleted in the work tree but still in the index
			}
		});
		expect(naming).toEqual([]);
	});

	it("the shipped sources cite only documents the package has (docs/behaviour.md rules, not SPEC/STYLE/issues)", () => {
		const citing = repoFiles()
			.filter((file) => file.startsWith("src/"))
			.filter((file) =>
				/\bSPEC\b|\bSTYLE \d|\bissue \d/.test(readFileSync(resolve(REPO_ROOT, file), "utf8")),
			);
		expect(citing).toEqual([]);
	});
});
