/**
 * capstan/mcp over streamable HTTP on 127.0.0.1 (the SDK's StreamableHTTPServerTransport on node:http), next
 * to the same server over stdio: two servers offering the same tool names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection } from "../../src/mcp/index.js";
import { agentWith, callReply, resultText, stdioServerConfig, textReply } from "./support/harness.js";
import { type HttpMcpServer, startHttpMcpServer } from "./support/http-server.js";

let http: HttpMcpServer;
let mcp: McpConnection;
beforeAll(async () => {
	http = await startHttpMcpServer();
	mcp = await connectMcpServers(
		{
			mcpServers: {
				...stdioServerConfig("local").mcpServers,
				remote: { url: http.url, headers: { Authorization: "Bearer test-token" } },
			},
		},
		{ stderr: "ignore" },
	);
}, 30_000);
afterAll(async () => {
	await mcp?.close();
	await http?.close();
});

describe("capstan/mcp over streamable HTTP", () => {
	it("two servers with the same tools: every name is prefixed by its server, in configuration order", () => {
		const names = mcp.tools().map((t) => t.name);
		expect(names).toContain("local__echo");
		expect(names).toContain("remote__echo");
		expect(names.indexOf("local__echo")).toBeLessThan(names.indexOf("remote__echo"));
		expect(new Set(names).size).toBe(names.length);
		// The configured headers went with every request.
		expect(http.authorizations.length).toBeGreaterThan(0);
		expect(http.authorizations.every((a) => a === "Bearer test-token")).toBe(true);
	});

	it("calls, errors and progress go to the right server", async () => {
		const { agent, events, toolResults } = agentWith(mcp.tools(), [
			{
				content: [
					{ type: "toolCall", name: "remote__echo", arguments: { text: "over http" } },
					{ type: "toolCall", name: "remote__fail", arguments: {} },
					{ type: "toolCall", name: "remote__count_to", arguments: { n: 2 } },
				],
			},
			textReply("done"),
		]);
		await agent.prompt("go");
		const [echo, fail, count] = toolResults();
		expect(resultText(echo!)).toBe("echo: over http");
		expect(echo?.details).toEqual({ server: "remote", tool: "echo", structuredContent: { length: 9 } });
		expect(fail).toMatchObject({ isError: true });
		expect(resultText(count!)).toBe("counted to 2");
		expect(events.filter((e) => e.type === "tool_execution_update")).toHaveLength(2);
	});

	it("SPEC A3: an abort cancels the HTTP call on the server", async () => {
		const { agent, toolResults } = agentWith(mcp.tools(), [
			callReply("remote__wait_for_cancel"),
			textReply("x"),
		]);
		agent.subscribe((event) => {
			if (event.type === "tool_execution_update") agent.abort("stop");
		});
		await agent.prompt("wait");
		expect(toolResults()[0]?.details).toMatchObject({ synthetic: true, reason: "aborted" });
		const { agent: asker, toolResults: answers } = agentWith(mcp.tools(), [
			callReply("remote__cancellations"),
			textReply("ok"),
		]);
		await asker.prompt("how many");
		expect(resultText(answers()[0]!)).toBe("1");
	});

	it("tools/list_changed from the HTTP server updates the live list and tells listeners", async () => {
		const live = mcp.tools();
		const changed = new Promise<string[]>((resolve) => {
			const off = mcp.onToolsChanged((tools) => {
				if (tools.some((t) => t.name === "remote__later")) {
					off();
					resolve(tools.map((t) => t.name));
				}
			});
		});
		const { agent } = agentWith(live, [callReply("remote__add_tool", { name: "later" }), textReply("ok")]);
		await agent.prompt("add");
		expect(await changed).toContain("remote__later");
		// The same array the agent holds, updated in place.
		expect(mcp.tools()).toBe(live);
		expect(live.map((t) => t.name)).toContain("remote__later");
		expect(live.map((t) => t.name)).not.toContain("local__later");
	});
});

describe("connecting", () => {
	it("a server that cannot be reached fails with its name, and nothing is left open", async () => {
		await expect(
			connectMcpServers({
				mcpServers: { gone: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer s3cret" } } },
			}),
		).rejects.toThrow(/^MCP server "gone" failed to connect: /);
		await connectMcpServers({
			mcpServers: { gone: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer s3cret" } } },
		}).catch((error: Error) => expect(error.message).not.toContain("s3cret"));
	});
});
