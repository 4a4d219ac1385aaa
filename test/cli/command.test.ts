/**
 * The command's front door, run in-process through `main()` with its own streams (the same function the
 * bin calls): help, version, and every bad command line or settings file exits 2 with one clear line.
 */
import { readdirSync, symlinkSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import stringWidth from "string-width";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { HELP, OPTIONS } from "../../src/cli/args.js";
import { DEMO_MARKER } from "../../src/cli/demo.js";
import { THINKING_LEVELS } from "../../src/core/model.js";
import { API_KEY_ENV_VARS } from "../../src/providers/base/env.js";
import { cleanUpAfterEach, runMain, tempProject } from "./support.js";

cleanUpAfterEach();

// In-process, the providers read this process's environment: no developer key may turn a test into a call.
beforeEach(() => {
	for (const name of Object.values(API_KEY_ENV_VARS).flat()) vi.stubEnv(name, "");
	return () => vi.unstubAllEnvs();
});

function run(argv: string[], cwd = tempProject()): Promise<{ code: number; stdout: string; stderr: string }> {
	vi.stubEnv("TMPDIR", cwd); // a demo sandbox made before a usage error lands in the test's own directory
	return runMain(argv, cwd);
}

describe("capstan --help / --version", () => {
	it("prints the help, no line wider than 100 columns", async () => {
		expect(await run(["--help"])).toEqual({ code: 0, stdout: HELP, stderr: "" });
		// One line was 112 wide; the rest were wrapped at about 100.
		expect(HELP.split("\n").filter((line) => stringWidth(line) > 100)).toEqual([]);
	});

	it("names every flag the command takes, and its short form", () => {
		// --print was missing: only "-p" was shown.
		const named = (flag: string) => new RegExp(`(^|[\\s(])${flag}(?![\\w-])`, "m").test(HELP);
		const missing = Object.entries(OPTIONS).flatMap(([name, option]) =>
			[`--${name}`, ...("short" in option ? [`-${option.short}`] : [])].filter((flag) => !named(flag)),
		);
		expect(missing).toEqual([]);
		expect(HELP).toContain(`--thinking LEVEL              ${THINKING_LEVELS.join(", ")} (default: off)`);
		expect(HELP).toMatch(/-y, --yes .*write_file, edit_file, shell, and MCP\s+tools\s+not marked read-only/);
	});

	it("prints the package version", async () => {
		const { version } = (await import("../../package.json", { with: { type: "json" } })).default;
		expect(await run(["-v"])).toEqual({ code: 0, stdout: `capstan ${version}\n`, stderr: "" });
	});
});

describe("bad usage exits 2 with a clear line", () => {
	it.each([
		[
			["--bogus"],
			/^capstan: unknown flag --bogus \(a prompt that starts with "-" goes after --, as in: capstan -- "--bogus"\)\nRun capstan --help/,
		],
		[["-x", "hi"], /^capstan: unknown flag -x \(/],
		[["--thinking", "huge"], /--thinking must be one of off, minimal, low, medium, high, xhigh/],
		[["--json", "--rpc"], /choose one mode: --json or --rpc/],
		[["--rpc", "hello"], /--rpc takes its prompts as commands on stdin/],
		[["--no-session", "--continue"], /--no-session cannot be combined with --resume or --continue/],
		[["--session-dir=", "-p", "x"], /--session-dir needs a folder \(got an empty value\)/],
		// Not Node's "Option '-m, --model <value>' argument missing": what the flag wants, and an example.
		[
			["-p", "hi", "--model"],
			/^capstan: --model needs a model \(PROVIDER\/ID from the catalog, or the --base-url server's id\), as in: capstan --model anthropic\/claude-sonnet-4-5\nRun capstan --help/,
		],
		[["-m"], /^capstan: --model needs a model /],
		[
			["--mcp"],
			/^capstan: --mcp needs a file with \{"mcpServers": \{\.\.\.\}\}, as in: capstan --mcp capstan\.json\n/,
		],
		[["--resume"], /^capstan: --resume needs a session file, as in: capstan --resume /],
		[["--thinking"], /^capstan: --thinking needs a level: off, minimal, low, medium, high, xhigh, as in: /],
		[["--api-key"], /^capstan: --api-key needs a key, though the environment is the better place for it/],
		// Not Node's "argument is ambiguous": the next word was taken for a flag.
		[
			["--base-url", "-p", "hi"],
			/^capstan: --base-url needs the URL of an OpenAI-compatible server, as in: capstan --base-url http:\/\/localhost:11434\/v1 \(the next word, -p, is a flag; a value that starts with "-" is written --base-url=-p\)\n/,
		],
		[["--model=", "-p", "x"], /^capstan: --model needs a model .* \(got an empty value\), as in: /],
		[["--resume", " ", "-p", "x"], /^capstan: --resume needs a session file \(got an empty value\)/],
		[["--print=yes", "x"], /^capstan: --print takes no value \(got --print=yes\)\n/],
		[
			["--model", "nope/x", "-p", "hi"],
			/^capstan: unknown provider "nope" in "nope\/x": the catalog has anthropic, openai, google; --base-url for another server\n$/,
		],
		// A flag cannot pass a Model object, as the library's getModel error advises.
		[
			["--model", "anthropic/nope", "-p", "hi"],
			/^capstan: unknown anthropic model "nope": the catalog has claude-.*; --base-url for another server\n$/,
		],
		[["--model", "gpt-nine", "-p", "hi"], /unknown model "gpt-nine": use provider\/id from anthropic\//],
		[
			["--model", "anthropic/claude-sonnet-4-5", "-p", "hi"],
			/no API key for anthropic\/claude-sonnet-4-5: set ANTHROPIC_API_KEY/,
		],
		[
			["--base-url", "not a url", "-p", "hi"],
			/^capstan: --base-url must be an http:\/\/ or https:\/\/ URL, as in http:\/\/localhost:11434\/v1 \(got "not a url"\)\n$/,
		],
		// URL.canParse takes "localhost:" for a scheme; fetch then refused it as "unknown scheme".
		[
			["--base-url", "localhost:11434/v1", "-p", "hi"],
			/^capstan: --base-url must be an http:\/\/ or https:\/\/ URL/,
		],
		[
			["--base-url", "ftp://example.com/v1", "-p", "hi"],
			/^capstan: --base-url must be an http:\/\/ or https:\/\/ URL/,
		],
		[["--api-key", "k", "-p", "hi"], /--api-key needs --model provider\/id \(or --base-url\)/],
		[["--resume", "missing.jsonl", "--demo", "-p", "x"], /no session file at .*missing\.jsonl/],
		[
			["--resume", ".", "--demo", "-p", "x"],
			/is a folder, not a session file: name one of the \.jsonl files in it/,
		],
		[["--continue", "--demo", "-p", "x", "--session-dir", "none"], /no session to continue in .*none/],
		// Not Node's "ENOENT: no such file or directory, open '…'".
		[["--mcp", "missing.json", "--demo", "-p", "x"], /^capstan: --mcp \/.*\/missing\.json: no such file\n$/],
		[
			["--mcp", ".", "--demo", "-p", "x"],
			/^capstan: --mcp \/.*: a folder, not a file with \{"mcpServers": \{\.\.\.\}\}\n$/,
		],
		// Not "no session to continue in /tmp/capstan-demo-…/sessions": that folder is new in every demo.
		[
			["--continue", "--demo", "-p", "x"],
			/^capstan: the scripted demo starts in a fresh temporary directory, so --continue has no session there: with an API key or --base-url \(and no --demo\), it goes on with this directory's latest session\n$/,
		],
	])("capstan %j", async (argv, message) => {
		const { code, stderr } = await run(argv);
		expect(stderr).toMatch(message);
		expect(code).toBe(2);
	});

	// The demo's banner (or RPC's ready line) before it read as if the command had started and then failed.
	it.each([
		["missing.jsonl", /^capstan: no session file at \/.*\/missing\.jsonl\n$/],
		[".", /^capstan: \/.* is a folder, not a session file: name one of the \.jsonl files in it\n$/],
		// Not "cannot resume …/notes.txt: Cannot read session …/notes.txt: …": the path once.
		[
			"notes.txt",
			/^capstan: Cannot read session \/[^ ]*\/notes\.txt: the first line is not a capstan session header\.\n$/,
		],
		// A system error in the same words, not Node's ("ENOTDIR: not a directory, open '…'", the path again).
		[
			"notes.txt/s.jsonl",
			/^capstan: Cannot read session \/[^ ]*\/notes\.txt\/s\.jsonl: not a directory\.\n$/,
		],
		["loop.jsonl", /^capstan: Cannot read session \/[^ ]*\/loop\.jsonl: too many symbolic links\.\n$/],
		["<300 n>.jsonl", /^capstan: Cannot read session \/[^ ]*\/n+\.jsonl: name too long\.\n$/],
	])(
		"--resume %s that cannot be read is said alone, before the demo shows anything",
		async (file, message) => {
			const cwd = tempProject();
			writeFileSync(join(cwd, "notes.txt"), "not a session\n");
			symlinkSync("loop.jsonl", join(cwd, "loop.jsonl"));
			for (const mode of [["-p", "x"], ["--json", "-p", "x"], ["--rpc"]]) {
				const name = file.replace("<300 n>", "n".repeat(300));
				const { code, stdout, stderr } = await run(["--demo", "--resume", name, ...mode], cwd);
				expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
				expect(stderr).toMatch(message);
			}
		},
	);

	it("a --base-url server that is not running is said to be unreachable, not to need --model", async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
		const { code, stderr } = await run(["--base-url", `http://127.0.0.1:${port}/v1`, "-p", "hi"]);
		expect(stderr).toBe(
			`capstan: cannot reach http://127.0.0.1:${port}/v1 (connection refused): is the server running at that address? (--model <id> names its model without asking it)\n`,
		);
		expect(code).toBe(2);
	});

	it('a --base-url that fetch refuses says why, not only "fetch failed"', async () => {
		// Port 9 is on fetch's list of bad ports: refused before any connection, so no server is needed.
		const url = "http://127.0.0.1:9/v1";
		const cause = await fetch(`${url}/models`).then(
			() => "",
			(error: Error) => (error.cause as Error).message,
		);
		expect(cause).not.toBe("");
		const { code, stderr } = await run(["--base-url", url, "-p", "hi"]);
		expect(stderr).toBe(
			`capstan: cannot ask ${url}/models which model to use (fetch failed: ${cause}): pass --model <id>\n`,
		);
		expect(code).toBe(2);
	});

	it("names the broken settings file and the key", async () => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "capstan.json"), '{"thinking": "lots"}');
		expect(await run(["-p", "hi"], cwd)).toEqual({
			code: 2,
			stdout: "",
			stderr: `capstan: ${join(cwd, "capstan.json")}: "thinking" must be one of off, minimal, low, medium, high, xhigh\n`,
		});
	});

	it("refuses --continue and --resume when the settings turn sessions off, as with --no-session", async () => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "capstan.json"), '{"session": false}');
		for (const argv of [["--continue"], ["--resume", "s.jsonl"]]) {
			const { code, stderr } = await run([...argv, "--demo", "-p", "x"], cwd);
			expect(code).toBe(2);
			expect(stderr).toMatch(
				/goes on in a session file, but the settings turn sessions off \("session": false\)/,
			);
		}
	});

	it("reads the user settings from $XDG_CONFIG_HOME and says so when the JSON is broken", async () => {
		const cwd = tempProject();
		const { mkdirSync } = await import("node:fs");
		mkdirSync(join(cwd, ".config", "capstan"), { recursive: true });
		writeFileSync(join(cwd, ".config", "capstan", "config.json"), "{ model: 1 }");
		const { code, stderr } = await run(["-p", "hi"], cwd);
		expect(code).toBe(2);
		expect(stderr).toMatch(
			new RegExp(`^capstan: ${join(cwd, ".config", "capstan", "config.json")} is not valid JSON`),
		);
	});
});

