/**
 * Tool names that meet: two tools of one server whose names differ only in characters the providers reject,
 * and two servers whose prefixed names coincide. Every tool stays offered under a name of its own, and a name
 * the model already used keeps reaching the same tool.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentTool } from "../../src/index.js";
import { connectMcpServers, mcpTools } from "../../src/mcp/index.js";
import { type HttpMcpServer, startHttpMcpServer } from "./support/http-server.js";

/** Run a tool directly and return its text. */
async function run(tool: AgentTool | undefined, args: Record<string, unknown> = {}): Promise<string> {
	if (!tool) throw new Error("no such tool");
	const result = await tool.execute("id", args, new AbortController().signal, () => {}, {
		toolCall: { type: "toolCall", id: "id", name: tool.name, arguments: args },
		steeringRequested: new AbortController().signal,
		messages: [],
	});
	return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("tool names that meet", () => {
	it("one server's `read.file` and `read_file` get two names, each reaching its own tool", async () => {
		const server = new McpServer({ name: "files", version: "1.0.0" });
		for (const name of ["read.file", "read_file"])
			server.registerTool(name, { description: name }, async () => ({
				content: [{ type: "text", text: `ran ${name}` }],
			}));
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		await server.connect(serverSide);
		const client = new Client({ name: "t", version: "1" });
		await client.connect(clientSide);
		try {
			const tools = await mcpTools(client, { prefix: "fs" });
			const names = tools.map((t) => t.name);
			expect(new Set(names).size).toBe(2);
			// The name that needed no rewriting is the exact one's; the other carries a hash.
			expect(names[1]).toBe("fs__read_file");
			expect(names[0]).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
			expect(await run(tools[0])).toBe("ran read.file");
			expect(await run(tools[1])).toBe("ran read_file");
		} finally {
			await client.close();
			await server.close();
		}
	});

	describe("across servers", () => {
		const started: HttpMcpServer[] = [];
		afterAll(async () => {
			await Promise.all(started.map((s) => s.close()));
		});

		it("server `s` with a tool `t__echo` next to server `s__t` with `echo`: both are offered, the older name stays", async () => {
			const [s, st] = [await startHttpMcpServer(), await startHttpMcpServer()];
			started.push(s, st);
			const mcp = await connectMcpServers({ mcpServers: { s: { url: s.url }, s__t: { url: st.url } } });
			try {
				const echo = mcp.tools().find((t) => t.name === "s__t__echo");
				expect(echo?.mcp).toMatchObject({ server: "s__t", tool: "echo" });
				// Server `s` gains a tool whose prefixed name is `s__t__echo` too.
				expect(
					await run(
						mcp.tools().find((t) => t.name === "s__add_tool"),
						{ name: "t__echo" },
					),
				).toBe("added t__echo");
				const names = mcp.tools().map((t) => t.name);
				expect(new Set(names).size).toBe(names.length);
				// The name the model may already have used still reaches the same tool; the newcomer is renamed.
				const same = mcp.tools().find((t) => t.name === "s__t__echo");
				expect(same?.mcp).toMatchObject({ server: "s__t", tool: "echo" });
				expect(await run(same, { text: "hi" })).toBe("echo: hi");
				const added = mcp.tools().find((t) => t.mcp.server === "s" && t.mcp.tool === "t__echo");
				expect(added?.name).toMatch(/^s__t__echo_[0-9a-f]{8}$/);
				expect(await run(added)).toBe("t__echo ran");
			} finally {
				await mcp.close();
			}
		});
	});
});
