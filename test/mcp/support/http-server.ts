/** The test server over streamable HTTP on 127.0.0.1 (the SDK's `StreamableHTTPServerTransport` on node:http). */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server as LowLevelServer } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createTestServer } from "./test-server.js";

/** A running HTTP MCP server; `requests` records each request's Authorization header, for the headers test. */
export interface HttpMcpServer {
	url: string;
	authorizations: (string | undefined)[];
	/** Stop listening and drop every connection, as a server that went down: each request is refused. */
	stop(): Promise<void>;
	/** Listen again on the same port, its MCP sessions as they were: a server back up. */
	resume(): Promise<void>;
	close(): Promise<void>;
}

/**
 * Start the test server (or the one `create` builds) on an ephemeral loopback port. `exit` drops every
 * connection, as a server that died would.
 */
export async function startHttpMcpServer(
	create: (exit: () => void) => McpServer | LowLevelServer = createTestServer,
): Promise<HttpMcpServer> {
	let http!: Server;
	const mcp = create(() => http.closeAllConnections());
	const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
	await mcp.connect(transport);
	const authorizations: (string | undefined)[] = [];
	http = createServer((req, res) => {
		authorizations.push(req.headers.authorization);
		void transport.handleRequest(req, res);
	});
	await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
	const { port } = http.address() as AddressInfo;
	const stop = () =>
		new Promise<void>((resolve) => {
			if (!http.listening) return resolve();
			http.close(() => resolve());
			http.closeAllConnections();
		});
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		authorizations,
		stop,
		resume: () => new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve)),
		close: async () => {
			await mcp.close();
			await stop();
		},
	};
}
