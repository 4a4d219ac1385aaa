/**
 * A server that closes all its kept-alive connections at once (it restarted) while fetch still holds several of
 * them in its pool: the request that meets the first is cut before any answer, and the one sent after it (the
 * same request again, or the `ping` probe after a tool call) can meet a second. The server is up all along, so
 * it is no lost server: what follows a cut is tried again while it is cut too, a few times.
 *
 * Real fetch (Node's undici, its own connection pool) against a plain node:http server on 127.0.0.1. The server
 * marks the connections it closes, and destroys each unread when a request arrives on it: the close crossing the
 * request, which is what fetch meets when the server closes an idle connection just as a request goes out on it
 * (closing them outright first would let fetch see the close before it picks one). Which pooled connection each
 * request takes is undici's: the request sent right after an answer takes another than the one just answered,
 * and what follows its cut takes that one — the second closed connection.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { reachFetch } from "../../src/mcp/http-fetch.js";

/** What the server was sent, in order: each JSON-RPC method, with " (cut)" when its connection was closed. */
let log: string[] = [];
let server: Server | undefined;

/**
 * A server answering every JSON-RPC request with an empty result. Its first `warm` requests are held until all
 * have come (so fetch opens that many connections); `restart` (a method) closes every connection open when it
 * is answered.
 */
async function startServer(warm: number, restart: string): Promise<string> {
	const open = new Set<Socket>();
	const closed = new Set<Socket>();
	const held: (() => void)[] = [];
	server = createServer((req, res) => {
		let text = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => {
			text += chunk;
		});
		req.on("end", () => {
			const { id, method } = JSON.parse(text) as { id?: unknown; method: string };
			if (closed.has(req.socket)) {
				log.push(`${method} (cut)`);
				return void req.socket.destroy();
			}
			log.push(method);
			if (method === restart) for (const socket of open) closed.add(socket);
			const answer = () => {
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ jsonrpc: "2.0", id, result: {} }));
			};
			if (held.length + 1 < warm) return void held.push(answer);
			warm = 0;
			for (const next of [...held.splice(0), answer]) next();
		});
	});
	server.on("connection", (socket) => {
		open.add(socket);
		socket.on("close", () => open.delete(socket));
	});
	await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

afterEach(async () => {
	log = [];
	await new Promise<void>((resolve) => {
		server?.close(() => resolve());
		server?.closeAllConnections();
	});
	server = undefined;
});

const post = (method: string, id: number) => ({
	method: "POST",
	headers: { "content-type": "application/json" },
	body: JSON.stringify({ jsonrpc: "2.0", id, method }),
});

/** Three pooled connections, then a request the server answers just before it closes them all. */
async function poolThenRestart(fetch: ReturnType<typeof reachFetch>, url: string): Promise<void> {
	await Promise.all([1, 2, 3].map(async (id) => (await fetch(url, post("initialize", id))).text()));
	// One turn of the event loop: undici takes the three connections back into its pool.
	await new Promise((resolve) => setImmediate(resolve));
	await (await fetch(url, post("resources/read", 4))).text();
	log = [];
}

describe("a request cut before any answer, and what follows it cut as well", () => {
	it("a tools/call: its ping probe meets a second closed connection, pings again, finds the server", async () => {
		const reached: (string | undefined)[] = [];
		const fetch = reachFetch((problem) => reached.push(problem));
		const url = await startServer(3, "resources/read");
		await poolThenRestart(fetch, url);
		reached.length = 0;

		const failure = await fetch(url, post("tools/call", 5)).then(
			() => undefined,
			(e: Error) => e.message,
		);
		expect(failure).toMatch(
			/^the server closed the connection before it answered \((other side closed|read ECONNRESET)\); it may or may not have run the request$/,
		);
		// The call was sent once; a ping found the server after one met a closed connection.
		expect(log).toEqual(["tools/call (cut)", "ping (cut)", "ping"]);
		expect(reached).toEqual([undefined]);
	});

	it("a tools/list: sent again onto a second closed connection, then once more, answered", async () => {
		const reached: (string | undefined)[] = [];
		const fetch = reachFetch((problem) => reached.push(problem));
		const url = await startServer(3, "resources/read");
		await poolThenRestart(fetch, url);
		reached.length = 0;

		const response = await fetch(url, post("tools/list", 5));
		expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
		expect(log).toEqual(["tools/list (cut)", "tools/list (cut)", "tools/list"]);
		expect(reached).toEqual([undefined]);
	});
});
