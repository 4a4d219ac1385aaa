/**
 * One attempt of one provider call over HTTP: the options every built-in provider understands, the request
 * shape, and the per-attempt context that sends the request and reads its events under the two timeout
 * phases (until the headers, then idle between chunks) and the body-size caps. `runProviderStream` creates
 * one per attempt and decides from what it saw whether a failure may be retried.
 */
import type { Model, StreamOptions } from "../../core/model.js";
import { MAX_TIMER_DELAY_MS } from "../../core/timer.js";
import { withConnectionAdvice, withHttpAdvice } from "./advice.js";
import {
	type BodyClassifier,
	classifyHttpError,
	classifyNonStreamBody,
	classifyThrown,
	isNotAnEventStream,
	ProviderError,
} from "./errors.js";
import { fetchSameOrigin } from "./redirects.js";
import type { RetryPolicy } from "./retry.js";
import { type ReadBodyTextOptions, readBodyText, readSseEvents, type SseEvent } from "./sse.js";

/**
 * Default time allowed from sending the request until the response headers (connect, TLS, upload, queueing).
 * Servers answer a streaming request with headers at once and think afterwards; a timeout here is retried
 * (nothing was received), so a black-holed server surfaces after about 3 × 30 s under the default policy.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
/**
 * Default longest silence once the headers arrived: until the first body byte and between any two chunks.
 * Generous, because a reasoning model may think for a long time before its first event; never retried, because
 * the server accepted the request and may be generating (a retry could be billed twice).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/** Default largest single SSE event: far above any real one (a whole tool call's arguments), far below RAM. */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;
/** Default bytes read of an HTTP error body: the message keeps 500 characters of it. */
export const DEFAULT_MAX_ERROR_BODY_BYTES = 64 * 1024;
/**
 * The former name of {@link DEFAULT_HEADERS_TIMEOUT_MS}, with the same value.
 * @deprecated The first response bytes are the headers: use {@link DEFAULT_HEADERS_TIMEOUT_MS}.
 */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = DEFAULT_HEADERS_TIMEOUT_MS;

/** Stream options every built-in provider understands, beyond the core `StreamOptions`. */
export interface ProviderStreamOptions extends StreamOptions, RetryPolicy {
	/**
	 * ms from sending the request until the response headers (0, `Infinity` or anything beyond a timer's range,
	 * about 24.8 days, disables); retried like any transient failure.
	 * Default {@link DEFAULT_HEADERS_TIMEOUT_MS} (30 s); raise it for a local server that loads the model or
	 * processes the prompt before answering.
	 */
	headersTimeoutMs?: number;
	/**
	 * The former name of `headersTimeoutMs`.
	 * @deprecated Alias of {@link headersTimeoutMs}, which wins when both are set.
	 */
	firstByteTimeoutMs?: number;
	/**
	 * ms of silence allowed once the headers arrived, before the first chunk and between chunks (0, `Infinity` or
	 * anything beyond a timer's range, about 24.8 days, disables); not retried. Default
	 * {@link DEFAULT_IDLE_TIMEOUT_MS} (120 s).
	 */
	idleTimeoutMs?: number;
	/**
	 * Largest single SSE event or line in bytes; a bigger one ends the call as `malformed_response` as soon as
	 * it passes the cap, instead of being buffered whole (0 disables). Default {@link DEFAULT_MAX_EVENT_BYTES}.
	 */
	maxEventBytes?: number;
	/** Bytes read of an HTTP error body (the rest is not read). Default {@link DEFAULT_MAX_ERROR_BODY_BYTES}. */
	maxErrorBodyBytes?: number;
	/**
	 * A `fetch` to use instead of the platform one (proxies, tracing). It is called with `redirect: "manual"`:
	 * capstan follows redirects itself, only within the base URL's origin, so the key never goes elsewhere.
	 */
	fetch?: typeof fetch;
}

/** One HTTP request that answers with server-sent events. */
export interface SseRequest {
	/** The absolute URL to send the request to. */
	url: string;
	/** The HTTP method. Default `"POST"`. */
	method?: "POST" | "GET";
	/** Provider headers (auth, versions). Model headers and `options.headers` are layered on top. */
	headers?: Record<string, string>;
	/** The exact body bytes to send (already serialized, so request snapshots see what goes on the wire). */
	body?: string;
	/** Per-API knowledge of error bodies for HTTP errors. */
	classifyBody?: BodyClassifier;
	/** Lines in the body that are not SSE (see `ReadSseOptions.onInvalidLine`). */
	onInvalidLine?: (line: string) => void;
}

