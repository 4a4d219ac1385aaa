/**
 * MCP servers in the `capstan` command: `--mcp FILE` and `mcpServers` in the settings start a real stdio MCP
 * server (the SDK's McpServer), whose tools reach the model beside the workspace tools; a project's
 * capstan.json starts them only with `--mcp capstan.json`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { attachMcpTools } from "../../src/cli/mcp.js";
import { EXIT } from "../../src/cli/outcome.js";
import type { AgentTool } from "../../src/tools/types.js";
import { MUTATING_TOOLS } from "../../src/workspace/index.js";
import { eventually, executeAlone, hasEnded, isRunning, stdioServerConfig } from "../mcp/support/harness.js";
import { type HttpMcpServer, startHttpMcpServer } from "../mcp/support/http-server.js";
import { chunk, DONE, textReply, usageChunk } from "../providers/openai-completions/synthetic.js";
import { firstBodyMatching, REPO_ROOT } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { cleanUpAfterEach, RpcClient, runCli, startCli, tempProject } from "./support.js";

closeServersAfterEach();
cleanUpAfterEach();

const CHAT_TEXT = firstBodyMatching(["openai-chat"], "openai-text");

const mcpServers: HttpMcpServer[] = [];
afterEach(async () => {
	await Promise.all(mcpServers.splice(0).map((server) => server.close()));
});

/**
 * An HTTP MCP server listing a good tool and one the bridge must leave out; while `listing.fails` is set, its
 * `tools/list` answers with an error.
 */
async function oddMcpServer(listing = { fails: false }): Promise<HttpMcpServer> {
	const http = await startHttpMcpServer(() => {
		const server = new Server({ name: "odd", version: "1.0.0" }, { capabilities: { tools: {} } });
		server.setRequestHandler(ListToolsRequestSchema, async () => {
			if (listing.fails) throw new Error("the tool index is rebuilding");
			return {
				tools: [
					{ name: "good", inputSchema: { type: "object" } },
					{ name: "listy", inputSchema: { type: "array" } },
				],
			} as never;
		});
		return server;
	});
	mcpServers.push(http);
	return http;
}

/** A SYNTHETIC Chat Completions reply calling `name`. */
function toolCall(name: string, args: Record<string, unknown>): string {
	const call = { index: 0, id: `call_${name}`, type: "function", function: { name, arguments: "" } };
	return (
		chunk({ role: "assistant", content: null, tool_calls: [call] }) +
		chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }) +
		chunk({}, "tool_calls") +
		usageChunk(10, 5) +
		DONE
	);
}

async function toolsSent(args: string[], cwd: string): Promise<string[]> {
	const server = await serve({ type: "sse", body: CHAT_TEXT, split: false });
	const run = await runCli(["-p", "hi", "--base-url", `${server.baseUrl}/v1`, "--model", "m", ...args], {
		cwd,
	});
	expect(run.stderr).toBe("");
	expect(run.code).toBe(0);
	const body = JSON.parse(server.requests[0]?.body ?? "{}") as { tools?: { function: { name: string } }[] };
	return body.tools?.map((tool) => tool.function.name) ?? [];
}

