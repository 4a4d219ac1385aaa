/**
 * `tools/list` answers the SDK's schema refuses, and a listing that never ends (a real SDK `Server` answering
 * with raw tool entries, over streamable HTTP on 127.0.0.1): one odd tool or page must not cost the server all
 * of its tools.
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

/** A server whose every `tools/list` page names a new tool and a new cursor, up to `pages` pages. */
function endlessServer(pages: number): Server {
	const server = new Server({ name: "endless", version: "1.0.0" }, { capabilities: { tools: {} } });
	let listed = 0;
	server.setRequestHandler(ListToolsRequestSchema, async () => {
		listed++;
		// A bound, so a bridge that follows the cursors forever fails here instead of hanging the test.
		if (listed > pages) throw new Error(`listed ${pages} pages already`);
		return { tools: [{ name: `t${listed}`, inputSchema: { type: "object" } }], nextCursor: `page-${listed}` };
	});
	return server;
}

const servers: HttpMcpServer[] = [];
afterAll(async () => {
	await Promise.all(servers.map((server) => server.close()));
});

describe("a tools/list the SDK's schema refuses", () => {
	it("repairs what it can, skips and names the rest, and the server's tools stay usable", async () => {
		const http = await startHttpMcpServer(oddServer);
		servers.push(http);
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

describe("a tools/list that never ends", () => {
	it("a server that hands out a new cursor with every page is listed up to 100 pages, the rest skipped and said", async () => {
		const http = await startHttpMcpServer(() => endlessServer(150));
		servers.push(http);
		const mcp = await connectMcpServers({ mcpServers: { endless: { url: http.url } } });
		try {
			const names = mcp.tools().map((t) => t.name);
			expect(names).toHaveLength(100);
			expect(names.at(0)).toBe("endless__t1");
			expect(names.at(-1)).toBe("endless__t100");
			expect(mcp.servers.get("endless")?.skippedTools).toEqual([
				"tools after page 100: the server kept sending new page cursors; the listing stopped there",
			]);
			expect(mcp.servers.get("endless")?.lastRefreshError).toBeUndefined();
		} finally {
			await mcp.close();
		}
	});
});
