/**
 * An HTTP MCP server that restarts and forgets its sessions (the SDK's StreamableHTTPServerTransport on
 * node:http, 127.0.0.1, started again on the same port): it answers the old session's requests with HTTP 404,
 * and the MCP streamable HTTP transport says the client MUST then start a new session. The bridge does, sends
 * the call that met the 404 once more (the server never ran it), lists the tools again and tells the host.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection } from "../../src/mcp/index.js";
import { agentWith, callReply, executeAlone, resultText, textReply } from "./support/harness.js";
import { type HttpMcpServer, startHttpMcpServer } from "./support/http-server.js";
import { createTestServer } from "./support/test-server.js";

/** The test server, plus `tick` (how often this server process ran it) and, after a restart, a new tool. */
function restartingServer() {
	let starts = 0;
	return (exit: () => void) => {
		const server = createTestServer(exit);
		starts++;
		let ticks = 0;
		server.registerTool("tick", { description: "Count the calls" }, async () => ({
			content: [{ type: "text", text: String(++ticks) }],
		}));
		if (starts > 1)
			server.registerTool("added_after_restart", { description: "Only after a restart" }, async () => ({
				content: [{ type: "text", text: "new" }],
			}));
		return server;
	};
}

const run = async (mcp: McpConnection, name: string, args: Record<string, unknown> = {}) => {
	const tool = mcp.tools().find((t) => t.name === name);
	if (!tool) throw new Error(`no ${name}`);
	const result = await executeAlone(tool, args);
	return [result.isError === true, resultText(result)];
};

describe("an HTTP MCP server that restarted and forgot the session", () => {
	let http: HttpMcpServer;
	let mcp: McpConnection;
	beforeAll(async () => {
		http = await startHttpMcpServer(restartingServer(), { sessions: "each", keepAlive: false });
		mcp = await connectMcpServers({ mcpServers: { remote: { url: http.url } } });
	}, 30_000);
	afterAll(async () => {
		await mcp?.close();
		await http?.close();
	});

	it("gets a new session: the call runs once on it, the tools are listed again, the host is told once", async () => {
		const renewed: string[] = [];
		const lost: string[] = [];
		mcp.onSessionRenewed((server) => renewed.push(server.name));
		mcp.onConnectionLost((server) => lost.push(server.name));
		const remote = mcp.servers.get("remote");
		const before = remote?.client.transport?.sessionId;
		expect(before).toEqual(expect.any(String));
		expect(await run(mcp, "remote__tick")).toEqual([false, "1"]);

		await http.restart();
		// The new server process ran it once: the 404 meant the old one never had.
		expect(await run(mcp, "remote__tick")).toEqual([false, "1"]);
		expect(renewed).toEqual(["remote"]);
		expect(lost).toEqual([]);
		expect(remote?.connected).toBe(true);
		const after = remote?.client.transport?.sessionId;
		expect(after).toEqual(expect.any(String));
		expect(after).not.toBe(before);
		// Listed again before the call returned: the restarted server's new tool is offered.
		expect(mcp.tools().map((t) => t.name)).toContain("remote__added_after_restart");

		// The new session holds: no further renewal.
		expect(await run(mcp, "remote__tick")).toEqual([false, "2"]);
		expect(await run(mcp, "remote__added_after_restart")).toEqual([false, "new"]);
		expect(renewed).toEqual(["remote"]);
	});

	it("calls that meet the 404 together share one new session, and a run goes on", async () => {
		const renewed: string[] = [];
		mcp.onSessionRenewed((server) => renewed.push(server.name));
		await http.restart();
		const { agent, toolResults } = agentWith(mcp.tools(), [
			{
				content: [
					{ type: "toolCall" as const, name: "remote__echo", arguments: { text: "a" } },
					{ type: "toolCall" as const, name: "remote__echo", arguments: { text: "b" } },
					{ type: "toolCall" as const, name: "remote__tick", arguments: {} },
				],
			},
			callReply("remote__echo", { text: "c" }),
			textReply("done"),
		]);
		await agent.prompt("go");
		expect(toolResults().map((r) => [r.isError, resultText(r)])).toEqual([
			[false, "echo: a"],
			[false, "echo: b"],
			[false, "1"],
			[false, "echo: c"],
		]);
		expect(renewed).toEqual(["remote"]);
	});

	it("a re-listing that meets the 404 starts the new session instead of failing", async () => {
		const renewed: string[] = [];
		mcp.onSessionRenewed((server) => renewed.push(server.name));
		await http.restart();
		await mcp.refresh();
		// The listing the new session makes comes after the renewal was said; refresh() again waits for it.
		await mcp.refresh();
		expect(renewed).toEqual(["remote"]);
		expect(mcp.servers.get("remote")?.lastRefreshError).toBeUndefined();
		expect(await run(mcp, "remote__tick")).toEqual([false, "1"]);
		expect(renewed).toEqual(["remote"]);
	});
});

