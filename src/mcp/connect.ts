/**
 * `connectMcpServers`: one SDK `Client` per configured server, their tools merged into one live list that
 * follows `notifications/tools/list_changed`.
 */
import type { IOType } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { isHttpServer, type McpServerConfig, type McpServersConfig, secretRedactor } from "./config.js";
import { type RequestId, reachFetch, unansweredStreamFetch } from "./http-fetch.js";
import { isUnknownSession, type RenewableTransport, renewableTransport, startNewSession } from "./session.js";
import { answerInvalidLines, keepInvalidLines } from "./stdio-lines.js";
import {
	listAllTools,
	type McpAgentTool,
	mcpToolKey,
	type SessionHooks,
	toAgentTools,
	uniqueMcpToolNames,
} from "./tools.js";
import { inWireOrder } from "./transport.js";

/** Options of `connectMcpServers`. */
export interface ConnectMcpOptions {
	/** What a stdio server's stderr does. Default `"inherit"` (the SDK's); a full-screen UI wants `"ignore"`. */
	stderr?: IOType;
	/** Per-call request timeout in ms, restarted by every progress notification. Default: the SDK's 60 s. */
	timeoutMs?: number;
	/** Sent as `clientInfo` in `initialize`. Default `{ name: "capstan", version: "0.1.0" }`. */
	clientInfo?: { name: string; version: string };
	/**
	 * Told each line a stdio server wrote on stdout that is no JSON-RPC message and answers no call: a log line, a
	 * banner (stdout carries the protocol; a server's logs belong on stderr). Such lines are otherwise ignored.
	 * From the server's start, blank lines left out, each line as written but with secrets redacted (the entry's
	 * `env` values, and what looks like a key or a password); every one, so a host that shows them picks how
	 * many. Default: nobody.
	 */
	onIgnoredLine?: (server: string, line: string) => void;
}

/** One connected server. */
export interface McpServerHandle {
	/** Its name in the configuration. */
	name: string;
	/**
	 * The SDK client, for what the bridge does not map (prompts, resources, …). The same one for the whole
	 * connection, also when an HTTP server's session is started anew ({@link McpConnection.onSessionRenewed}):
	 * its `getServerCapabilities()`, `getServerVersion()` and `getInstructions()` then give the new session's
	 * answers (a restarted server may offer other capabilities), already when `onSessionRenewed` is called.
	 */
	client: Client;
	/** This server's current tools. */
	tools: McpAgentTool[];
	/**
	 * False once the connection closed (the server exited or the host closed it). Its tools stay listed; a call
	 * to one is an error result saying the connection is closed. An HTTP server has no lasting connection: it is
	 * false while requests cannot reach it ({@link McpServerHandle.unreachable}) or it has no session with it
	 * ({@link McpServerHandle.sessionError}), and true again once a request reaches it on a session; its calls
	 * are tried meanwhile, and fail saying why they cannot be made.
	 */
	connected: boolean;
	/**
	 * Why the last request to an HTTP server could not reach it (`connect ECONNREFUSED 127.0.0.1:3000`: it is
	 * down, or the network is); absent once one reached it again.
	 */
	unreachable?: string;
	/**
	 * Why no new session could be started with an HTTP server that no longer knew the connection's session
	 * (its `initialize` failed: the server answered it with an error, or could not be reached, which
	 * {@link McpServerHandle.unreachable} says too); absent once a new session began. Meanwhile `connected` is
	 * false, and every call, and every re-listing, first tries to start one.
	 */
	sessionError?: string;
	/** The message of the last failed `tools/list` refresh; the previous list stays in use. */
	lastRefreshError?: string;
	/**
	 * Tools of the last listing that could not be offered, one line each naming the tool and the problem (a
	 * tool whose schema could be read is repaired and offered instead: an `inputSchema` without `type`). A server
	 * that still offers a next page after 100 `tools/list` pages is not followed further: its first 100 pages'
	 * tools are offered, and a line here says the rest were not listed.
	 */
	skippedTools?: string[];
}