/** What `run` gets besides the builder: one per attempt. */
export interface ProviderCallContext {
	/** The model being called. */
	readonly model: Model;
	/** The options the stream function was called with. */
	readonly options: ProviderStreamOptions;
	/** The resolved key (`options.apiKey` or the environment); `undefined` only when the model needs none. */
	readonly apiKey: string | undefined;
	/** 1-based attempt number. */
	readonly attempt: number;
	/** Aborted when this attempt is cancelled (caller abort, stall timeout). */
	readonly signal: AbortSignal;
	/** Send `request` and yield its SSE events; HTTP errors are thrown as classified `ProviderError`s. */
	streamSse(request: SseRequest): AsyncGenerator<SseEvent, void, undefined>;
	/**
	 * The server accepted the request. `streamSse` says so itself when the response headers arrive; a provider
	 * that does its own I/O calls this once its request is answered. From then on a reply that ends without
	 * usage has unknown usage (it was probably billed), not zero, and a dropped connection or a stall is not
	 * retried (a `network`/`timeout` error without an HTTP status); an error the server itself reports before
	 * any content (`overloaded`, `rate_limit`, `server`) still is.
	 */
	markAccepted(): void;
}

/** The context of one attempt; `firstByteSeen` tells the runner whether a retry is still safe. */
export class CallContext implements ProviderCallContext {
	/** The response headers arrived: the server accepted the request (a later stall or drop is not retried). */
	firstByteSeen = false;
	private signalHandedOut = false;
	private headersTimer: ReturnType<typeof setTimeout> | undefined;

	constructor(
		readonly model: Model,
		readonly options: ProviderStreamOptions,
		readonly apiKey: string | undefined,
		readonly attempt: number,
		private readonly controller: AbortController,
		private readonly onAccepted: () => void,
	) {}

	markAccepted(): void {
		this.firstByteSeen = true;
		this.onAccepted();
	}

	get signal(): AbortSignal {
		this.signalHandedOut = true;
		return this.controller.signal;
	}

	/**
	 * True once the attempt's signal exists for anyone to hold. Node 20 builds an `AbortSignal` lazily and
	 * slowly (about 20 µs), so a run that never reads it (no request sent) need not abort it.
	 */
	get signalInUse(): boolean {
		return this.signalHandedOut;
	}

	dispose(): void {
		clearTimeout(this.headersTimer);
	}

	streamSse(request: SseRequest): AsyncGenerator<SseEvent, void, undefined> {
		return new LazySseStream(() => this.openSse(request), this.mapStreamError);
	}

	/** A failure of the request or its body as the attempt reports it: timeouts, then classified errors. */
	private readonly mapStreamError = (error: unknown): unknown =>
		error instanceof ProviderError ? error : (this.timeoutReason() ?? classifyThrown(error));

	/** Send the request; on success, the body's SSE events (HTTP errors thrown as classified errors). */
	private async openSse(request: SseRequest): Promise<AsyncGenerator<SseEvent, void, undefined>> {
		const url = checkedUrl(request.url);
		const limit =
			this.options.headersTimeoutMs ?? this.options.firstByteTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
		if (limit > 0 && limit <= MAX_TIMER_DELAY_MS) {
			this.headersTimer = setTimeout(() => {
				this.controller.abort(new ProviderError("timeout", `no response headers within ${limit} ms`));
			}, limit);
		}
		const doFetch = this.options.fetch ?? globalThis.fetch;
		const response = await this.fetchOrThrow(doFetch, url, request);
		clearTimeout(this.headersTimer);
		if (!response.ok) {
			const text = await readBodyText(response.body, this.bodyReadOptions()).catch(() => "");
			const error = classifyHttpError(
				response.status,
				response.statusText,
				response.headers,
				text,
				request.classifyBody,
			);
			throw withHttpAdvice(error, request.method ?? "POST", url);
		}
		this.markAccepted();
		const contentType = response.headers.get("content-type");
		if (isNotAnEventStream(contentType)) {
			const text = await readBodyText(response.body, this.bodyReadOptions()).catch(() => "");
			throw classifyNonStreamBody(response.status, contentType ?? "", text, request.classifyBody);
		}
		if (!response.body) throw new ProviderError("malformed_response", "response has no body");
		return readSseEvents(response.body, {
			signal: this.signal,
			idleTimeoutMs: this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
			onStall: () => this.controller.abort(new ProviderError("timeout", "stream stalled")),
			maxEventBytes: this.options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
			...(request.onInvalidLine ? { onInvalidLine: request.onInvalidLine } : {}),
			mapError: this.mapStreamError,
		});
	}

