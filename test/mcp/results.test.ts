/**
 * `tools/call` results the SDK's strict schema refuses: content of a type it does not know (a newer spec, a server
 * built without the SDK) or a malformed block. A real SDK `Server` answers `initialize` and `tools/list`; its
 * `tools/call` answers are written by hand, since the SDK's server checks its own results.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type JSONRPCMessage, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../src/mcp/index.js";
import { executeAlone } from "./support/harness.js";
import { PIXEL_PNG } from "./support/test-server.js";

/** Each tool's raw `tools/call` result. */
const RESULTS: Record<string, unknown> = {
	mixed: {
		content: [
			{ type: "text", text: "ok" },
			{ type: "video", uri: "file:///clip.mp4" },
			{ type: "image", data: PIXEL_PNG, mimeType: "image/png" },
			{ type: "image", data: PIXEL_PNG },
			{ text: "no type" },
		],
	},
	failed_oddly: {
		content: [{ type: "video", uri: "file:///clip.mp4" }],
		structuredContent: { code: 7 },
		isError: true,
	},
	structured_only: { structuredContent: { n: 1 } },
	off_schema: { content: [{ type: "video", uri: "file:///clip.mp4" }], structuredContent: { n: "one" } },
	content_not_list: { content: "oops" },
	bad_structured: { content: [{ type: "text", text: "x" }], structuredContent: ["not", "an", "object"] },
	bad_is_error: { content: [{ type: "text", text: "x" }], isError: "yes" },
};

/** The `outputSchema` of the tool `off_schema`, whose structured content breaks it. */
const OUTPUT_SCHEMA = {
	type: "object" as const,
	properties: { n: { type: "number" } },
	required: ["n"],
};

const clients: Client[] = [];
afterEach(async () => {
	await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The bridge's tools for a server answering `tools/call` with {@link RESULTS}. */
async function tools() {
	const server = new Server({ name: "raw", version: "1.0.0" }, { capabilities: { tools: {} } });
	server.setRequestHandler(ListToolsRequestSchema, async () => ({
		tools: Object.keys(RESULTS).map((name) => ({
			name,
			inputSchema: { type: "object" as const },
			...(name === "off_schema" ? { outputSchema: OUTPUT_SCHEMA } : {}),
		})),
	}));
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	await server.connect(serverSide);
	const handle = serverSide.onmessage;
	serverSide.onmessage = (message: JSONRPCMessage, extra) => {
		if ("method" in message && message.method === "tools/call" && "id" in message) {
			const name = (message.params as { name: string }).name;
			void serverSide.send({ jsonrpc: "2.0", id: message.id, result: RESULTS[name] as never });
		} else handle?.(message, extra);
	};
	const client = new Client({ name: "host", version: "1.0.0" });
	clients.push(client);
	await client.connect(clientSide);
	const list = await mcpTools(client, { prefix: "raw" });
	return (name: string) => {
		const tool = list.find((t) => t.name === `raw__${name}`);
		if (!tool) throw new Error(`no tool ${name}`);
		return executeAlone(tool);
	};
}

describe("tools/call results the SDK's schema refuses", () => {
	it("an unknown content type is noted, the known blocks convert, a malformed block is named", async () => {
		const call = await tools();
		const result = await call("mixed");
		expect(result.isError).toBeUndefined();
		expect(result.content).toEqual([
			{ type: "text", text: "ok" },
			{ type: "text", text: "[unsupported MCP content type video]" },
			{ type: "image", data: PIXEL_PNG, mimeType: "image/png" },
			{
				type: "text",
				text: "[malformed MCP image content omitted: mimeType: Invalid input: expected string, received undefined]",
			},
			{ type: "text", text: "[malformed MCP content omitted: it has no type]" },
		]);
		expect(result.details).toEqual({ server: "raw", tool: "mixed" });
	});

	it("isError and structuredContent still come through beside unknown content", async () => {
		const call = await tools();
		const result = await call("failed_oddly");
		expect(result).toEqual({
			content: [{ type: "text", text: "[unsupported MCP content type video]" }],
			details: { server: "raw", tool: "failed_oddly", structuredContent: { code: 7 } },
			isError: true,
		});
		// No content list at all: the structured content is what the model reads (the SDK's default of []).
		expect((await call("structured_only")).content).toEqual([{ type: "text", text: '{"n":1}' }]);
		// Structured content is still checked against the tool's outputSchema (output-schema.test.ts).
		const offSchema = await call("off_schema");
		expect(offSchema.isError).toBe(true);
		expect(offSchema.content[0]).toMatchObject({
			text: expect.stringMatching(
				/^MCP tool "off_schema" on server "raw" failed: .*structuredContent does not match the tool's output schema/,
			),
		});
	});

	it("a malformed result is a short error result naming what is wrong, not the schema's dump", async () => {
		const call = await tools();
		const expected: Record<string, string> = {
			content_not_list: "the server's result is not a valid tools/call result: content is not a list",
			bad_structured:
				"the server's result is not a valid tools/call result: structuredContent: Invalid input: expected record, received array",
			bad_is_error:
				"the server's result is not a valid tools/call result: isError: Invalid input: expected boolean, received string",
		};
		for (const [name, reason] of Object.entries(expected)) {
			const result = await call(name);
			expect(result.isError).toBe(true);
			expect(result.content).toEqual([
				{ type: "text", text: `MCP tool "${name}" on server "raw" failed: ${reason}` },
			]);
		}
	});
});