/** What `connectMcpServers` returns. */
export interface McpConnection {
	/**
	 * Every server's tools, in configuration order. Always the SAME array, updated in place when a server
	 * announces `tools/list_changed`: hand it to `new Agent({ tools })` (or `agentLoop`'s context) once, and the
	 * loop — which reads the tool list before every model call — offers the new list on its next call.
	 */
	tools(): McpAgentTool[];
	/** Re-list every server's tools now. */
	refresh(): Promise<void>;
	/** Close every client (stdio servers are terminated). Idempotent. */
	close(): Promise<void>;
	/**
	 * Send SIGTERM to every stdio server's process, synchronously: for a process that exits now and cannot await
	 * {@link McpConnection.close} (a forced exit, a `process.on("exit")` hook). A server that waits for the end of
	 * its input would outlive its host otherwise. The connection is unusable afterwards; `close()` may still be
	 * called. HTTP servers are left alone. Idempotent.
	 */
	terminate(): void;
	/** Each server by its configured name. */
	servers: ReadonlyMap<string, McpServerHandle>;
	/** Called with the live list after it changed; returns an unsubscribe function. */
	onToolsChanged(listener: (tools: readonly McpAgentTool[]) => void): () => void;
	/**
	 * Called once with a server whose connection closed before the host closed it (a stdio server's process
	 * exited); not for the closing of `close()` or `terminate()`. For an HTTP server, called when a request
	 * could not reach it after one had ({@link McpServerHandle.unreachable} says why) or a new session could not
	 * be started ({@link McpServerHandle.sessionError}), and once more each time it is lost again after it was
	 * back. A connection the server closed under a request before any answer (a kept-alive connection it closed
	 * as idle) is a loss only if a second request cannot reach it either: a request that changes nothing is sent
	 * once more, and a tool call, which may have run, fails saying so while a `ping` looks for the server; that
	 * second request, cut as well (another closed kept-alive connection), is sent again, three times at most.
	 * Returns an unsubscribe function.
	 */
	onConnectionLost(listener: (server: McpServerHandle) => void): () => void;
	/**
	 * Called with an HTTP server that no longer knew the connection's session (it answered HTTP 404 for it: the
	 * server restarted, or ended the session) once a new session with it began. The request that met the 404
	 * never ran on the server: a tool call is sent once more on the new session, and the server's tools are
	 * listed again. Once per new session, however many calls met the 404. Returns an unsubscribe function.
	 */
	onSessionRenewed(listener: (server: McpServerHandle) => void): () => void;
}

/**
 * A handle with what the bridge keeps for itself: the entry's secret redactor, and for an HTTP server its
 * transport and the new session being started (one is owed while `sessionError` says the last attempt failed).
 */
interface Server extends McpServerHandle {
	redact: (text: string) => string;
	renewable?: RenewableTransport;
	renewing?: Promise<string | undefined>;
}

const DEFAULT_CLIENT_INFO = { name: "capstan", version: "0.1.0" };

/**
 * Connect to every server of an `mcpServers` configuration (stdio or streamable HTTP) and list their tools,
 * named `<server>__<tool>`. If any server fails to connect, the ones already connected are closed and the error
 * names the server.
 *
 * A change announced by a server while one of its tools runs is applied before that call's result is
 * returned, so the very next model call sees it; a change announced at another time applies as soon as the
 * re-listing answers.
 */
