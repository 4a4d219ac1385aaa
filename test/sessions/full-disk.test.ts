/**
 * A disk that fills up as a session file is created: the header's write fails after the file was opened.
 * The failure is simulated in `writeSync` (a real full disk cannot be made in a test).
 */
import * as fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { createSessionFile, latestSession } from "../../src/sessions/index.js";
import { MODEL, tempCwd } from "./support.js";

const disk = vi.hoisted(() => ({ full: false }));

vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	return {
		...real,
		writeSync: (...args: Parameters<typeof real.writeSync>) => {
			if (disk.full)
				throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
			return (real.writeSync as (...a: unknown[]) => number)(...args);
		},
	};
});

describe("a session file whose header cannot be written", () => {
	it("is removed, so the newest session is still the last one that was written (--continue)", () => {
		const cwd = tempCwd();
		const dir = `${cwd}/sessions`;
		const earlier = createSessionFile({ cwd, dir, model: MODEL, now: () => Date.UTC(2026, 0, 1) });
		earlier.append({ role: "user", content: "hello", timestamp: 1 });
		earlier.close();
		disk.full = true;
		try {
			expect(() => createSessionFile({ cwd, dir, model: MODEL, now: () => Date.UTC(2026, 0, 2) })).toThrow(
				"ENOSPC",
			);
		} finally {
			disk.full = false;
		}
		expect(latestSession(dir)?.path).toBe(earlier.path);
		expect(fs.readdirSync(dir)).toHaveLength(1);
	});
});
