/**
 * Secrets of the configuration never reach an error: not through a URL's credentials, and not when a server
 * quotes a rejected Authorization header in its reply (which the SDK puts in its error, and the bridge in the
 * error result the model reads). A real MCP server over streamable HTTP on 127.0.0.1, behind a front that
 * rejects on cue.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, parseMcpServersConfig } from "../../src/mcp/index.js";
import { agentWith, callReply, resultText, textReply } from "./support/harness.js";
import { createTestServer } from "./support/test-server.js";

const TOKEN = "sk-live-0123456789abcdef";

/** What the front rejects with 401, quoting the Authorization header back. */
let rejecting: "nothing" | "everything" | "calls" | "quoting the path" = "nothing";
let http: Server;
let url: string;

async function body(req: IncomingMessage): Promise<unknown> {
	let text = "";
	for await (const chunk of req) text += chunk;
	return text === "" ? undefined : JSON.parse(text);
}

beforeAll(async () => {
	const mcp = createTestServer(() => {});
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
	await mcp.connect(transport);
	http = createServer(async (req, res) => {
		const parsed = await body(req);
		const method = (parsed as { method?: unknown } | undefined)?.method;
		if (rejecting === "quoting the path") {
			res.writeHead(403, { "content-type": "text/plain" });
			res.end(`no access to ${req.url}`);
			return;
		}
		if (rejecting === "everything" || (rejecting === "calls" && method === "tools/call")) {
			res.writeHead(401, { "content-type": "text/plain" });
			res.end(`invalid credentials: ${req.headers.authorization}`);
			return;
		}
		await transport.handleRequest(req, res, parsed);
	});
	await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
	url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
	http.closeAllConnections();
	await new Promise((resolve) => http.close(resolve));
});

describe("secrets in errors", () => {
	it("a URL with credentials is refused by the configuration, without quoting them", () => {
		expect(() =>
			parseMcpServersConfig({ mcpServers: { a: { url: `https://me:${TOKEN}@example.invalid/mcp` } } }),
		).toThrow(/server "a": "url" must not carry credentials/);
		expect(() =>
			parseMcpServersConfig({ mcpServers: { a: { url: `https://me:${TOKEN}@example.invalid/mcp` } } }),
		).toThrow(/^(?!.*sk-live)/);
	});

	it("a server quoting the rejected header: the connect error does not carry it", async () => {
		rejecting = "everything";
		const error = await connectMcpServers({
			mcpServers: { remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } } },
		}).catch((e: Error) => e);
		rejecting = "nothing";
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(/^MCP server "remote" failed to connect: /);
		expect((error as Error).message).toContain("invalid credentials: [redacted]");
		expect((error as Error).message).not.toContain(TOKEN);
	});

	it("a call rejected the same way: the error result the model reads does not carry it", async () => {
		const mcp = await connectMcpServers({
			mcpServers: { remote: { url, headers: { Authorization: `Bearer ${TOKEN}` } } },
		});
		try {
			rejecting = "calls";
			const { agent, toolResults } = agentWith(mcp.tools(), [
				callReply("remote__echo", { text: "hi" }),
				textReply("ok"),
			]);
			await agent.prompt("go");
			const [result] = toolResults();
			expect(result?.isError).toBe(true);
			expect(resultText(result!)).toContain("invalid credentials: [redacted]");
			expect(JSON.stringify(agent.state.messages)).not.toContain(TOKEN);
		} finally {
			rejecting = "nothing";
			await mcp.close();
		}
	});

	it("a server quoting the URL it was sent: a credential in its query, under any name, is masked", async () => {
		rejecting = "quoting the path";
		const error = await connectMcpServers({
			mcpServers: { remote: { url: `${url}?x-functions-code=qSENTINELcode77&region=eu` } },
		}).catch((e: Error) => e);
		rejecting = "nothing";
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toContain("no access to /mcp?x-functions-code=[redacted]&region=eu");
		expect((error as Error).message).not.toContain("SENTINEL");
	});
});