describe("a server that came back with other capabilities, version and instructions", () => {
	it("is described by the new session's initialize answer once the session is renewed", async () => {
		let starts = 0;
		// First the test server (tools.listChanged, version 1.0.0); then a plain SDK Server without listChanged.
		const create = (exit: () => void) => {
			if (++starts === 1) return createTestServer(exit);
			const server = new Server(
				{ name: "capstan-test", version: "2.0.0" },
				{ capabilities: { tools: {} }, instructions: "Call echo only." },
			);
			server.setRequestHandler(ListToolsRequestSchema, () => ({
				tools: [{ name: "echo", inputSchema: { type: "object" } }],
			}));
			server.setRequestHandler(CallToolRequestSchema, (request) => ({
				content: [{ type: "text", text: `echo 2: ${String(request.params.arguments?.text)}` }],
			}));
			return server;
		};
		const http = await startHttpMcpServer(create, { sessions: "each", keepAlive: false });
		const mcp = await connectMcpServers({ mcpServers: { remote: { url: http.url } } });
		try {
			const client = mcp.servers.get("remote")!.client;
			expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
			expect(client.getServerVersion()?.version).toBe("1.0.0");
			expect(client.getInstructions()).toBeUndefined();
			// What a host reads when it is told of the new session is already the new server's.
			const seen: unknown[] = [];
			mcp.onSessionRenewed((server) =>
				seen.push([server.client.getServerCapabilities(), server.client.getInstructions()]),
			);

			await http.restart();
			expect(await run(mcp, "remote__echo", { text: "a" })).toEqual([false, "echo 2: a"]);
			expect(seen).toEqual([[{ tools: {} }, "Call echo only."]]);
			expect(client.getServerCapabilities()).toEqual({ tools: {} });
			expect(client.getServerVersion()).toEqual({ name: "capstan-test", version: "2.0.0" });
			expect(client.getInstructions()).toBe("Call echo only.");
		} finally {
			await mcp.close();
			await http.close();
		}
	});
});

describe("an SDK server with one transport for all, restarted", () => {
	it("answers 400 'Server not initialized' for the old session: a new session begins all the same", async () => {
		const http = await startHttpMcpServer(createTestServer, { keepAlive: false });
		const mcp = await connectMcpServers({ mcpServers: { remote: { url: http.url } } });
		try {
			const renewed: string[] = [];
			mcp.onSessionRenewed((server) => renewed.push(server.name));
			await http.restart();
			expect(await run(mcp, "remote__echo", { text: "a" })).toEqual([false, "echo: a"]);
			expect(renewed).toEqual(["remote"]);
		} finally {
			await mcp.close();
			await http.close();
		}
	});
});

