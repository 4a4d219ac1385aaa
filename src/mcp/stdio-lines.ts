/**
 * A stdio server's answer written as a line that is not a JSON-RPC message (invalid JSON — `NaN`, a raw control
 * character — or JSON that breaks the message schema) fails its call at once, instead of leaving it to wait out
 * the request timeout.
 *
 * The SDK's stdio transport reports such a line as an error and drops it, with nothing to tie it to a call. The
 * bridge keeps the line (its buffer below) and looks for the id of a call still waiting: in the parsed JSON's
 * top-level `id`, or for text that is not JSON, where a JSON-RPC response's `id` stands (right after `"jsonrpc"`
 * at the start, or as its last member). A line that names no waiting call — a server's log line, a banner — is
 * ignored: failing the calls in flight on it would break servers that log to stdout and otherwise work, and the
 * SDK's other clients accept them; it is handed to the host (`onIgnoredLine`), whose user may want to know why
 * a server misbehaves. The line never goes into a call's error, which the model and the transcript see: it may
 * hold anything.
 *
 * A JSON-RPC error whose `id` is null or missing is what a server writes for a request it could not read: one of
 * the calls waiting when it came will never be answered, and nothing says which ({@link UnnamedErrors}).
 */
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { RequestId } from "./http-fetch.js";

/** A line of a stdio server's output that is not a JSON-RPC message. */
export class InvalidLineError extends Error {
	/**
	 * @param line - the line as written (kept for finding its id; never put in a message)
	 * @param json - the line parsed, when it is JSON
	 */
	constructor(
		readonly line: string,
		readonly json: { value: unknown } | undefined,
	) {
		super(`the server wrote a line that is ${json ? "not a JSON-RPC message" : "not valid JSON"}`);
		this.name = "InvalidLineError";
	}
}

/**
 * The SDK's `ReadBuffer` (newline-delimited messages, the same size limit), but a line that is not a message is
 * thrown as an {@link InvalidLineError} carrying it.
 */
class LineKeepingBuffer {
	private buffer: Buffer | undefined;

	append(chunk: Buffer): void {
		if ((this.buffer?.length ?? 0) + chunk.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
			this.clear();
			throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
		}
		this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
	}

	readMessage(): JSONRPCMessage | null {
		const end = this.buffer?.indexOf("\n") ?? -1;
		if (!this.buffer || end === -1) return null;
		const line = this.buffer.toString("utf8", 0, end).replace(/\r$/, "");
		this.buffer = this.buffer.subarray(end + 1);
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			throw new InvalidLineError(line, undefined);
		}
		const parsed = JSONRPCMessageSchema.safeParse(value);
		if (!parsed.success) throw new InvalidLineError(line, { value });
		return parsed.data;
	}

	clear(): void {
		this.buffer = undefined;
	}
}

/**
 * Give `stdio` a buffer that keeps the lines it cannot read. The buffer is the transport's private field: with
 * an SDK that no longer has it, nothing changes (such lines are dropped, as the SDK does) and this returns false.
 */
export function keepInvalidLines(stdio: StdioClientTransport): boolean {
	const target = stdio as unknown as { _readBuffer?: unknown };
	if (!(target._readBuffer instanceof ReadBuffer)) return false;
	target._readBuffer = new LineKeepingBuffer();
	return true;
}

/**
 * Wrap `inner` (a stdio transport given {@link keepInvalidLines}) so that a line naming a call still waiting is
 * answered as that call's error, and so is an error naming no call (`id` null or missing) once it can be only
 * one call's; any other line that is no message, unless blank, goes to `onIgnoredLine`, and is handed on as an
 * error as before, as is every other error.
 */
export function answerInvalidLines(inner: Transport, onIgnoredLine?: (line: string) => void): Transport {
	const waiting = new Set<RequestId>();
	const unnamed = new UnnamedErrors();
	const deliver = (answers: ErrorAnswer[]) => {
		for (const answer of answers) {
			waiting.delete(answer.id);
			outer.onmessage?.(answer);
		}
	};
	/** `id` has its answer: it is no longer waiting, and may decide whose an unnamed error is. */
	const answered = (id: RequestId) => {
		waiting.delete(id);
		deliver(unnamed.answered(id));
	};
	const unnamedError = (error: ServerError) => {
		if (waiting.size === 0)
			outer.onerror?.(new Error(`the server sent an error naming no request: ${error.message}`));
		else deliver(unnamed.add(error, waiting));
	};
	const outer: Transport = {
		start() {
			inner.onmessage = (message, extra) => {
				const error = unnamedErrorOf(message);
				if (error) return unnamedError(error);
				outer.onmessage?.(message, extra);
				if ("id" in message && !("method" in message) && message.id !== undefined) answered(message.id);
			};
			inner.onerror = (error) => {
				if (!(error instanceof InvalidLineError)) return outer.onerror?.(error);
				const unnamed = error.json ? unnamedErrorOf(error.json.value) : undefined;
				if (unnamed) return unnamedError(unnamed);
				const answer = errorAnswer(error, waiting);
				if (!answer) {
					if (error.line.trim() !== "") onIgnoredLine?.(error.line);
					return outer.onerror?.(error);
				}
				outer.onmessage?.(answer);
				answered(answer.id);
			};
			inner.onclose = () => {
				waiting.clear();
				unnamed.clear();
				outer.onclose?.();
			};
			return inner.start();
		},
		send(message: JSONRPCMessage, options?: TransportSendOptions) {
			if ("method" in message) {
				if ("id" in message) waiting.add(message.id);
				else if (message.method === "notifications/cancelled") {
					const id = cancelledId(message.params);
					if (id !== undefined) {
						waiting.delete(id);
						unnamed.forget(id);
					}
				}
			}
			return inner.send(message, options);
		},
		close: () => inner.close(),
		setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
	};
	return outer;
}