export async function connectMcpServers(
	config: McpServersConfig,
	options: ConnectMcpOptions = {},
): Promise<McpConnection> {
	const live: McpAgentTool[] = [];
	const listeners = new Set<(tools: readonly McpAgentTool[]) => void>();
	const lostListeners = new Set<(server: McpServerHandle) => void>();
	const renewedListeners = new Set<(server: McpServerHandle) => void>();
	const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
	// Set once the host closes the connection: a server closing then is not lost.
	let closing = false;
	const servers = new Map<string, Server>();
	const pending = new Map<string, Promise<void>>();
	// Each tool's name in the live list, so a tool keeps it when another's comes to collide with it.
	const assigned = new Map<string, string>();

	const rebuild = () => {
		const all = [...servers.values()].flatMap((server) => server.tools);
		// Two servers' names can meet (a server "a" with a tool "b__c", a server "a__b" with a tool "c"): one of
		// them is renamed, never dropped.
		const names = uniqueMcpToolNames(
			all.map((tool) => tool.mcp),
			assigned,
		);
		assigned.clear();
		const next = all.map((tool, i) => {
			const name = names[i] as string;
			assigned.set(mcpToolKey(tool.mcp.server, tool.mcp.tool), name);
			return name === tool.name ? tool : { ...tool, name };
		});
		live.splice(0, live.length, ...next);
		for (const listener of listeners) listener(live);
	};

	const relist = async (server: Server) => {
		const session = sessionHooks(server);
		await session?.ready();
		const stale = server.renewable?.sessionId;
		try {
			const { tools, skipped } = await listAllTools(server.client);
			server.tools = toAgentTools(
				server.client,
				tools,
				toolOptions(server.name),
				{ afterCall: afterCall(server.name), ...(session ? { session } : {}) },
				server.redact,
			);
			if (skipped.length > 0) server.skippedTools = skipped;
			else delete server.skippedTools;
			delete server.lastRefreshError;
		} catch (error) {
			// The server forgot the session: a new one is started, and lists the tools again once it has.
			if (session && stale !== undefined && isUnknownSession(error)) {
				void session.renew(stale);
				return;
			}
			server.lastRefreshError = server.redact(error instanceof Error ? error.message : String(error));
		}
		rebuild();
	};
	const scheduleRelist = (server: Server) => {
		const previous = pending.get(server.name) ?? Promise.resolve();
		const next = previous.then(() => relist(server));
		pending.set(server.name, next);
		void next.finally(() => {
			if (pending.get(server.name) === next) pending.delete(server.name);
		});
		return next;
	};
	// The transport hands a call's response on after the notifications before it (transport.ts), so a list change
	// the call caused is already re-listing here.
	const afterCall = (name: string) => async () => {
		await pending.get(name);
	};
	// An HTTP server that answers 404 for the session has forgotten it (MCP streamable HTTP, session
	// management): a new session is started, once for every call that met the 404, and the tools listed again.
	const sessions = new Map<Server, SessionHooks>();
	const sessionHooks = (server: Server): SessionHooks | undefined => {
		const renewable = server.renewable;
		if (!renewable) return undefined;
		const known = sessions.get(server);
		if (known) return known;
		const renew = (stale: string | undefined): Promise<string | undefined> => {
			if (server.renewing) return server.renewing;
			// Another call's renewal already gave a new session (an SDK that forgets the dead id has none: renew).
			const current = renewable.sessionId;
			if (closing || (server.sessionError === undefined && current !== undefined && current !== stale))
				return Promise.resolve(undefined);
			const renewing = (async () => {
				try {
					await startNewSession(server.client, renewable, clientInfo);
				} catch (error) {
					server.sessionError = server.redact(error instanceof Error ? error.message : String(error));
					settle(server);
					return server.sessionError;
				}
				delete server.sessionError;
				settle(server);
				if (!closing) for (const listener of renewedListeners) listener(server);
				void scheduleRelist(server);
				return undefined;
			})();
			server.renewing = renewing;
			void renewing.finally(() => {
				if (server.renewing === renewing) delete server.renewing;
			});
			return renewing;
		};
		const hooks: SessionHooks = {
			ready: () =>
				server.renewing !== undefined || server.sessionError !== undefined
					? renew(undefined)
					: Promise.resolve(undefined),
			renew,
		};
		sessions.set(server, hooks);
		return hooks;
	};
	const toolOptions = (prefix: string) =>
		options.timeoutMs === undefined ? { prefix } : { prefix, timeoutMs: options.timeoutMs };

	const lost = (server: Server) => {
		server.connected = false;
		if (closing) return;
		for (const listener of lostListeners) listener(server);
	};
	// An HTTP server is connected while its requests reach it on a session: lost (once) when either fails, and
	// back when both hold again. Not while connecting (`connected` is still false): the connect error says it.
	const settle = (server: Server) => {
		const usable =
			server.client.transport !== undefined &&
			server.unreachable === undefined &&
			server.sessionError === undefined;
		if (usable === server.connected) return;
		if (usable) server.connected = true;
		else lost(server);
	};
	const reached = (server: Server) => (problem: string | undefined) => {
		if (problem === undefined) {
			if (server.unreachable === undefined) return;
			delete server.unreachable;
		} else server.unreachable = server.redact(problem);
		settle(server);
	};

	const close = async () => {
		closing = true;
		await Promise.allSettled([...servers.values()].map((server) => server.client.close()));
		// The client says so a macrotask later (transport.ts); the caller may look now.
		for (const server of servers.values()) server.connected = false;
	};
	// Each stdio server's process id, taken when it connected: the transport forgets it as soon as `close()`
	// starts, but the process may outlive that by seconds (it is given time to exit on the end of its input).
	const pids = new Map<McpServerHandle, number>();
	let terminated = false;
	const terminate = () => {
		if (terminated) return;
		terminated = true;
		closing = true;
		// Only while connected: the connection closes when the process has exited, and its pid may be reused.
		for (const [server, pid] of pids) if (server.connected) signalProcess(pid);
	};

	try {
		for (const [name, entry] of Object.entries(config.mcpServers)) {
			const client = new Client(clientInfo);
			const server: Server = { name, client, tools: [], connected: false, redact: secretRedactor(entry) };
			try {
				const { transport, stdio, renewable } = createTransport(entry, options, {
					reached: reached(server),
					ignored: (line) => options.onIgnoredLine?.(name, server.redact(line)),
				});
				await client.connect(transport);
				if (stdio?.pid != null) pids.set(server, stdio.pid);
				if (renewable) server.renewable = renewable;
			} catch (error) {
				await client.close().catch(() => {});
				throw new Error(
					`MCP server "${name}" failed to connect: ${server.redact(error instanceof Error ? error.message : String(error))}`,
				);
			}
			server.connected = true;
			client.onclose = () => {
				// An HTTP server lost already was said; its client closing now is the host's close().
				if (server.connected) lost(server);
			};
			servers.set(name, server);
			client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
				void scheduleRelist(server);
			});
			await relist(server);
			if (server.lastRefreshError !== undefined)
				throw new Error(`MCP server "${name}" failed to list its tools: ${server.lastRefreshError}`);
		}
	} catch (error) {
		await close();
		throw error;
	}

	return {
		tools: () => live,
		refresh: async () => {
			await Promise.all([...servers.values()].map((server) => scheduleRelist(server)));
		},
		close,
		terminate,
		servers,
		onToolsChanged(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		onConnectionLost(listener) {
			lostListeners.add(listener);
			return () => lostListeners.delete(listener);
		},
		onSessionRenewed(listener) {
			renewedListeners.add(listener);
			return () => renewedListeners.delete(listener);
		},
	};
}

