/**
 * Server-sent events over a platform `fetch` body. Framing (CR, LF, CRLF, comments, events split across
 * chunks) is left to `eventsource-parser`; bytes are decoded with one streaming `TextDecoder`, so a multi-byte
 * UTF-8 character split across two network chunks decodes correctly.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderError } from "./errors.js";

/** One SSE event: `event` is the `event:` name when the server sent one, `data` the joined `data:` lines. */
export interface SseEvent {
	event: string | undefined;
	data: string;
	id?: string;
}

/** Options for {@link readSseEvents}. */
export interface ReadSseOptions {
	/** Aborts the read; checked before every event is handed out so nothing is decoded after an abort. */
	signal?: AbortSignal;
	/**
	 * Longest quiet gap between two body chunks, in ms (0 or `Infinity` disables). When exceeded, `onStall` is
	 * called (it should cancel the request) and the read fails with a `timeout` `ProviderError`.
	 */
	idleTimeoutMs?: number;
	/** Called once when the idle timeout fires, before the read fails. */
	onStall?: () => void;
	/** Called for each chunk of bytes as it arrives (the first call marks "first byte"). */
	onBytes?: (byteLength: number) => void;
	/**
	 * Lines that are not SSE (e.g. a bare JSON error body a server appended to a stream). Without a callback
	 * they are ignored, as the SSE spec says.
	 */
	onInvalidLine?: (line: string) => void;
}

/**
 * Read an SSE body as an async sequence of events. Ends when the body ends (an event left without its
 * trailing blank line is still delivered: some servers omit it after the last event). Fails with the
 * body's read error, a `timeout` `ProviderError` on a stall, or the abort reason.
 */
export async function* readSseEvents(
	body: ReadableStream<Uint8Array>,
	options: ReadSseOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
	const queue: SseEvent[] = [];
	const parser = createParser({
		onEvent: (message: EventSourceMessage) => {
			const event: SseEvent = { event: message.event, data: message.data };
			if (message.id !== undefined) event.id = message.id;
			queue.push(event);
		},
		onError: (error) => {
			if (error.type === "unknown-field" && options.onInvalidLine) options.onInvalidLine(error.line ?? "");
		},
	});
	const decoder = new TextDecoder("utf-8");
	const reader = body.getReader();
	const { signal } = options;
	const throwIfAborted = (): void => {
		if (signal?.aborted) throw signal.reason ?? new Error("Request was aborted");
	};
	try {
		while (true) {
			throwIfAborted();
			const chunk = await readWithIdleTimeout(reader, options);
			throwIfAborted();
			if (chunk.done) break;
			options.onBytes?.(chunk.value.byteLength);
			parser.feed(decoder.decode(chunk.value, { stream: true }));
			while (queue.length > 0) {
				yield queue.shift() as SseEvent;
				throwIfAborted();
			}
		}
		// Flush the decoder, then end any event the server left without its blank line (some omit it after
		// the last event); on a well-terminated body the extra blank lines dispatch nothing.
		parser.feed(`${decoder.decode()}\n\n`);
		for (const event of queue) {
			throwIfAborted();
			yield event;
		}
	} finally {
		// Releasing early (consumer stopped, abort, error) must also stop the network read.
		reader.cancel().catch(() => {});
	}
}

function readWithIdleTimeout(
	reader: ReadableStreamDefaultReader<Uint8Array>,
	options: ReadSseOptions,
): Promise<ReadableStreamReadResult<Uint8Array>> {
	const limit = options.idleTimeoutMs;
	if (limit === undefined || limit <= 0 || !Number.isFinite(limit)) return reader.read();
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
