/**
 * A loopback HTTP server (127.0.0.1, random port) that answers requests from a script, one scripted response
 * per request, in order. Providers under test point their `baseUrl` at `server.baseUrl` and go through real
 * `fetch`, real HTTP and their real decoder; nothing leaves the machine.
 *
 * Scripted responses:
 * - `{ type: "sse", body, split? }` — a 200 `text/event-stream` body, written in pieces cut at seeded random
 *   byte offsets (`split: { seed, pieces }`; also inside a multi-byte UTF-8 character and between CR and LF),
 *   or in one write with `split: false`.
 * - `{ type: "http", status, headers?, body? }` — an error (or any) response, e.g. 429 with `retry-after`.
 * - `{ type: "reset", partial? }` — destroy the connection, before any byte or after sending headers and the
 *   `partial` body bytes.
 * - `{ type: "drip", body, chunkSize, intervalMs }` — a server that drips bytes slowly.
 * - `{ type: "hang", partial?, status?, headers? }` — send headers (and `partial`), then never finish.
 * - `{ type: "silent" }` — accept the request and never answer, not even headers.
 *
 * Every request is recorded (`server.requests`: method, path, headers, body text) for request assertions.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { splitBytes } from "./fixtures.js";

/** How an `sse` body is cut into writes. */
export interface SplitOptions {
	seed: number;
	pieces?: number;
}

/** One scripted answer. */
export type ScriptedResponse =
	| {
			type: "sse";
			body: Uint8Array | string;
			split?: SplitOptions | false;
			status?: number;
			headers?: Record<string, string>;
	  }
	| { type: "http"; status: number; headers?: Record<string, string>; body?: string }
	| { type: "reset"; partial?: Uint8Array | string }
	| { type: "drip"; body: Uint8Array | string; chunkSize: number; intervalMs: number }
	| { type: "hang"; partial?: Uint8Array | string; status?: number; headers?: Record<string, string> }
	| { type: "silent" };

/** An `http` response with a JSON body (an API's error object, typically). */
export function jsonResponse(
	status: number,
	body: unknown,
	headers?: Record<string, string>,
): ScriptedResponse {
	return { type: "http", status, ...(headers ? { headers } : {}), body: JSON.stringify(body) };
}

/** A request the server received. */
export interface RecordedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/** A running replay server. */
export interface ReplayServer {
	/** `http://127.0.0.1:<port>` (no trailing slash). */
	baseUrl: string;
	/** Requests received so far, in order. */
	requests: RecordedRequest[];
	/** Append scripted responses. */
	enqueue(...responses: ScriptedResponse[]): void;
	/** Responses not consumed yet. */
	pending(): number;
	/** Stop the server and drop open connections. */
	close(): Promise<void>;
}

const bytesOf = (value: Uint8Array | string): Uint8Array =>
	typeof value === "string" ? new TextEncoder().encode(value) : value;

/** Start a replay server with an initial script. */
export async function startReplayServer(script: ScriptedResponse[] = []): Promise<ReplayServer> {
	const queue = [...script];
	const requests: RecordedRequest[] = [];
	const timers = new Set<ReturnType<typeof setTimeout>>();
	const server = createServer((req, res) => {
		readBody(req).then((body) => {
			requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
			const next = queue.shift();
			if (!next) {
				res.writeHead(500, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: "replay server: no scripted response left" } }));
				return;
			}
			serve(next, req, res, timers).catch(() => res.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		enqueue: (...responses) => queue.push(...responses),
		pending: () => queue.length,
		close: async () => {
			for (const timer of timers) clearTimeout(timer);
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		req.on("error", () => resolve(Buffer.concat(chunks).toString("utf8")));
	});
}

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

async function serve(
	response: ScriptedResponse,
	req: IncomingMessage,
	res: ServerResponse,
	timers: Set<ReturnType<typeof setTimeout>>,
): Promise<void> {
	switch (response.type) {
		case "sse": {
			res.writeHead(response.status ?? 200, { ...SSE_HEADERS, ...response.headers });
			const body = bytesOf(response.body);
			const pieces =
				response.split === false
					? [body]
					: splitBytes(body, response.split?.seed ?? 1, response.split?.pieces);
			for (const piece of pieces) {
				if (res.destroyed) return;
				await write(res, piece);
				// Yield to the event loop so pieces tend to reach the client as separate reads.
				await new Promise((resolve) => setImmediate(resolve));
			}
			res.end();
			return;
		}
		case "http":
			res.writeHead(response.status, { "content-type": "application/json", ...response.headers });
			res.end(response.body ?? "");
			return;
		case "reset":
			if (response.partial !== undefined) {
				res.writeHead(200, SSE_HEADERS);
				await write(res, bytesOf(response.partial));
				await new Promise((resolve) => setTimeout(resolve, 5));
			}
			req.socket.destroy();
			return;
		case "drip": {
			res.writeHead(200, SSE_HEADERS);
			const body = bytesOf(response.body);
			for (let offset = 0; offset < body.length && !res.destroyed; offset += response.chunkSize) {
				await write(res, body.subarray(offset, offset + response.chunkSize));
				await new Promise<void>((resolve) => {
					const timer = setTimeout(() => {
						timers.delete(timer);
						resolve();
					}, response.intervalMs);
					timers.add(timer);
				});
			}
			if (!res.destroyed) res.end();
			return;
		}
		case "silent":
			return;
		case "hang":
			res.writeHead(response.status ?? 200, { ...SSE_HEADERS, ...response.headers });
			if (response.partial !== undefined) await write(res, bytesOf(response.partial));
			else res.flushHeaders();
			return;
	}
}

function write(res: ServerResponse, bytes: Uint8Array): Promise<void> {
	return new Promise((resolve, reject) => res.write(bytes, (error) => (error ? reject(error) : resolve())));
}