/**
 * The client's transport, wrapped to keep wire order (transport.ts), and for a stdio server the SDK's own
 * transport too, whose process id is known once it has started. An HTTP server's requests tell `reached`
 * whether they reached it (http-fetch.ts), and its transport can start a new session (session.ts); a stdio
 * server's stdout lines that were no message go to `ignored`.
 */
function createTransport(
	entry: McpServerConfig,
	options: ConnectMcpOptions,
	hear: { reached: (problem: string | undefined) => void; ignored: (line: string) => void },
): { transport: Transport; stdio?: StdioClientTransport; renewable?: RenewableTransport } {
	if (!isHttpServer(entry)) {
		const stdio = new StdioClientTransport({
			command: entry.command,
			...(entry.args ? { args: entry.args } : {}),
			...(entry.env ? { env: entry.env } : {}),
			...(entry.cwd ? { cwd: entry.cwd } : {}),
			...(options.stderr ? { stderr: options.stderr } : {}),
		});
		// A line the server meant as a call's answer but wrote as no valid message fails that call at once.
		const lines = keepInvalidLines(stdio) ? answerInvalidLines(stdio, hear.ignored) : stdio;
		return { transport: inWireOrder(lines), stdio };
	}
	// A call whose response stream ended unanswered is answered here with an error, after what the stream
	// carried was handed on, instead of waiting out its timeout (http-fetch.ts).
	const answerUnanswered = (ids: RequestId[]) =>
		setImmediate(() => {
			for (const id of ids)
				transport.onmessage?.({
					jsonrpc: "2.0",
					id,
					error: { code: ErrorCode.ConnectionClosed, message: UNANSWERED },
				});
		});
	const fetch = unansweredStreamFetch(answerUnanswered, reachFetch(hear.reached));
	const renewable = renewableTransport(
		() =>
			new StreamableHTTPClientTransport(new URL(entry.url), {
				...(entry.headers ? { requestInit: { headers: entry.headers } } : {}),
				fetch,
			}),
	);
	const transport = inWireOrder(renewable);
	return { transport, renewable };
}

/**
 * SIGTERM, not SIGKILL: a server may have its own to end (`docker run -i` stops its container on SIGTERM, and
 * leaves it running when killed outright). A process already gone is nothing to do.
 */
function signalProcess(pid: number): void {
	try {
		process.kill(pid, "SIGTERM");
	} catch {
		// ESRCH: it exited already.
	}
}

const UNANSWERED =
	"the server ended the call's response stream without answering it (it stopped or dropped the connection)";