	/** How much of a non-event-stream body is read, and how long a silence in it is tolerated. */
	private bodyReadOptions(): ReadBodyTextOptions {
		return {
			maxBytes: this.options.maxErrorBodyBytes ?? DEFAULT_MAX_ERROR_BODY_BYTES,
			idleTimeoutMs: this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
			onStall: () => this.controller.abort(new ProviderError("timeout", "error body stalled")),
		};
	}

	/** The `ProviderError` a timeout aborted this attempt with, if that is why it was aborted. */
	private timeoutReason(): ProviderError | undefined {
		const { signal } = this;
		return signal.aborted && signal.reason instanceof ProviderError ? signal.reason : undefined;
	}

	private async fetchOrThrow(doFetch: typeof fetch, url: string, request: SseRequest): Promise<Response> {
		const headers: Record<string, string> = {
			"content-type": "application/json",
			accept: "text/event-stream",
			...request.headers,
			...this.model.headers,
			...this.options.headers,
		};
		try {
			// Redirects are followed only within the base URL's origin: the key travels in the headers.
			return await fetchSameOrigin(doFetch, url, {
				method: request.method ?? "POST",
				headers,
				...(request.body === undefined ? {} : { body: request.body }),
				signal: this.signal,
			});
		} catch (error) {
			// A headers timeout aborts with a ProviderError reason; report that, not a bare AbortError.
			throw withConnectionAdvice(this.timeoutReason() ?? classifyThrown(error), url);
		}
	}
}

/**
 * The events of one request, opened on the first `next()`: the fetch happens lazily, then each call is
 * forwarded to the body's event iterator, whose promise is handed on as it is (the body's reader maps its
 * own failures with the same `mapError`, so no `.catch` — no extra promise and tick — per event). Every
 * failure — HTTP classification aside — is mapped once by `mapError` (timeouts, network errors).
 */
class LazySseStream implements AsyncGenerator<SseEvent, void, undefined> {
	private inner: AsyncGenerator<SseEvent, void, undefined> | undefined;
	private opening: Promise<AsyncGenerator<SseEvent, void, undefined>> | undefined;
	private closed = false;

	constructor(
		private readonly open: () => Promise<AsyncGenerator<SseEvent, void, undefined>>,
		private readonly mapError: (error: unknown) => unknown,
	) {}

	[Symbol.asyncIterator](): this {
		return this;
	}

	next(): Promise<IteratorResult<SseEvent, void>> {
		if (this.closed) return Promise.resolve({ done: true, value: undefined });
		if (this.inner) return this.inner.next();
		this.opening ??= this.open().catch(this.rethrow);
		return this.opening.then((inner) => {
			this.inner = inner;
			return this.closed ? inner.return(undefined) : this.next();
		});
	}

	return(): Promise<IteratorResult<SseEvent, void>> {
		this.closed = true;
		return this.inner ? this.inner.return(undefined) : Promise.resolve({ done: true, value: undefined });
	}

	throw(error: unknown): Promise<IteratorResult<SseEvent, void>> {
		this.closed = true;
		return this.inner ? this.inner.throw(error) : Promise.reject(error);
	}

	private readonly rethrow = (error: unknown): never => {
		throw this.mapError(error);
	};
}

/** `url` if fetch can send to it: absolute http(s) (`localhost:8080/v1` parses, as scheme "localhost:"). */
function checkedUrl(url: string): string {
	let protocol: string | undefined;
	try {
		protocol = new URL(url).protocol;
	} catch {
		protocol = undefined;
	}
	if (protocol === "http:" || protocol === "https:") return url;
	throw new ProviderError(
		"network",
		`invalid base URL: ${url} (model.baseUrl must be an absolute http(s) URL such as http://localhost:11434/v1)`,
		{ retryable: false },
	);
}
