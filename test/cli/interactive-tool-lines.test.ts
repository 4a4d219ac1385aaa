import { describe, expect, it } from "vitest";
import { createPalette } from "../../src/cli/interactive/ansi.js";
import {
	finishedCallLine,
	formatElapsed,
	savedOutcome,
	summarizeArgs,
	summarizeResult,
	toolOutcome,
} from "../../src/cli/interactive/tool-lines.js";
import { placeholderResult } from "../../src/tools/placeholders.js";

const plain = createPalette(false);
const text = (t: string) => [{ type: "text" as const, text: t }];

describe("tool lines: one line per call", () => {
	it("summarizes arguments by the key that tells most, else key=value, never the intent field", () => {
		expect(summarizeArgs({ command: "npm   test\n--silent", timeout: 5 })).toBe("npm test --silent");
		expect(summarizeArgs({ path: "src/a.ts", content: "x".repeat(500) })).toBe("src/a.ts");
		expect(summarizeArgs({ i: "look", depth: 2, all: true })).toBe("depth=2 all=true");
		expect(summarizeArgs({})).toBe("");
		expect(summarizeArgs({ query: "q".repeat(200) }, 10)).toBe(`${"q".repeat(9)}…`);
	});

	it("summarizes a result by its first line and how many followed", () => {
		expect(summarizeResult(text("\n\nfirst\nsecond\nthird"))).toBe("first (+2 lines)");
		expect(summarizeResult(text("done\n[exit code 0]"))).toBe("done (+1 line)");
		expect(summarizeResult([])).toBe("no output");
		expect(summarizeResult([{ type: "image", data: "", mimeType: "image/png" }])).toBe("[image image/png]");
	});

	it("SPEC T10/T11: a steer-interrupted call and a skipped one read as not run, not as failures", () => {
		const interrupted = placeholderResult({ id: "1", name: "watch_build" }, "interrupted", 0, {
			started: true,
		});
		const skipped = placeholderResult({ id: "2", name: "read_file" }, "interrupted", 0);
		const aborted = placeholderResult({ id: "3", name: "shell" }, "aborted", 0, { started: true });
		expect(toolOutcome("aborted", interrupted.details)).toBe("interrupted");
		expect(toolOutcome("aborted", aborted.details)).toBe("aborted");
		expect(toolOutcome("skipped", skipped.details)).toBe("skipped");
		// Read back from a session, where no status is stored.
		expect([interrupted, skipped, aborted].map(savedOutcome)).toEqual(["interrupted", "skipped", "aborted"]);
		expect(savedOutcome({ isError: true, details: { exitCode: 1 } })).toBe("error");
		expect(savedOutcome({ isError: false })).toBe("ok");
		// A call the session saved without its result (stopped mid-tool, or awaiting approval) is not "aborted".
		expect(savedOutcome(undefined)).toBe("unfinished");
		// A result a damaged session line took with it: the loader's placeholder says the tool may have run.
		expect(savedOutcome(placeholderResult({ id: "4", name: "shell" }, "lost", 0))).toBe("lost");
	});

	it("renders each outcome plainly, with the time when it is known", () => {
		const call = { name: "watch_build", label: "app", content: text("build finished") };
		expect(finishedCallLine({ ...call, outcome: "ok", elapsedMs: 1234 }, plain)).toBe(
			"✓ watch_build app · 1.2 s · build finished",
		);
		expect(finishedCallLine({ ...call, outcome: "interrupted", elapsedMs: 300 }, plain)).toBe(
			"⏹ watch_build app interrupted by your message (0.3 s)",
		);
		expect(finishedCallLine({ ...call, outcome: "interrupted" }, plain)).toBe(
			"⏹ watch_build app interrupted by your message",
		);
		expect(finishedCallLine({ ...call, outcome: "ok" }, plain)).toBe("✓ watch_build app · build finished");
		expect(finishedCallLine({ ...call, outcome: "skipped", label: "" }, plain)).toBe(
			"↷ watch_build skipped: your message came first (not run)",
		);
		expect(
			finishedCallLine({ ...call, outcome: "error", elapsedMs: 50, content: text("exit 1") }, plain),
		).toBe("✗ watch_build app · 0.1 s · exit 1");
		expect(finishedCallLine({ ...call, outcome: "unfinished", content: [] }, plain)).toBe(
			"… watch_build app no result saved: the session stopped before it finished",
		);
		expect(finishedCallLine({ ...call, outcome: "lost", content: [] }, plain)).toBe(
			"? watch_build app result lost with a damaged session line: it may have run",
		);
		expect(formatElapsed(125_000)).toBe("2 min 5 s");
	});
});
