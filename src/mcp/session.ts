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
	type InitializeResult,
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
 * and `notifications/initialized`, as `Client.connect` does. Once the server answered `initialize`,
 * `client.getServerCapabilities()`, `getServerVersion()` and `getInstructions()` give its new answers
 * ({@link adoptInitializeResult}).
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
	adoptInitializeResult(client, result);
	await client.notification({ method: "notifications/initialized" });
}

/** Where the SDK's `Client` keeps the server's `initialize` answer, which only `Client.connect` writes. */
interface InitializedClientFields {
	_serverCapabilities?: InitializeResult["capabilities"];
	_serverVersion?: InitializeResult["serverInfo"];
	_instructions?: InitializeResult["instructions"];
}

/**
 * Make `client` describe the server as its new session's `initialize` answered: a server that restarted may
 * have other capabilities (no `tools.listChanged` any more), another version or other instructions, and the
 * SDK's own checks read these fields too. `Client` has no public way to set them (they are private, written by
 * `connect`); test/mcp/http-restart.test.ts reads them back through the public getters, so an SDK that renames
 * them fails there.
 */
function adoptInitializeResult(client: Client, result: InitializeResult): void {
	const fields = client as unknown as InitializedClientFields;
	fields._serverCapabilities = result.capabilities;
	fields._serverVersion = result.serverInfo;
	fields._instructions = result.instructions;
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
