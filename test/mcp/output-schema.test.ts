/**
 * A tool's `outputSchema` checks its `structuredContent` whichever `tools/list` page listed it, and on a page the
 * bridge had to repair. A real SDK `Server` (the low-level one: the SDK's `McpServer` neither pages its list nor
 * sends results that break its own schemas) over the SDK's in-memory transport.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../src/mcp/index.js";
import type { ToolResult } from "../../src/tools/types.js";
import { executeAlone } from "./support/harness.js";

const COUNT = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

/** Each tool's `tools/call` result: `off_*` break their output schema, `ok` keeps it. */
const RESULTS: Record<string, unknown> = {
	off_page1: { content: [{ type: "text", text: "one" }], structuredContent: { n: "one" } },
	missing_page1: { content: [{ type: "text", text: "no structure" }] },
	failed_page1: {
		content: [{ type: "text", text: "the disk is full" }],
		structuredContent: {},
		isError: true,
	},
	ok_page1: { content: [{ type: "text", text: "1" }], structuredContent: { n: 1 } },
	off_page2: { content: [{ type: "text", text: "two" }], structuredContent: { n: "two" } },
	task_only: { content: [{ type: "text", text: "ran without a task" }] },
	off_repaired: { content: [{ type: "text", text: "three" }], structuredContent: { n: "three" } },
};

/** Three pages; the last has an entry the SDK's schema refuses, so the bridge repairs it (tools.ts). */
const PAGES = [
	{
		tools: ["off_page1", "missing_page1", "failed_page1", "ok_page1"].map((name) => ({
			name,
			inputSchema: { type: "object" },
			outputSchema: COUNT,
		})),
		nextCursor: "2",
	},
	{
		tools: [
			{ name: "off_page2", inputSchema: { type: "object" }, outputSchema: COUNT },
			{ name: "task_only", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
		],
		nextCursor: "3",
	},
	{
		tools: [
			{ name: "untyped", inputSchema: { properties: {} } },
			{ name: "off_repaired", inputSchema: { type: "object" }, outputSchema: COUNT },
		],
	},
];

function pagedServer(): Server {
	const server = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } });
	server.setRequestHandler(ListToolsRequestSchema, async (request) => {
		const page = PAGES[Number(request.params?.cursor ?? "1") - 1];
		return page as never;
	});
	server.setRequestHandler(CallToolRequestSchema, async (request) => RESULTS[request.params.name] as never);
	return server;
}

const clients: Client[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function call(name: string): Promise<ToolResult<unknown>> {
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	await pagedServer().connect(serverSide);
	const client = new Client({ name: "host", version: "1.0.0" });
	clients.push(client);
	await client.connect(clientSide);
	const tool = (await mcpTools(client, { prefix: "paged" })).find((t) => t.name === `paged__${name}`);
	if (!tool) throw new Error(`no tool ${name}`);
	return executeAlone(tool);
}

const text = (result: ToolResult<unknown>) =>
	result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

describe("structuredContent against the tool's outputSchema, on every page of tools/list", () => {
	it("a result breaking it is an error result naming the problem, on the first page as on the last", async () => {
		const prefix = "failed: the server's result is not a valid tools/call result: ";
		for (const [name, received] of [
			["off_page1", "one"],
			["off_page2", "two"],
			["off_repaired", "three"],
		] as const) {
			const result = await call(name);
			expect(result.isError, name).toBe(true);
			expect(text(result)).toBe(
				`MCP tool "${name}" on server "paged" ${prefix}its structuredContent does not match the tool's output schema: /n: must be number (received string "${received}")`,
			);
		}
		const missing = await call("missing_page1");
		expect(missing.isError).toBe(true);
		expect(text(missing)).toBe(
			`MCP tool "missing_page1" on server "paged" ${prefix}the tool has an output schema, but its result has no structuredContent`,
		);
	});

	it("a tool the server runs only as a task is refused with a reason, whichever page listed it", async () => {
		const result = await call("task_only");
		expect(result.isError).toBe(true);
		expect(text(result)).toBe(
			'MCP tool "task_only" on server "paged" failed: the server runs this tool only as an MCP task (execution.taskSupport: required), which capstan does not support',
		);
	});

	it("a result that keeps it passes; an error result is the server's own error, unchecked", async () => {
		const ok = await call("ok_page1");
		expect(ok.isError).toBeUndefined();
		expect(text(ok)).toBe("1");
		const failed = await call("failed_page1");
		expect(failed.isError).toBe(true);
		expect(text(failed)).toBe("the disk is full");
	});
});
