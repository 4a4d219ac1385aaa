/**
 * Server-sent events over a platform `fetch` body. Framing (CR, LF, CRLF, comments, events split across
 * chunks) is left to `eventsource-parser`; bytes are decoded with one streaming `TextDecoder`, so a multi-byte
 * UTF-8 character split across two network chunks decodes correctly.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { MAX_TIMER_DELAY_MS } from "../../core/timer.js";
import { ProviderError } from "./errors.js";

/** One SSE event: `event` is the `event:` name when the server sent one, `data` the joined `data:` lines. */
export interface SseEvent {
	/** The `event:` name, when the server sent one. */
	event: string | undefined;
	/** The event's `data:` lines, joined with newlines. */
	data: string;
	/** The `id:` field, when the server sent one. */
	id?: string;
}

/** Options for {@link readSseEvents}. */
export interface ReadSseOptions {
	/** Aborts the read; checked before every event is handed out so nothing is decoded after an abort. */
	signal?: AbortSignal;
	/**
	 * Longest quiet gap between two body chunks, in ms (0, `Infinity` or beyond a timer's range, about 24.8
	 * days, disables). When exceeded, `onStall` is called (it should cancel the request) and the read fails
	 * with a `timeout` `ProviderError`.
	 */
	idleTimeoutMs?: number;
	/** Called once when the idle timeout fires, before the read fails. */
	onStall?: () => void;
	/** Called for each chunk of bytes as it arrives (the first call marks "first byte"). */
	onBytes?: (byteLength: number) => void;
	/**
	 * Largest single event (or line) in bytes, counted as it arrives; a bigger one fails the read with a
	 * `malformed_response` `ProviderError` instead of being buffered whole (0 or `Infinity` disables).
	 */
	maxEventBytes?: number;
	/**
	 * Lines that are not SSE (e.g. a bare JSON error body a server appended to a stream). Without a callback
	 * they are ignored, as the SSE spec says.
	 */
	onInvalidLine?: (line: string) => void;
	/**
	 * Turns a failure (a body read error, the abort reason) into the error the read rejects with. Mapped here,
	 * where it happens, so a caller need not chain a `.catch` onto every event's promise.
	 */
	mapError?: (error: unknown) => unknown;
}

/**
 * Read an SSE body as an async sequence of events. Ends when the body ends (an event left without its
 * trailing blank line is still delivered: some servers omit it after the last event). Fails with the
 * body's read error, a `timeout` `ProviderError` on a stall, or the abort reason. Stopping early (`return`,
 * `break`, a failure) cancels the body.
 */
export function readSseEvents(
	body: ReadableStream<Uint8Array>,
	options: ReadSseOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
	return new SseEventIterator(body, options);
}

const DONE: IteratorReturnResult<void> = { done: true, value: undefined };

/**
 * A hand-written iterator rather than an `async function*`: the events of one network chunk are handed out
 * from a queue as already-settled promises, so the per-event cost is one microtask, not a generator
 * round-trip (decode throughput is measured against the vendor SDK).
 */
class SseEventIterator implements AsyncGenerator<SseEvent, void, undefined> {
	private readonly queue: SseEvent[] = [];
	private head = 0;
	private readonly parser: EventSourceParser;
	private readonly decoder = new TextDecoder("utf-8");
	private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
	private ended = false;
	private finished = false;
	/** Bytes received since the last dispatched event (an upper bound of what the parser is holding). */
	private pendingBytes = 0;
	private dispatched = false;

	constructor(
		body: ReadableStream<Uint8Array>,
		private readonly options: ReadSseOptions,
	) {
		this.reader = body.getReader();
		this.parser = createParser({
			onEvent: (message: EventSourceMessage) => {
				const event: SseEvent = { event: message.event, data: message.data };
				if (message.id !== undefined) event.id = message.id;
				this.queue.push(event);
				this.dispatched = true;
			},
			onError: (error) => {
				if (error.type === "unknown-field" && options.onInvalidLine) options.onInvalidLine(error.line ?? "");
			},
		});
	}

	[Symbol.asyncIterator](): this {
		return this;
	}

	next(): Promise<IteratorResult<SseEvent, void>> {
		if (this.finished) return Promise.resolve(DONE);
		const { signal } = this.options;
		if (signal?.aborted) return this.failWith(signal.reason ?? new Error("Request was aborted"));
		if (this.head < this.queue.length) return Promise.resolve({ done: false, value: this.take() });
		if (this.ended) {
			this.close();
			return Promise.resolve(DONE);
		}
		return this.fill().then(
			() => this.next(),
			(error: unknown) => this.failWith(error),
		);
	}

	return(): Promise<IteratorResult<SseEvent, void>> {
		this.close();
		return Promise.resolve(DONE);
	}

	throw(error: unknown): Promise<IteratorResult<SseEvent, void>> {
		return this.failWith(error);
	}

