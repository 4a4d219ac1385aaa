/**
 * The `fetch` of the SDK's streamable HTTP transport, wrapped twice: to notice a call whose response stream ended
 * unanswered ({@link unansweredStreamFetch}), and whether requests reach the server at all ({@link reachFetch}).
 *
 * A server answers a POSTed request on that POST's SSE stream. When the stream ends first (the server stopped,
 * a proxy dropped the connection), the SDK reports a transport error but leaves the request waiting for its
 * timeout (60 s by default, restarted by every progress report), so the call — and the run — stall that long
 * for an answer that cannot come. This fetch reads the stream as it passes to the SDK and, when it ends without
 * the response to a request it carried, reports that request. A stream that gave SSE event ids is left alone:
 * the SDK resumes it from the last id, and the answer may still arrive.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** JSON-RPC request ids, as the SDK numbers them (or a server-defined string). */
export type RequestId = string | number;

/**
 * `base` wrapped so that `onUnanswered` hears of every request whose SSE response stream ended (cleanly or
 * with an error) without its response and without an event id to resume from. A stream the SDK cancels
 * itself (closing the client) reports nothing.
 */
export function unansweredStreamFetch(
	onUnanswered: (ids: RequestId[]) => void,
	base: FetchLike = fetch,
): FetchLike {
	return async (url, init) => {
		const response = await base(url, init);
		const ids = requestIds(init?.body);
		const type = response.headers.get("content-type") ?? "";
		if (ids.length === 0 || !response.body || !type.toLowerCase().startsWith("text/event-stream"))
			return response;
		const watcher = new StreamWatcher(ids);
		const reader = response.body.getReader();
		let ended = false;
		const end = () => {
			if (ended) return;
			ended = true;
			const unanswered = watcher.unanswered();
			if (unanswered.length > 0) onUnanswered(unanswered);
		};
		const body = new ReadableStream<Uint8Array>({
			async pull(controller) {
				let next: ReadableStreamReadResult<Uint8Array>;
				try {
					next = await reader.read();
				} catch (error) {
					controller.error(error);
					end();
					return;
				}
				if (next.done) {
					controller.close();
					end();
					return;
				}
				watcher.scan(next.value);
				controller.enqueue(next.value);
			},
			cancel(reason) {
				ended = true;
				return reader.cancel(reason);
			},
		});
		return new Response(body, {
			status: response.status,
			statusText: response.statusText,
			headers: response.headers,
		});
	};
}

/**
 * `base` wrapped so that `onReach` hears whether each request reached the server: `undefined` when an answer
 * came (whatever its HTTP status), else why none could (`connect ECONNREFUSED 127.0.0.1:3000`, DNS, TLS: fetch
 * failed before an answer). Such a failure is rethrown saying the server could not be reached and why, where
 * fetch's own says only "fetch failed". A request that was aborted (the client closing) says nothing.
 *
 * A connection closed under a request before any answer ({@link isCutConnection}) is most often a kept-alive
 * one the server closed as idle just as the request went out (a server that sends no `Keep-Alive: timeout`
 * hint, or closes sooner than it says): the server is up and never read it. Whether it did cannot be told, so
 * the request is sent once more only when doing it twice changes nothing ({@link isRepeatable}); any other
 * (a `tools/call`) fails saying the server may have run it, and a `ping` asks whether the server is still
 * reached. That second request can meet another kept-alive connection the server closed (a restarted server
 * closes all of them at once, and fetch's pool may hold several), so while it is cut too it is sent again
 * ({@link CUT_RETRIES} sends at most, each ping with an id of its own); the tool call itself never is. The
 * server is lost only if those cannot reach it either.
 */
export function reachFetch(
	onReach: (problem: string | undefined) => void,
	base: FetchLike = fetch,
): FetchLike {
	/** Report why `error` means no answer came, and throw it saying so (as is, for an aborted request). */
	const unreached = (error: unknown, init: RequestInit | undefined): never => {
		if (init?.signal?.aborted) throw error;
		const problem = unreachedProblem(error);
		onReach(problem);
		throw new TypeError(`the server could not be reached (${problem})`, { cause: error });
	};
	/** Send what `next` gives, again while its connection is cut before any answer: {@link CUT_RETRIES} at most. */
	const retry = async (url: string | URL, next: () => RequestInit | undefined): Promise<Response> => {
		for (let tries = 1; ; tries++) {
			const init = next();
			try {
				return await base(url, init);
			} catch (error) {
				if (tries < CUT_RETRIES && !init?.signal?.aborted && isCutConnection(error)) continue;
				return unreached(error, init);
			}
		}
	};
	return async (url, init) => {
		let response: Response;
		try {
			response = await base(url, init);
		} catch (error) {
			// Sent once: only a cut connection is sent again (a failed parse or a timeout may follow a request the
			// server ran, and a refused one fails the same way twice).
			if (init?.signal?.aborted || !isCutConnection(error)) return unreached(error, init);
			if (isRepeatable(init)) response = await retry(url, () => init);
			else {
				const probe = await retry(url, () => pingOf(init));
				onReach(undefined);
				void probe.body?.cancel().catch(() => {});
				throw new TypeError(
					`the server closed the connection before it answered (${unreachedProblem(error)}); it may or may not have run the request`,
					{ cause: error },
				);
			}
		}
		onReach(undefined);
		return response;
	};
}

