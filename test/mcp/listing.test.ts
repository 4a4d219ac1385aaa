/**
 * `tools/list` answers the SDK's schema refuses (a real SDK `Server` answering with raw tool entries, over
 * streamable HTTP on 127.0.0.1): one odd tool must not cost the server all of its tools.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpServers } from "../../src/mcp/index.js";
import { agentWith, callReply, resultText, textReply } from "./support/harness.js";
import { type HttpMcpServer, startHttpMcpServer } from "./support/http-server.js";

/** A server listing one good tool and entries that break the MCP schema in different ways. */
function oddServer(): Server {
	const server = new Server({ name: "odd", version: "1.0.0" }, { capabilities: { tools: {} } });
	const tools = [
		{ name: "good", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
		// No `type`: an object schema all the same (seen from servers built without an SDK).
		{ name: "untyped", description: "No type", inputSchema: { properties: { x: { type: "string" } } } },
		{ name: "bare" },
		{ name: "bad_output", inputSchema: { type: "object" }, outputSchema: { type: "array" } },
		{ name: "listy", inputSchema: { type: "array" } },
		{ description: "no name" },
	];
	server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }) as never);
	server.setRequestHandler(CallToolRequestSchema, async (request) => ({
		content: [
			{ type: "text", text: `${request.params.name} got ${JSON.stringify(request.params.arguments)}` },
		],
	}));
	return server;
}

let http: HttpMcpServer;
afterAll(async () => {
	await http?.close();
});

describe("a tools/list the SDK's schema refuses", () => {
	it("repairs what it can, skips and names the rest, and the server's tools stay usable", async () => {
		http = await startHttpMcpServer(oddServer);
		const mcp = await connectMcpServers({ mcpServers: { odd: { url: http.url } } });
		try {
			expect(mcp.tools().map((t) => t.name)).toEqual([
				"odd__good",
				"odd__untyped",
				"odd__bare",
				"odd__bad_output",
			]);
			const untyped = mcp.tools().find((t) => t.name === "odd__untyped");
			expect(untyped?.parameters).toEqual({ type: "object", properties: { x: { type: "string" } } });
			expect(mcp.tools().find((t) => t.name === "odd__bare")?.parameters).toEqual({ type: "object" });
			expect(mcp.servers.get("odd")?.skippedTools).toEqual([
				'tool "listy": its inputSchema has type "array"; a tool\'s arguments are an object',
				"tool #6: not a tool with a name",
			]);
			const { agent, toolResults } = agentWith(mcp.tools(), [
				callReply("odd__untyped", { x: "1" }),
				textReply("done"),
			]);
			await agent.prompt("go");
			expect(resultText(toolResults()[0]!)).toBe('untyped got {"x":"1"}');
		} finally {
			await mcp.close();
		}
	});
});