describe("capstan with MCP servers", () => {
	it("--mcp FILE: the server's tools are offered after the workspace tools", async () => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "mcp.json"), JSON.stringify(stdioServerConfig("t")));
		const names = await toolsSent(["--mcp", "mcp.json"], cwd);
		expect(names.slice(0, 6)).toEqual([
			"read_file",
			"list_dir",
			"search_text",
			"write_file",
			"edit_file",
			"shell",
		]);
		expect(names).toContain("t__echo");
		expect(names).toContain("t__count_to");
	}, 30_000);

	it("mcpServers in capstan.json, started with --mcp capstan.json", async () => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "capstan.json"), JSON.stringify(stdioServerConfig("proj")));
		expect(await toolsSent(["--mcp", "capstan.json"], cwd)).toContain("proj__echo");
	}, 30_000);

	it("a project's capstan.json alone starts no server: a cloned repository can neither run commands nor receive calls", async () => {
		const cwd = tempProject();
		const marker = join(cwd, "ran");
		const command = { command: "sh", args: ["-c", `echo ran > '${marker}'`] };
		const server = await serve({ type: "sse", body: CHAT_TEXT, split: false });
		const remote = { url: `${server.baseUrl}/mcp` };
		writeFileSync(join(cwd, "capstan.json"), JSON.stringify({ mcpServers: { evil: command, remote } }));
		const run = await runCli(
			["-p", "hi", "--base-url", `${server.baseUrl}/v1`, "--model", "m", "--no-session"],
			{ cwd },
		);
		expect(run.code).toBe(0);
		expect(run.stderr).toBe(
			`capstan: ${join(cwd, "capstan.json")}: MCP servers "evil", "remote" not started: a project's settings cannot start servers (a command runs code, a URL receives the agent's calls); pass --mcp capstan.json to start them\n`,
		);
		expect(existsSync(marker)).toBe(false);
		expect(server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
	}, 30_000);

	it("a broken MCP file is a usage error naming the file, exit 2", async () => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "mcp.json"), JSON.stringify({ mcpServers: { x: { args: [] } } }));
		const run = await runCli(
			["-p", "hi", "--mcp", "mcp.json", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
			{
				cwd,
			},
		);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/--mcp .*mcp\.json: server "x": expected "command" \(stdio\) or "url"/);
	});

	it("a tool a server's listing cannot offer is said once on stderr, the others offered", async () => {
		const cwd = tempProject();
		const mcp = await oddMcpServer();
		writeFileSync(join(cwd, "mcp.json"), JSON.stringify({ mcpServers: { odd: { url: mcp.url } } }));
		const server = await serve({ type: "sse", body: CHAT_TEXT, split: false });
		const run = await runCli(
			["-p", "hi", "--base-url", `${server.baseUrl}/v1`, "--model", "m", "--no-session", "--mcp", "mcp.json"],
			{ cwd },
		);
		expect(run.code).toBe(0);
		expect(run.stderr).toBe(
			`capstan: MCP server "odd": left out tool "listy": its inputSchema has type "array"; a tool's arguments are an object\n`,
		);
		const body = JSON.parse(server.requests[0]?.body ?? "{}") as { tools?: { function: { name: string } }[] };
		expect(body.tools?.map((tool) => tool.function.name)).toContain("odd__good");
	}, 30_000);

	it("a failed re-listing is said once while it keeps failing, and again after the server recovered", async () => {
		const listing = { fails: false };
		const mcp = await oddMcpServer(listing);
		const warnings: string[] = [];
		const tools: { name: string }[] = [];
		const connection = await attachMcpTools(
			{ mcpServers: { odd: { url: mcp.url } } },
			tools as never[],
			new Set(),
			{
				warn: (text) => warnings.push(text),
			},
		);
		try {
			const leftOut = `MCP server "odd": left out tool "listy": its inputSchema has type "array"; a tool's arguments are an object`;
			expect(warnings).toEqual([leftOut]);
			listing.fails = true;
			await connection.refresh();
			await connection.refresh();
			const failed = `MCP server "odd": re-listing its tools failed, its previous tools stay offered: MCP error -32603: the tool index is rebuilding`;
			expect(warnings).toEqual([leftOut, failed]);
			expect(tools.map((tool) => tool.name)).toContain("odd__good");
			listing.fails = false;
			await connection.refresh();
			listing.fails = true;
			await connection.refresh();
			expect(warnings).toEqual([leftOut, failed, failed]);
		} finally {
			await connection.close();
		}
	}, 30_000);

	it("a server that exits is said once on stderr, and a call to its tools is an error result saying so", async () => {
		const cwd = tempProject();
		writeFileSync(join(cwd, "mcp.json"), JSON.stringify(stdioServerConfig("t")));
		const server = await serve(
			{ type: "sse", body: toolCall("t__die", {}), split: false },
			{ type: "sse", body: toolCall("t__echo", { text: "still there?" }), split: false },
			{ type: "sse", body: textReply("It is gone."), split: false },
		);
		const run = await runCli(
			[
				"-p",
				"hi",
				"--yes",
				"--base-url",
				`${server.baseUrl}/v1`,
				"--model",
				"m",
				"--no-session",
				"--mcp",
				"mcp.json",
			],
			{ cwd },
		);
		expect(run.code).toBe(0);
		expect(run.stderr).toBe(
			`capstan: MCP server "t": connection lost (the server exited or closed the connection); calls to its tools fail until capstan is restarted\n`,
		);
		const closed =
			"the connection to the server is closed (the server exited, or its connection was lost or closed); none of its tools can be called now";
		const lastMessage = (i: number) =>
			(JSON.parse(server.requests[i]?.body ?? "{}") as { messages: { content: unknown }[] }).messages.at(-1);
		expect(lastMessage(1)?.content).toBe(`MCP tool "die" on server "t" failed: ${closed}`);
		expect(lastMessage(2)?.content).toBe(`MCP tool "echo" on server "t" failed: ${closed}`);
	}, 30_000);

	/** `http` attached as server "remote", its warnings collected; `echo` calls its echo tool. */
	async function attachRemote(http: { url: string }) {
		const warnings: string[] = [];
		const tools: AgentTool[] = [];
		const connection = await attachMcpTools({ mcpServers: { remote: { url: http.url } } }, tools, new Set(), {
			warn: (text) => warnings.push(text),
		});
		const echo = () => executeAlone(tools.find((tool) => tool.name === "remote__echo")!, { text: "hi" });
		return { warnings, connection, echo };
	}

	it("an HTTP server that cannot be reached is said once, with the cause, and again if lost after it was back", async () => {
		const http = await startHttpMcpServer();
		mcpServers.push(http);
		const { warnings, connection, echo } = await attachRemote(http);
		try {
			await http.stop();
			await echo();
			await echo();
			expect(warnings).toEqual([
				expect.stringMatching(
					/^MCP server "remote": cannot be reached \((connect ECONNREFUSED 127\.0\.0\.1:\d+|other side closed)\); calls to its tools fail until it can be reached again$/,
				),
			]);
			await http.resume();
			expect((await echo()).isError).toBeUndefined();
			await http.stop();
			await echo();
			expect(warnings).toHaveLength(2);
		} finally {
			await connection.close();
		}
	}, 30_000);

	it("an HTTP server that restarted and forgot the session is said once, and its tools work on a new one", async () => {
		const http = await startHttpMcpServer(undefined, { sessions: "each", keepAlive: false });
		mcpServers.push(http);
		const { warnings, connection, echo } = await attachRemote(http);
		try {
			await http.restart();
			expect((await echo()).isError).toBeUndefined();
			expect((await echo()).isError).toBeUndefined();
			expect(warnings).toEqual([
				`MCP server "remote": it no longer knew capstan's session (it restarted); a new session began, its tools are listed again`,
			]);
		} finally {
			await connection.close();
		}
	}, 30_000);

	it("an HTTP server that restarted and refused a new session is said once as lost, then once renewed", async () => {
		let broken = false;
		const refuse = (body: unknown) =>
			broken && (body as { method?: string }).method === "initialize" ? 503 : undefined;
		const http = await startHttpMcpServer(undefined, { sessions: "each", keepAlive: false, refuse });
		mcpServers.push(http);
		const { warnings, connection, echo } = await attachRemote(http);
		try {
			broken = true;
			await http.restart();
			expect((await echo()).isError).toBe(true);
			expect((await echo()).isError).toBe(true);
			expect(warnings).toEqual([
				expect.stringMatching(
					/^MCP server "remote": it no longer knew capstan's session \(it restarted\) and refused a new one \(Streamable HTTP error: Error POSTing to endpoint: .*\); each call to its tools asks again$/,
				),
			]);
			broken = false;
			expect((await echo()).isError).toBeUndefined();
			expect(warnings.slice(1)).toEqual([
				`MCP server "remote": it no longer knew capstan's session (it restarted); a new session began, its tools are listed again`,
			]);
		} finally {
			await connection.close();
		}
	}, 30_000);

	it("a stdio server's stdout lines that are no MCP message: the first three are said, made safe, then that more are not", async () => {
		const server = resolve(REPO_ROOT, "test/mcp/support/bad-lines-server.ts");
		const tsx = resolve(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");
		const warnings: string[] = [];
		const tools: AgentTool[] = [];
		const connection = await attachMcpTools(
			{ mcpServers: { bad: { command: process.execPath, args: ["--import", tsx, server] } } },
			tools,
			new Set(),
			{ warn: (text) => warnings.push(text) },
		);
		try {
			const logs = tools.find((tool) => tool.name === "bad__logs_then_answers")!;
			// Each call writes two lines: with the greeting, five.
			expect((await executeAlone(logs)).isError).toBeUndefined();
			expect((await executeAlone(logs)).isError).toBeUndefined();
			const stray = `MCP server "bad" wrote a line on stdout that is no MCP message (ignored; a server's logs belong on stderr): `;
			expect(warnings).toEqual([
				`${stray}\u241b[2Jbad-lines server 1.0 starting`,
				`${stray}working on it for nobody`,
				`${stray}{"level":"info","msg":"still working","id":"log-1"}`,
				`MCP server "bad": its further stdout lines that are no MCP message are ignored unshown`,
			]);
		} finally {
			await connection.close();
		}
	}, 30_000);

	it("MCP tools ask for approval unless the server marks them readOnlyHint", async () => {
		const tools: never[] = [];
		const confirm = new Set(MUTATING_TOOLS);
		const connection = await attachMcpTools(stdioServerConfig("t"), tools, confirm);
		try {
			expect(confirm.has("t__echo")).toBe(false); // readOnlyHint: true
			expect(confirm.has("t__die")).toBe(true);
			expect(confirm.has("write_file")).toBe(true);
			expect((tools as { name: string }[]).map((t) => t.name)).toContain("t__echo");
		} finally {
			await connection.close();
		}
	}, 30_000);

	it("a signal while the servers close forces the exit, which still ends them: none outlives capstan", async () => {
		const cwd = tempProject();
		const pidFile = join(cwd, "server.pid");
		const inputEnded = join(cwd, "server-input-ended");
		// A server that outlives the end of its input (only a signal ends it): closing gives it seconds to exit.
		const config = stdioServerConfig("t", { MCP_TEST_PID_FILE: pidFile, MCP_TEST_OUTLIVE_STDIN: inputEnded });
		writeFileSync(join(cwd, "mcp.json"), JSON.stringify(config));
		const rpc = new RpcClient(startCli(["--rpc", "--demo", "--no-session", "--mcp", "mcp.json"], { cwd }));
		await rpc.waitFor((line) => line.type === "ready");
		const pid = Number(readFileSync(pidFile, "utf8"));
		try {
			expect(isRunning(pid)).toBe(true);
			rpc.child.kill("SIGTERM"); // idle: the session ends, and the servers are closed
			expect(await eventually(() => existsSync(inputEnded))).toBe(true);
			rpc.child.kill("SIGINT"); // while the server is given its time: exit now
			expect(await rpc.exited).toBe(EXIT.interrupted);
			expect(await hasEnded(pid)).toBe(true);
		} finally {
			if (isRunning(pid)) process.kill(pid, "SIGKILL");
		}
	}, 30_000);
});
