import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

const made: string[] = [];

afterEach(() => {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh working directory in the temp folder, removed after the test. */
export function tempCwd(): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "capstan-sessions-")));
	made.push(dir);
	return dir;
}

/** The model identity a session header stores. */
export const MODEL = { provider: "scripted", id: "scripted-1", api: "scripted" } as const;
