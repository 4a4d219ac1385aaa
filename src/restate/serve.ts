/**
 * A worker: an HTTP/2 endpoint serving durable agents' objects to a Restate server, and the admin-API call
 * that tells the server where the worker is (a "deployment").
 */
import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import * as restate from "@restatedev/restate-sdk";
import { redactSecrets, requestCredentials } from "../core/redact.js";
import type { RestateAgentDefinition } from "./object.js";
import { ensurePromiseWithResolvers } from "./polyfill.js";
import { splitCredentials, withAuthorization } from "./url.js";

/** Options of {@link serveRestateAgents}. */
export interface ServeRestateAgentsOptions {
	/** Port to listen on; 0 (default) lets the OS choose. */
	port?: number;
	/** Interface to bind. Default `127.0.0.1`: expose a worker beyond the machine on purpose, behind auth. */
	host?: string;
	/**
	 * Restate request-identity public keys (`publickeyv1_…`): when set, the endpoint accepts only requests
	 * signed by a server holding the matching private key.
	 */
	identityKeys?: string[];
}

/** A running worker endpoint. */
export interface RestateWorker {
	/** The URL to register with the Restate server, e.g. `http://127.0.0.1:9080`. */
	url: string;
	/** The port it listens on (the OS's choice when none was asked for). */
	port: number;
	/** Stop accepting requests; in-flight invocations are retried by Restate on another worker. */
	close(): Promise<void>;
}

/** Serve the agents' objects on an HTTP/2 endpoint (Restate's protocol is HTTP/2 bidirectional streaming). */
export async function serveRestateAgents(
	agents: readonly RestateAgentDefinition[],
	options: ServeRestateAgentsOptions = {},
): Promise<RestateWorker> {
	ensurePromiseWithResolvers();
	// The definitions are the SDK's own (`restateAgent` made them); their public type is opaque (see object.ts).
	const services = agents.flatMap((agent) => agent.services) as unknown as restate.VirtualObjectDefinition<
		string,
		unknown
	>[];
	const handler = restate.createEndpointHandler({
		services,
		...(options.identityKeys ? { identityKeys: options.identityKeys } : {}),
	});
	const server: Http2Server = createServer(handler);
	const host = options.host ?? "127.0.0.1";
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port ?? 0, host, () => {
			server.off("error", reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const shown = host.includes(":") ? `[${host}]` : host;
	return {
		url: `http://${shown}:${port}`,
		port,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
			}),
	};
}

/** Options of {@link registerRestateDeployment}. */
export interface RegisterDeploymentOptions {
	/**
	 * The Restate server's admin API, e.g. `http://127.0.0.1:9070`. Credentials in it are sent as a Basic
	 * `authorization` header and never appear in errors.
	 */
	adminUrl: string;
	/** The worker's URL, as the server reaches it. */
	uri: string;
	/**
	 * Replace an existing registration of the same URL (default true): a worker restarted with the same URL
	 * and the same code simply takes over. Set false to refuse a silent change of a deployment.
	 */
	force?: boolean;
	/** Default `globalThis.fetch`. */
	fetch?: typeof fetch;
}

/**
 * Register a worker with the Restate server (its admin API discovers the worker's services). Idempotent for
 * the same URL. Resolves to the deployment id.
 */
export async function registerRestateDeployment(options: RegisterDeploymentOptions): Promise<string> {
	const doFetch = options.fetch ?? globalThis.fetch;
	let admin: URL;
	try {
		admin = new URL(options.adminUrl);
	} catch {
		throw new Error(`register ${options.uri} with Restate: adminUrl is not a valid URL`);
	}
	const { base, authorization } = splitCredentials(admin);
	let response: Response;
	try {
		response = await doFetch(`${base}/deployments`, {
			method: "POST",
			headers: withAuthorization({ "content-type": "application/json" }, authorization),
			body: JSON.stringify({ uri: options.uri, force: options.force ?? true }),
		});
	} catch (error) {
		const cause = error instanceof Error ? (error.cause ?? error) : error;
		throw new Error(
			`register ${options.uri} with Restate: the admin API is unreachable (${String((cause as Error).message ?? cause)})`,
		);
	}
	const text = await response.text();
	if (!response.ok)
		throw new Error(
			`register ${options.uri} with Restate: the admin API answered ${response.status}: ${redactSecrets(text, requestCredentials(options.adminUrl, [{ authorization: authorization ?? "" }])).slice(0, 500)}`,
		);
	const id = (JSON.parse(text) as { id?: unknown }).id;
	if (typeof id !== "string")
		throw new Error(`register ${options.uri} with Restate: no deployment id in the answer`);
	return id;
}