describe("a session folder that cannot be created", () => {
	it.each([
		["is a file", "afile", /afile is not a directory/],
		["is under a file", "afile/sessions", /afile is not a directory/],
	])("%s: exit 2 with one line, before anything runs", async (_, dir, reason) => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "afile"), "");
		const { code, stdout, stderr } = await run(["--demo", "-p", "hi", "--session-dir", dir], cwd);
		expect(code).toBe(2);
		expect(stdout).toBe("");
		expect(stderr).toMatch(new RegExp(`^capstan: cannot write sessions to ${join(cwd, dir)}: .*\n$`));
		expect(stderr).toMatch(reason);
		expect(stderr).toContain("--session-dir, or --no-session");
	});
});

describe("the demo's sandbox", () => {
	const sandboxes = (dir: string) => readdirSync(dir).filter((name) => name.startsWith("capstan-demo-"));

	it("is removed when the command ends, also with --no-session and after an early failure", async () => {
		const cwd = tempProject(); // also TMPDIR, where the sandbox is made
		expect((await run(["--demo", "-p", "hi", "--no-session"], cwd)).code).toBe(0);
		expect(sandboxes(cwd)).toEqual([]);
		writeFileSync(join(cwd, "afile"), "");
		expect((await run(["--demo", "-p", "hi", "--session-dir", "afile"], cwd)).code).toBe(2);
		expect(sandboxes(cwd)).toEqual([]);
	});

	it("is removed when --continue finds no session to go on with", async () => {
		// The README: removed when the command ends. --continue is checked once the app is assembled (the
		// sandbox made, MCP servers started), so that check must close the app like every other way out.
		const cwd = tempProject();
		const { code, stderr } = await run(["--demo", "--continue", "-p", "hi"], cwd);
		expect(stderr).toMatch(/--continue has no session there/);
		expect(code).toBe(2);
		expect(sandboxes(cwd)).toEqual([]);
	});

	it("keeps only the session written in it, whose path was shown", async () => {
		const cwd = tempProject();
		const { code, stdout } = await run(["--demo", "-p", "hi"], cwd);
		expect(code).toBe(0);
		const [sandbox, ...others] = sandboxes(cwd);
		expect(others).toEqual([]);
		// And the marker by which a later demo knows it for a demo's, to remove once a day has passed.
		expect(readdirSync(join(cwd, sandbox ?? "")).sort()).toEqual([DEMO_MARKER, "sessions"]);
		expect(stdout).toContain(`session: ${join(cwd, sandbox ?? "", "sessions")}/`);
	});
});
