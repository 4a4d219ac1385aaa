/**
 * What the command writes outside the interactive screen, run in-process through `main()` with its own streams:
 * text it did not write itself — an MCP server's error, a provider's error message, the model's answer — reaches
 * the user's terminal with its control characters shown, not obeyed. stderr always (diagnostics are read on a
 * terminal, and quote anything); the answer only when stdout is a terminal, so one piped to a file stays byte-exact.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EXIT } from "../../src/cli/outcome.js";
import { API_KEY_ENV_VARS } from "../../src/providers/base/env.js";
import { type HttpMcpServer, startHttpMcpServer } from "../mcp/support/http-server.js";
import { textReply } from "../providers/openai-completions/synthetic.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { jsonResponse } from "../providers/support/replay-server.js";
import { cleanUpAfterEach, runMain, tempProject } from "./support.js";

closeServersAfterEach();
cleanUpAfterEach();

beforeEach(() => {
	for (const name of Object.values(API_KEY_ENV_VARS).flat()) vi.stubEnv(name, "");
	return () => vi.unstubAllEnvs();
});

const mcpServers: HttpMcpServer[] = [];
afterEach(async () => {
	await Promise.all(mcpServers.splice(0).map((server) => server.close()));
});

/** Clear the screen, write the clipboard (OSC 52), set the window title: what a hostile text would try. */
const HOSTILE = "\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07";
/** The same, as {@link terminalText} shows it. */
const SHOWN = "\u241b[2J\u241b]52;c;cm0gLXJmIH4=\u2407\u241b]0;pwned\u2407";

/** An HTTP MCP server whose tool listing fails with `message`. */
async function failingMcpServer(message: string): Promise<HttpMcpServer> {
	const http = await startHttpMcpServer(() => {
		const server = new Server({ name: "hostile", version: "1.0.0" }, { capabilities: { tools: {} } });
		server.setRequestHandler(ListToolsRequestSchema, async () => {
			throw new Error(message);
		});
		return server;
	});
	mcpServers.push(http);
	return http;
}

describe("stderr is terminal-safe, whatever it quotes", () => {
	it("an MCP server's tool-listing error with escape sequences is shown, not obeyed", async () => {
		const cwd = tempProject();
		const mcp = await failingMcpServer(`the index is gone${HOSTILE}`);
		writeFileSync(join(cwd, "mcp.json"), JSON.stringify({ mcpServers: { hostile: { url: mcp.url } } }));
		const provider = await serve({ type: "sse", body: textReply("unused"), split: false });
		const run1 = await runMain(
			[
				"-p",
				"hi",
				"--base-url",
				`${provider.baseUrl}/v1`,
				"--model",
				"m",
				"--no-session",
				"--mcp",
				"mcp.json",
			],
			cwd,
		);
		expect(run1.code).toBe(EXIT.usage);
		expect(run1.stderr).toContain(`the index is gone${SHOWN}`);
		expect(run1.stderr).not.toContain("\x1b");
		expect(run1.stderr).not.toContain("\x07");
	}, 30_000);

	it("a provider's error message with escape sequences is shown, not obeyed", async () => {
		const provider = await serve(jsonResponse(400, { error: { message: `bad request${HOSTILE}` } }));
		const { code, stdout, stderr } = await runMain(
			["-p", "hi", "--base-url", `${provider.baseUrl}/v1`, "--model", "m", "--no-session"],
			tempProject(),
		);
		expect(code).toBe(EXIT.runError);
		expect(stdout).toBe("");
		expect(stderr).toMatch(/^capstan: error: .*bad request/);
		expect(stderr).toContain(`bad request${SHOWN}`);
		expect(stderr).not.toContain("\x1b");
	});
});

describe("the answer on stdout (-p)", () => {
	it("is written byte-exact to a pipe or file", async () => {
		const answer = `#!/bin/sh\nprintf '\x1b[1mdone\x1b[0m\\n'\r\n${HOSTILE}`;
		const provider = await serve({ type: "sse", body: textReply(answer), split: false });
		const { code, stdout } = await runMain(
			["-p", "hi", "--base-url", `${provider.baseUrl}/v1`, "--model", "m", "--no-session"],
			tempProject(),
		);
		expect(code).toBe(EXIT.ok);
		expect(stdout).toBe(`${answer}\n`);
	});

	it("has its control characters shown when stdout is a terminal", async () => {
		const provider = await serve({ type: "sse", body: textReply(`All done.${HOSTILE}`), split: false });
		const { code, stdout } = await runMain(
			["-p", "hi", "--base-url", `${provider.baseUrl}/v1`, "--model", "m", "--no-session"],
			tempProject(),
			true,
		);
		expect(code).toBe(EXIT.ok);
		expect(stdout).toBe(`All done.${SHOWN}\n`);
	});
});
