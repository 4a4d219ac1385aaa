/** The `mcpServers` configuration check, and `mcpTools` for a host that already has a `Client`. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
	isHttpServer,
	mcpResultToCapstan,
	mcpToolName,
	mcpTools,
	parseMcpServersConfig,
} from "../../src/mcp/index.js";
import { executeAlone } from "./support/harness.js";
import { createTestServer } from "./support/test-server.js";

describe("parseMcpServersConfig", () => {
	it("accepts stdio and HTTP entries", () => {
		const config = parseMcpServersConfig({
			mcpServers: {
				files: { command: "npx", args: ["-y", "server-files"], env: { ROOT: "/tmp" }, cwd: "/" },
				remote: { url: "https://example.invalid/mcp", headers: { Authorization: "Bearer x" }, type: "http" },
			},
		});
		expect(config.mcpServers.files).toEqual({
			command: "npx",
			args: ["-y", "server-files"],
			env: { ROOT: "/tmp" },
			cwd: "/",
		});
		expect(isHttpServer(config.mcpServers.remote!)).toBe(true);
		expect(isHttpServer(config.mcpServers.files!)).toBe(false);
		expect(config.mcpServers.remote).toEqual({
			url: "https://example.invalid/mcp",
			headers: { Authorization: "Bearer x" },
		});
	});

	it.each([
		[{}, /expected an object with an "mcpServers" object/],
		[{ mcpServers: { "a b": { command: "x" } } }, /server "a b": a server name may use letters/],
		[{ mcpServers: { a: { args: [] } } }, /server "a": expected "command" \(stdio\) or "url"/],
		[{ mcpServers: { a: { command: "x", args: "y" } } }, /"args" must be an array of strings/],
		[{ mcpServers: { a: { url: "ftp://x" } } }, /"url" must be http: or https:/],
		[{ mcpServers: { a: { url: "https://x", type: "sse" } } }, /SSE transport is not supported/],
		[{ mcpServers: { a: { command: "x", env: { KEY: 1 } } } }, /"env": "KEY" must be a string/],
	])("refuses %j with a message naming the problem", (value, message) => {
		expect(() => parseMcpServersConfig(value, "mcp.json")).toThrow(message);
	});

	it("never echoes a value (env and headers hold secrets)", () => {
		expect(() =>
			parseMcpServersConfig({
				mcpServers: { a: { url: "https://x", headers: { Authorization: ["s3cret"] } } },
			}),
		).toThrow(/^(?!.*s3cret)/);
	});
});

describe("mcpTools and the mapping", () => {
	it("lists a connected Client's tools under the given prefix", async () => {
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		const server = createTestServer(() => {});
		await server.connect(serverSide);
		const client = new Client({ name: "host", version: "1.0.0" });
		await client.connect(clientSide);
		try {
			const tools = await mcpTools(client, { prefix: "mine" });
			expect(tools.map((t) => t.name)).toContain("mine__echo");
			const echo = tools.find((t) => t.name === "mine__echo")!;
			expect(await executeAlone(echo, { text: "hi" })).toEqual({
				content: [{ type: "text", text: "echo: hi" }],
				details: { server: "mine", tool: "echo", structuredContent: { length: 2 } },
			});
		} finally {
			await client.close();
		}
	});

	it("names are provider-safe", () => {
		expect(mcpToolName("git-hub", "search.code")).toBe("git-hub__search_code");
		// Gemini wants a letter or `_` first; OpenAI and Gemini at most 64 characters (MCP allows 128).
		expect(mcpToolName("1password", "read")).toBe("_1password__read");
		const long = mcpToolName(
			"company-internal-knowledge-base",
			"search_documents_by_semantic_similarity_query",
		);
		expect(long).toMatch(/^company-internal-knowledge-base__search_documents_by_se_[0-9a-f]{8}$/);
		expect(long).toHaveLength(64);
		const other = mcpToolName(
			"company-internal-knowledge-base",
			"search_documents_by_semantic_similarity_other",
		);
		expect(other).toHaveLength(64);
		expect(other).not.toBe(long);
		expect(
			mcpToolName("company-internal-knowledge-base", "search_documents_by_semantic_similarity_query"),
		).toBe(long);
	});

	it("a server that repeats its page cursor is listed once, not forever", async () => {
		for (const cursor of ["", "again"]) {
			const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
			const server = new Server({ name: "pager", version: "1.0.0" }, { capabilities: { tools: {} } });
			let pages = 0;
			server.setRequestHandler(ListToolsRequestSchema, () => {
				pages++;
				const name = pages % 2 === 1 ? "first" : "second";
				return { tools: [{ name, inputSchema: { type: "object" } }], nextCursor: cursor };
			});
			await server.connect(serverSide);
			const client = new Client({ name: "host", version: "1.0.0" });
			await client.connect(clientSide);
			try {
				const tools = await mcpTools(client, { prefix: "p" });
				expect(tools.map((t) => t.name)).toEqual(cursor === "" ? ["p__first"] : ["p__first", "p__second"]);
				expect(pages).toBe(cursor === "" ? 1 : 2);
			} finally {
				await client.close();
			}
		}
	});

	it("structured-only results show the model JSON; binary resources are described, images kept", () => {
		const names = { server: "s", tool: "t" };
		expect(mcpResultToCapstan({ content: [], structuredContent: { n: 1 } }, names).content).toEqual([
			{ type: "text", text: '{"n":1}' },
		]);
		const mapped = mcpResultToCapstan(
			{
				content: [
					{ type: "resource", resource: { uri: "file:///a.png", mimeType: "image/png", blob: "AAAA" } },
					{ type: "resource", resource: { uri: "file:///a.zip", mimeType: "application/zip", blob: "AAAA" } },
				],
			},
			names,
		);
		expect(mapped.content).toEqual([
			{ type: "image", data: "AAAA", mimeType: "image/png" },
			{ type: "text", text: "[binary resource file:///a.zip (application/zip) omitted]" },
		]);
	});
});
