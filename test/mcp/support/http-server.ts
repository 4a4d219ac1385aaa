/** The test server over streamable HTTP on 127.0.0.1 (the SDK's `StreamableHTTPServerTransport` on node:http). */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server as LowLevelServer } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createTestServer } from "./test-server.js";

/** A running HTTP MCP server; `requests` records each request's Authorization header, for the headers test. */
export interface HttpMcpServer {
	url: string;
	authorizations: (string | undefined)[];
	/** Stop listening and drop every connection, as a server that went down: each request is refused. */
	stop(): Promise<void>;
	/**
	 * Stop listening at once, the open connections left to finish what they carry: a server that goes away while
	 * it answers (every later connection is refused). {@link HttpMcpServer.resume} listens again.
	 */
	stopListening(): void;
	/** Listen again on the same port, its MCP sessions as they were: a server back up. */
	resume(): Promise<void>;
	/**
	 * Stop, then start again on the same port as a new process would: new MCP servers (`create` called again)
	 * that know none of the old sessions.
	 */
	restart(): Promise<void>;
	close(): Promise<void>;
}

/** Options of {@link startHttpMcpServer}. */
export interface HttpMcpServerOptions {
	/**
	 * `"one"` (default): one SDK transport for the whole server, which serves one session and, restarted,
	 * answers every request 400 "Server not initialized" until a client initializes it. `"each"`: a transport and
	 * an MCP server per session, as the SDK's examples keep them; a request for a session it does not know is
	 * answered 404 "Session not found".
	 */
	sessions?: "one" | "each";
	/** Whether a client may reuse a connection; false answers with `Connection: close`. Default true. */
	keepAlive?: boolean;
	/** With `"each"`: a POST body for which this returns a status is answered with it (and "Session not found"). */
	refuse?: (body: unknown) => number | undefined;
	/**
	 * Told every POST body first; when it returns true, the connection is destroyed and the request left unrun
	 * and unanswered: a kept-alive connection the server closed (idle) just as the request went out.
	 */
	cut?: (body: unknown) => boolean;
	/**
	 * Told every POST body after `cut`; when it returns true, the request is left unrun and answered with bytes
	 * that are not HTTP (fetch fails with a parse error, not a closed connection): a request that reached it.
	 */
	garble?: (body: unknown) => boolean;
}

/**
 * Start the test server (or the one `create` builds) on an ephemeral loopback port. `exit` drops every
 * connection, as a server that died would.
 */
export async function startHttpMcpServer(
	create: (exit: () => void) => McpServer | LowLevelServer = createTestServer,
	{ sessions = "one", keepAlive = true, refuse, cut, garble }: HttpMcpServerOptions = {},
): Promise<HttpMcpServer> {
	let http!: Server;
	const exit = () => http.closeAllConnections();
	const serve = async () => {
		const mcp = create(exit);
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
		await mcp.connect(transport);
		return { mcp, transport };
	};
	// "one": the transport; "each": the transports by session id.
	let single = sessions === "one" ? await serve() : undefined;
	let bySession = new Map<string, Awaited<ReturnType<typeof serve>>>();
	const authorizations: (string | undefined)[] = [];
	http = createServer(async (req, res) => {
		authorizations.push(req.headers.authorization);
		if (!keepAlive) closeAfter(res);
		const body = req.method === "POST" ? JSON.parse(await readBody(req)) : undefined;
		if (body !== undefined && cut?.(body)) return void req.socket.destroy();
		if (body !== undefined && garble?.(body)) return void req.socket.end("NOT HTTP AT ALL\r\n\r\n");
		if (single) return void single.transport.handleRequest(req, res, body);
		const id = req.headers["mcp-session-id"];
		const known = typeof id === "string" ? bySession.get(id) : undefined;
		const status = body === undefined ? undefined : refuse?.(body);
		if (known && status === undefined) return void known.transport.handleRequest(req, res, body);
		if (id === undefined && isInitializeRequest(body) && status === undefined) {
			const session = await serve();
			await session.transport.handleRequest(req, res, body);
			if (session.transport.sessionId) bySession.set(session.transport.sessionId, session);
			return;
		}
		const message = id === undefined ? "Bad Request: no session" : "Session not found";
		res.writeHead(status ?? (id === undefined ? 400 : 404), { "content-type": "application/json" });
		res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message }, id: null }));
	});
	await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
	const { port } = http.address() as AddressInfo;
	const stop = () =>
		new Promise<void>((resolve) => {
			if (!http.listening) return resolve();
			http.close(() => resolve());
			http.closeAllConnections();
		});
	const resume = () => new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
	const closeMcp = async () => {
		await single?.mcp.close();
		await Promise.all([...bySession.values()].map((session) => session.mcp.close()));
	};
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		authorizations,
		stop,
		stopListening: () => {
			http.close();
		},
		resume,
		restart: async () => {
			await stop();
			await closeMcp();
			single = sessions === "one" ? await serve() : undefined;
			bySession = new Map();
			await resume();
		},
		close: async () => {
			await closeMcp();
			await stop();
		},
	};
}

/**
 * Answer with `Connection: close`, whatever the SDK sets (it sends `keep-alive` with a stream), so the client
 * never reuses a connection: after a restart its first request cannot go out on one the old server closed.
 */
function closeAfter(res: ServerResponse): void {
	const writeHead = res.writeHead.bind(res) as (
		status: number,
		headers?: Record<string, unknown>,
	) => ServerResponse;
	res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
		res.removeHeader("connection");
		const rest = Object.fromEntries(
			Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== "connection"),
		);
		return writeHead(status, { ...rest, connection: "close" });
	}) as ServerResponse["writeHead"];
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		let text = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => {
			text += chunk;
		});
		req.on("end", () => resolve(text));
		req.on("error", reject);
	});
}