/**
 * How many times a request cut before any answer is followed up (sent again, or a `ping` probe), each sent
 * only when the one before was cut as well: enough for the few kept-alive connections a pool holds to one
 * server, and bounded, so a server that cuts every request is lost after a handful.
 */
const CUT_RETRIES = 3;

/**
 * Whether fetch failed because the connection was closed or reset under the request before any answer (not
 * refused, not DNS or TLS): undici's "other side closed", a reset, a write to a closed socket.
 */
function isCutConnection(error: unknown): boolean {
	const code = error instanceof Error ? (error as { cause?: { code?: unknown } }).cause?.code : undefined;
	return code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE";
}

/**
 * MCP methods a client sends that change nothing on the server when sent twice: the reads, and `initialize`
 * (a second one at most leaves the server a session nobody uses).
 */
const REPEATABLE_METHODS = new Set([
	"initialize",
	"ping",
	"tools/list",
	"prompts/list",
	"prompts/get",
	"resources/list",
	"resources/templates/list",
	"resources/read",
	"completion/complete",
]);

/**
 * Whether sending `init` twice does what sending it once does: a GET (the server's event stream), a DELETE
 * (ending the session), or a POST of notifications, responses and {@link REPEATABLE_METHODS} requests only.
 * As an HTTP client retries a request that met a closed kept-alive connection only when it is idempotent.
 */
function isRepeatable(init: RequestInit | undefined): boolean {
	const method = (init?.method ?? "GET").toUpperCase();
	if (method === "GET" || method === "DELETE") return true;
	if (method !== "POST" || typeof init?.body !== "string") return false;
	let parsed: unknown;
	try {
		parsed = JSON.parse(init.body);
	} catch {
		return false;
	}
	return (Array.isArray(parsed) ? parsed : [parsed]).every((message) => {
		if (typeof message !== "object" || message === null) return false;
		const { id, method } = message as { id?: unknown; method?: unknown };
		// A notification (no id) or a response (no method) runs nothing to be run twice.
		if (id === undefined || method === undefined) return true;
		return typeof method === "string" && REPEATABLE_METHODS.has(method);
	});
}

/** How many reach probes this process sent: each probe's id is the next, so no two in flight share one. */
let probes = 0;

/**
 * `init` with a `ping` for body: the same session and headers, and nothing to run. Its id is a string (the
 * SDK client's own ids are numbers) of its own: a server routes each answer by id, and two probes in flight
 * with one id (two calls cut at once) can leave one unanswered (the SDK server keeps one stream per request id:
 * in JSON response mode the overwritten POST is never answered, and its cut call would wait out its timeout).
 */
function pingOf(init: RequestInit | undefined): RequestInit {
	const body = JSON.stringify({ jsonrpc: "2.0", id: `capstan-reach-${++probes}`, method: "ping" });
	return { ...init, method: "POST", body };
}

/** What fetch's error says went wrong: its cause's message (which names the address) or code, else its own. */
function unreachedProblem(error: unknown): string {
	const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
	if (cause instanceof Error) {
		const code = (cause as { code?: unknown }).code;
		if (cause.message) return cause.message;
		if (typeof code === "string") return code;
	}
	return error instanceof Error ? error.message : String(error);
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch); none for anything else. */
function requestIds(body: unknown): RequestId[] {
	if (typeof body !== "string") return [];
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return [];
	}
	const ids: RequestId[] = [];
	for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
		if (typeof message !== "object" || message === null || !("method" in message)) continue;
		const id = (message as { id?: unknown }).id;
		if (typeof id === "string" || typeof id === "number") ids.push(id);
	}
	return ids;
}

/** Reads SSE events off the bytes: which requests were answered, and whether an event id was given. */
class StreamWatcher {
	private readonly decoder = new TextDecoder();
	private readonly pending: Set<RequestId>;
	private buffer = "";
	private data: string[] = [];
	private resumable = false;

	constructor(ids: RequestId[]) {
		this.pending = new Set(ids);
	}

	scan(chunk: Uint8Array): void {
		this.buffer += this.decoder.decode(chunk, { stream: true });
		const lines = this.buffer.split(/\r\n|\r|\n/);
		this.buffer = lines.pop() ?? "";
		for (const line of lines) this.line(line);
	}

	/** The requests still unanswered when the stream ended; none when the SDK will resume the stream. */
	unanswered(): RequestId[] {
		this.line("");
		return this.resumable ? [] : [...this.pending];
	}

	private line(line: string): void {
		if (line === "") {
			if (this.data.length > 0) this.event(this.data.join("\n"));
			this.data = [];
			return;
		}
		const colon = line.indexOf(":");
		const field = colon < 0 ? line : line.slice(0, colon);
		const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
		if (field === "data") this.data.push(value);
		else if (field === "id" && value !== "") this.resumable = true;
	}

	private event(data: string): void {
		try {
			const messages: unknown = JSON.parse(data);
			for (const message of Array.isArray(messages) ? messages : [messages]) {
				if (typeof message !== "object" || message === null || "method" in message) continue;
				const id = (message as { id?: unknown }).id;
				if (typeof id === "string" || typeof id === "number") this.pending.delete(id);
			}
		} catch {
			// Not JSON: the SDK reports it; it answers nothing.
		}
	}
}