/** The error member of a JSON-RPC error response. */
interface ServerError {
	code: number;
	message: string;
}

/** A call's answer made up here: an error. */
interface ErrorAnswer {
	jsonrpc: "2.0";
	id: RequestId;
	error: ServerError;
}

/**
 * The error of a JSON-RPC 2.0 error response that names no request (`id` null or missing), else undefined. A
 * log line in JSON is no such response: it lacks `"jsonrpc": "2.0"`.
 */
function unnamedErrorOf(value: unknown): ServerError | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
	const { jsonrpc, id, error } = value as { jsonrpc?: unknown; id?: unknown; error?: unknown };
	if (jsonrpc !== "2.0" || "method" in value || (id !== undefined && id !== null)) return undefined;
	if (typeof error !== "object" || error === null) return undefined;
	const { code, message } = error as { code?: unknown; message?: unknown };
	if (typeof message !== "string") return undefined;
	return { code: Number.isInteger(code) ? (code as number) : ErrorCode.InternalError, message };
}

/**
 * Errors a server sent naming no request, each with the calls that were waiting when it came: it belongs to one
 * of them, which will never be answered. With one call waiting the error is that call's at once. With several,
 * failing them all would tell the model that calls failed which the server runs and answers (a write that
 * happened, reported as failed, is done twice on a retry); so the error waits for the others' answers, and is
 * the call's that is left. A call cancelled meanwhile (by the loop, or on its timeout) may have been the one,
 * so the errors it might be are given up: the calls left wait for their answers or their timeouts, as before.
 */
export class UnnamedErrors {
	private entries: { error: ServerError; calls: Set<RequestId> }[] = [];

	/** An error naming no request came while `waiting` waited; returns the answers this decides. */
	add(error: ServerError, waiting: ReadonlySet<RequestId>): ErrorAnswer[] {
		this.entries.push({ error, calls: new Set(waiting) });
		return this.settle();
	}

	/** Call `id` got its answer; returns the answers this decides. */
	answered(id: RequestId): ErrorAnswer[] {
		for (const entry of this.entries) entry.calls.delete(id);
		return this.settle();
	}

	/** Call `id` will get no answer (it was cancelled): the errors it may have been are given up. */
	forget(id: RequestId): void {
		this.entries = this.entries.filter((entry) => !entry.calls.has(id));
	}

	clear(): void {
		this.entries = [];
	}

	/** Answer each error left with one call; one left with none answered nothing still waiting, and is dropped. */
	private settle(): ErrorAnswer[] {
		const answers: ErrorAnswer[] = [];
		for (let entry = this.decided(); entry; entry = this.decided()) {
			this.entries.splice(this.entries.indexOf(entry), 1);
			const [id] = entry.calls;
			if (id === undefined) continue;
			for (const other of this.entries) other.calls.delete(id);
			answers.push({ jsonrpc: "2.0", id, error: unnamedAnswer(entry.error) });
		}
		return answers;
	}

	private decided() {
		return this.entries.find((entry) => entry.calls.size <= 1);
	}
}

function unnamedAnswer({ code, message }: ServerError): ServerError {
	return {
		code,
		message: `the server sent an error naming no request (id null or missing), taken as this call's: ${message}`,
	};
}

/** The error answer of the waiting call that `error`'s line was meant to answer, if it names one. */
function errorAnswer(error: InvalidLineError, waiting: ReadonlySet<RequestId>): ErrorAnswer | undefined {
	const id = answeredId(error, waiting);
	if (id === undefined) return undefined;
	const what = error.json
		? "JSON but not a valid JSON-RPC message"
		: "not valid JSON (a stdio server writes each message as one line of JSON)";
	return {
		jsonrpc: "2.0",
		id,
		error: { code: ErrorCode.ParseError, message: `the server answered with a line that is ${what}` },
	};
}

function cancelledId(params: unknown): RequestId | undefined {
	const id = (params as { requestId?: unknown } | undefined)?.requestId;
	return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** A JSON-RPC id: a number or a JSON string, as text. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":…,"result"` — a response with `id` near its start (most encoders' order). */
const ID_FIRST = new RegExp(
	String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*,\s*"(?:result|error)"\s*:`,
);
/** `{"result":…,"jsonrpc":"2.0","id":…}` — a response with `id` last (the TypeScript SDK's order). */
const RESPONSE_START = /^\s*\{\s*"(?:result|error)"\s*:/;
const ID_LAST = new RegExp(String.raw`"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/**
 * The id of a waiting call that `error`'s line answers, or undefined when it names none. Exported for the tests.
 */
export function answeredId(error: InvalidLineError, waiting: ReadonlySet<RequestId>): RequestId | undefined {
	const id = error.json ? topLevelId(error.json.value) : idInText(error.line);
	return id !== undefined && waiting.has(id) ? id : undefined;
}

/** The `id` of a JSON object that is no request (a server's request has ids of its own numbering). */
function topLevelId(value: unknown): RequestId | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value) || "method" in value)
		return undefined;
	const id = (value as { id?: unknown }).id;
	return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function idInText(line: string): RequestId | undefined {
	const text = ID_FIRST.exec(line)?.[1] ?? (RESPONSE_START.test(line) ? ID_LAST.exec(line)?.[1] : undefined);
	if (text === undefined) return undefined;
	try {
		return JSON.parse(text) as RequestId;
	} catch {
		return undefined;
	}
}