	private take(): SseEvent {
		const event = this.queue[this.head++] as SseEvent;
		if (this.head === this.queue.length) {
			this.queue.length = 0;
			this.head = 0;
		}
		return event;
	}

	/** Read one network chunk into the queue (or mark the end, flushing what the body left unterminated). */
	private async fill(): Promise<void> {
		const chunk = await readWithIdleTimeout(this.reader, this.options);
		const { signal } = this.options;
		if (signal?.aborted) throw signal.reason ?? new Error("Request was aborted");
		if (chunk.done) {
			this.ended = true;
			// Flush the decoder, then end any event the server left without its blank line (some omit it
			// after the last event); on a well-terminated body the extra blank lines dispatch nothing.
			this.parser.feed(`${this.decoder.decode()}\n\n`);
			return;
		}
		this.options.onBytes?.(chunk.value.byteLength);
		const text = this.decoder.decode(chunk.value, { stream: true });
		this.dispatched = false;
		this.parser.feed(text);
		this.checkEventSize(chunk.value.byteLength, text);
	}

	/**
	 * Fail once one event outgrows the cap. After a dispatch only the text past the chunk's last line break
	 * can still be pending (counted in UTF-16 units, close to bytes for the JSON servers send).
	 */
	private checkEventSize(byteLength: number, text: string): void {
		const limit = this.options.maxEventBytes;
		if (limit === undefined || limit <= 0 || !Number.isFinite(limit)) return;
		if (this.dispatched) {
			// The last line break: LF-framed streams (nearly all) never contain a CR, so look for one only after
			// the last LF instead of scanning the whole chunk backwards for it.
			let end = text.lastIndexOf("\n");
			for (let cr = text.indexOf("\r", end + 1); cr !== -1; cr = text.indexOf("\r", cr + 1)) end = cr;
			this.pendingBytes = text.length - end - 1;
		} else this.pendingBytes += byteLength;
		if (this.pendingBytes > limit)
			throw new ProviderError(
				"malformed_response",
				`a server-sent event larger than ${limit} bytes (maxEventBytes) arrived; the call was stopped`,
				{ retryable: false },
			);
	}

	private failWith(error: unknown): Promise<never> {
		this.close();
		const { mapError } = this.options;
		return Promise.reject(mapError ? mapError(error) : error);
	}

	private close(): void {
		if (this.finished) return;
		this.finished = true;
		this.queue.length = 0;
		// Releasing early (consumer stopped, abort, error) must also stop the network read.
		this.reader.cancel().catch(() => {});
	}
}

/** Options for {@link readBodyText}. */
export interface ReadBodyTextOptions {
	/** Bytes to read at most; the rest of the body is cancelled unread. */
	maxBytes: number;
	/**
	 * Longest quiet gap between chunks in ms (0, `Infinity` or beyond a timer's range disables); then `onStall`
	 * and a `timeout` error.
	 */
	idleTimeoutMs?: number;
	/** Called once when the idle timeout fires. */
	onStall?: () => void;
}

/**
 * The first `maxBytes` of a body as text (an error page, a JSON error), read with an idle timeout; the rest
 * is cancelled, so a huge or endless body costs at most `maxBytes` to report.
 */
export async function readBodyText(
	body: ReadableStream<Uint8Array> | null,
	options: ReadBodyTextOptions,
): Promise<string> {
	if (!body) return "";
	const reader = body.getReader();
	const decoder = new TextDecoder("utf-8");
	let text = "";
	let read = 0;
	try {
		while (read < options.maxBytes) {
			const chunk = await readWithIdleTimeout(reader, options);
			if (chunk.done) return text + decoder.decode();
			const room = options.maxBytes - read;
			const bytes = chunk.value.byteLength > room ? chunk.value.subarray(0, room) : chunk.value;
			read += bytes.byteLength;
			text += decoder.decode(bytes, { stream: true });
		}
		return text + decoder.decode();
	} finally {
		reader.cancel().catch(() => {});
	}
}

function readWithIdleTimeout(
	reader: ReadableStreamDefaultReader<Uint8Array>,
	options: Pick<ReadSseOptions, "idleTimeoutMs" | "onStall">,
): Promise<ReadableStreamReadResult<Uint8Array>> {
	const limit = options.idleTimeoutMs;
	// Beyond a timer's range is as good as `Infinity`: a longer `setTimeout` would fire after 1 ms.
	if (!(limit !== undefined && limit > 0 && limit <= MAX_TIMER_DELAY_MS)) return reader.read();
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			options.onStall?.();
			reject(new ProviderError("timeout", `stream stalled: no data for ${limit} ms`));
		}, limit);
		reader.read().then(
			(result) => {
				clearTimeout(timer);
				resolve(result);
			},
			(error: unknown) => {
				clearTimeout(timer);
				reject(error);
			},
		);
	});
}