describe("a server that answers 404 for the session again on the new one", () => {
	const calls = { forgotten: 0, broken: 0, initialize: 0 };
	let refuseInitialize = false;
	// Whether the server goes away as it answers the next 404.
	let goneAfter404 = false;
	let http: HttpMcpServer;
	let mcp: McpConnection;
	beforeAll(async () => {
		const create = (exit: () => void) => {
			const server = createTestServer(exit);
			for (const name of ["forgotten", "broken"])
				server.registerTool(name, { description: name }, async () => ({ content: [] }));
			return server;
		};
		// A tools/call of `forgotten` is always answered 404 (a lost session), of `broken` 500.
		const refuse = (body: unknown) => {
			const call = body as { method?: string; params?: { name?: string } };
			if (call.method === "initialize" && refuseInitialize) {
				calls.initialize++;
				return 503;
			}
			const name = call.method === "tools/call" ? call.params?.name : undefined;
			if (name !== "forgotten" && name !== "broken") return undefined;
			calls[name]++;
			if (name === "forgotten" && goneAfter404) http.stopListening();
			return name === "forgotten" ? 404 : 500;
		};
		http = await startHttpMcpServer(create, { sessions: "each", keepAlive: false, refuse });
		mcp = await connectMcpServers({ mcpServers: { remote: { url: http.url } } });
	}, 30_000);
	afterEach(() => {
		calls.forgotten = 0;
		calls.broken = 0;
		calls.initialize = 0;
		refuseInitialize = false;
		goneAfter404 = false;
	});
	afterAll(async () => {
		await mcp?.close();
		await http?.close();
	});

	it("sends the call once more only: the second 404 is the call's error", async () => {
		const renewed: string[] = [];
		mcp.onSessionRenewed((s) => renewed.push(s.name));
		const [isError, text] = await run(mcp, "remote__forgotten");
		expect(isError).toBe(true);
		expect(text).toMatch(/^MCP tool "forgotten" on server "remote" failed: .*Session not found/);
		expect(calls.forgotten).toBe(2);
		expect(renewed).toEqual(["remote"]);
		// The new session works for the server's other tools.
		expect(await run(mcp, "remote__echo", { text: "x" })).toEqual([false, "echo: x"]);
	});

	it("does not send again a call that failed otherwise (the server may have run it)", async () => {
		const renewed: string[] = [];
		mcp.onSessionRenewed((s) => renewed.push(s.name));
		const [isError] = await run(mcp, "remote__broken");
		expect(isError).toBe(true);
		expect(calls.broken).toBe(1);
		expect(renewed).toEqual([]);
	});

	it("a new session that cannot be started fails the call saying why, and is tried again by the next call", async () => {
		const renewed: string[] = [];
		mcp.onSessionRenewed((s) => renewed.push(s.name));
		refuseInitialize = true;
		const [isError, text] = await run(mcp, "remote__forgotten");
		expect(isError).toBe(true);
		expect(text).toMatch(
			/^MCP tool "forgotten" on server "remote" failed: the server no longer knows this connection's session \(it restarted\), and a new session could not be started: Streamable HTTP error: Error POSTing to endpoint: /,
		);
		expect([calls.forgotten, calls.initialize]).toEqual([1, 1]);
		expect(renewed).toEqual([]);

		refuseInitialize = false;
		expect(await run(mcp, "remote__echo", { text: "y" })).toEqual([false, "echo: y"]);
		expect(renewed).toEqual(["remote"]);
	});

	it("a server that refuses the new session is lost once, not connected, and tried again by each call", async () => {
		const renewed: string[] = [];
		const lost: string[] = [];
		mcp.onSessionRenewed((s) => renewed.push(s.name));
		mcp.onConnectionLost((s) => lost.push(s.name));
		const remote = mcp.servers.get("remote")!;
		refuseInitialize = true;
		expect((await run(mcp, "remote__forgotten"))[0]).toBe(true);
		expect(lost).toEqual(["remote"]);
		expect(remote.connected).toBe(false);
		expect(remote.sessionError).toMatch(/^Streamable HTTP error: Error POSTing to endpoint: /);
		// It answered: it can be reached, it only gave no session.
		expect(remote.unreachable).toBeUndefined();

		const [isError, text] = await run(mcp, "remote__echo", { text: "x" });
		expect(isError).toBe(true);
		expect(text).toMatch(/a new session could not be started: Streamable HTTP error: /);
		expect(calls.initialize).toBe(2);
		expect(lost).toEqual(["remote"]);
		expect(remote.connected).toBe(false);

		refuseInitialize = false;
		expect(await run(mcp, "remote__echo", { text: "y" })).toEqual([false, "echo: y"]);
		expect(renewed).toEqual(["remote"]);
		expect(remote.connected).toBe(true);
		expect(remote.sessionError).toBeUndefined();
		expect(lost).toEqual(["remote"]);
	});

	it("a server gone between the 404 and the new session is lost once and unreachable until it is back", async () => {
		const renewed: string[] = [];
		const lost: string[] = [];
		mcp.onSessionRenewed((s) => renewed.push(s.name));
		mcp.onConnectionLost((s) => lost.push(s.name));
		const remote = mcp.servers.get("remote")!;
		goneAfter404 = true;
		const refused = /connect ECONNREFUSED 127\.0\.0\.1:\d+/;
		const [isError, text] = await run(mcp, "remote__forgotten");
		expect(isError).toBe(true);
		expect(text).toMatch(new RegExp(`a new session could not be started: .*${refused.source}`));
		expect(lost).toEqual(["remote"]);
		expect(remote.connected).toBe(false);
		expect(remote.unreachable).toMatch(refused);
		expect(remote.sessionError).toMatch(refused);

		expect(await run(mcp, "remote__echo", { text: "x" })).toEqual([
			true,
			expect.stringMatching(new RegExp(`a new session could not be started: .*${refused.source}`)),
		]);
		expect(lost).toEqual(["remote"]);

		await http.resume();
		expect(await run(mcp, "remote__echo", { text: "y" })).toEqual([false, "echo: y"]);
		expect(renewed).toEqual(["remote"]);
		expect([remote.connected, remote.unreachable, remote.sessionError]).toEqual([true, undefined, undefined]);
		expect(lost).toEqual(["remote"]);
	});
});
