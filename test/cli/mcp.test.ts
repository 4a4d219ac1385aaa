/**
 * MCP servers in the `capstan` command: `--mcp FILE` and `mcpServers` in the settings start a real stdio MCP
 * server (the SDK's McpServer), whose tools reach the model beside the workspace tools; a project's
 * capstan.json starts them only with `--mcp capstan.json`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attachMcpTools } from "../../src/cli/mcp.js";
import { EXIT } from "../../src/cli/outcome.js";
import { MUTATING_TOOLS } from "../../src/workspace/index.js";
import { eventually, hasEnded, isRunning, stdioServerConfig } from "../mcp/support/harness.js";
import { firstBodyMatching } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { cleanUpAfterEach, RpcClient, runCli, startCli, tempProject } from "./support.js";

closeServersAfterEach();
cleanUpAfterEach();

const CHAT_TEXT = firstBodyMatching(["openai-chat"], "openai-text");

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
