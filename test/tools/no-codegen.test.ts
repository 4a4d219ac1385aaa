import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./support/no-codegen-run.ts", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));

describe("JSON Schema tools where code generation from strings is disallowed", () => {
	it("validate through a real Agent run and print nothing but the result (SPEC T3)", async () => {
		const { stdout, stderr } = await run(
			process.execPath,
			["--disallow-code-generation-from-strings", "--import", "tsx", script],
			{ cwd: root, timeout: 60_000, env: { ...process.env, NODE_OPTIONS: "" } },
		);
		// Nothing else on either stream: the old validator printed the source it failed to compile.
		expect(stderr).toBe("");
		const lines = stdout.trim().split("\n");
		expect(lines).toHaveLength(1);
		expect(JSON.parse(lines[0] ?? "")).toEqual({
			codegenBlocked: true,
			// The default is filled into what the tool receives.
			received: [{ path: "a.ts", line: 3, mode: "replace" }],
			results: [
				{
					isError: true,
					text: [
						'Invalid arguments for tool "edit":',
						'- root: unexpected property "force"',
						"- /path: must NOT have fewer than 1 characters",
						'- /line: must be integer (received string "3")',
						"Fix these arguments and call the tool again.",
					].join("\n"),
				},
				{ isError: false, text: "edited" },
			],
		});
	}, 60_000);
});
