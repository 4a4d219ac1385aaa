/**
 * A new MCP session on an HTTP server that forgot the old one (it restarted, or expired the session).
 *
 * The streamable HTTP transport says a client that gets HTTP 404 for a request carrying an `Mcp-Session-Id`
 * MUST start a new session with a new `initialize`. The SDK's client transport only reports the 404; its
 * session id stays, so every later request fails the same way. Here the SDK transport under the `Client` is
 * swapped for a fresh one and the handshake is run again through the same `Client`, which stays connected: the
 * host's `client`, its handlers, and the requests still in flight on the old transport are left as they are (a
 * request the server also refused with 404 fails on its own and may be retried; an answer still streaming
 * arrives). The old transports are closed with the connection.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
	InitializeResultSchema,
	type JSONRPCMessage,
	LATEST_PROTOCOL_VERSION,
	SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

/** A transport whose SDK transport underneath can be replaced by a fresh one, without a session. */
export interface RenewableTransport extends Transport {
	/** Put a fresh transport (no session id yet) under this one; later messages go through it. */
	renew(): Promise<void>;
}

/** `create()`'s transport, renewable: each {@link RenewableTransport.renew} makes and starts another. */
export function renewableTransport(create: () => Transport): RenewableTransport {
	let current = create();
	const retired: Transport[] = [];
	const attach = (inner: Transport) => {
		// An old transport may still hand on an answer that was streaming; the ids are the client's, never reused.
		inner.onmessage = (message, extra) => outer.onmessage?.(message, extra);
		inner.onerror = (error) => outer.onerror?.(error);
		// Only the current transport closing closes the connection.
		inner.onclose = () => {
			if (inner === current) outer.onclose?.();
		};
	};
	const outer: RenewableTransport = {
		start() {
			attach(current);
			return current.start();
		},
		send: (message: JSONRPCMessage, options?: TransportSendOptions) => current.send(message, options),
		async close() {
			const old = retired.splice(0);
			await Promise.allSettled(old.map((transport) => transport.close()));
			await current.close();
		},
		setProtocolVersion: (version: string) => current.setProtocolVersion?.(version),
		async renew() {
			const next = create();
			attach(next);
			await next.start();
			retired.push(current);
			current = next;
		},
	};
	Object.defineProperty(outer, "sessionId", { get: () => current.sessionId, enumerable: true });
	return outer;
}

/**
 * Start a new session for `client`, whose transport is `transport`: a fresh SDK transport, then `initialize`
 * and `notifications/initialized`, as `Client.connect` does. `client.getServerCapabilities()` and the like keep
 * the first session's answers.
 */
export async function startNewSession(
	client: Client,
	transport: RenewableTransport,
	clientInfo: { name: string; version: string },
): Promise<void> {
	await transport.renew();
	const result = await client.request(
		{
			method: "initialize",
			params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo },
		},
		InitializeResultSchema,
	);
	if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion))
		throw new Error(`the server's protocol version is not supported: ${result.protocolVersion}`);
	transport.setProtocolVersion?.(result.protocolVersion);
	await client.notification({ method: "notifications/initialized" });
}

/**
 * Whether `error` says the server does not know the session of a request that carried one, so it never ran
 * the request: the HTTP 404 the transport specifies for it, or the 400 "Server not initialized" of an SDK
 * server that serves one session per transport and was started afresh (no session yet).
 */
export function isUnknownSession(error: unknown): boolean {
	if (!(error instanceof StreamableHTTPError)) return false;
	return error.code === 404 || (error.code === 400 && error.message.includes("Server not initialized"));
}
