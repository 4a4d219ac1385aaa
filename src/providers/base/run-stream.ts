/**
 * The never-throw provider stream (SPEC E3) with retries (SPEC A8), stall timeouts and abort (SPEC A2), written
 * once for every API. A provider supplies only `run(builder, ctx)`: build the request, read `ctx.streamSse`,
 * feed the builder, and finish with `builder.done(...)` (or `finishWithStop`). Anything it throws becomes an
 * `error` message with a classified `errorKind`; a transient failure before any content is retried.
 *
 * Contract for `run`: do not call `builder.start()` (the runner does, once, even across retries); throw a
 * `ProviderError` for failures you can classify; return after finishing the builder. Returning without
 * finishing means the stream ended unexpectedly. Open builder blocks only when content arrives: a reply
 * holding any block (even an empty one) is never retried (SPEC A8 "only before the first content event").
 * Fetch and body-read failures are classified `network`/`timeout` by `ctx.streamSse`; any other non-
 * `ProviderError` thrown by `run` is reported as `malformed_response` (a shape the decoder could not handle).
 */
import { abortReasonText, errorText } from "../../core/abort.js";
import { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import { EventStream } from "../../core/event-stream.js";
import type { AssistantMessageEvent, AssistantMessageEventStream } from "../../core/events.js";
import type { AssistantMessage, ErrorKind } from "../../core/messages.js";
import type { Model, StreamOptions } from "../../core/model.js";
import { apiKeyEnvHint, resolveApiKey } from "./env.js";
import {
	type BodyClassifier,
	classifyHttpError,
	classifyNonStreamBody,
	classifyThrown,
	isNotAnEventStream,
	ProviderError,
} from "./errors.js";
import { ProviderMessageBuilder } from "./message-builder.js";
import { redactSecrets } from "./redact.js";
import { type RetryPolicy, retryDelayMs } from "./retry.js";
import { type ReadBodyTextOptions, readBodyText, readSseEvents, type SseEvent } from "./sse.js";

/** Abort reason that releases an attempt's request once it is over (nothing is waiting on it). */
const ATTEMPT_FINISHED = "attempt finished";

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
/** @deprecated The first response bytes are the headers: use {@link DEFAULT_HEADERS_TIMEOUT_MS}. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = DEFAULT_HEADERS_TIMEOUT_MS;

/** Stream options every built-in provider understands, beyond the core `StreamOptions`. */
export interface ProviderStreamOptions extends StreamOptions, RetryPolicy {
	/**
	 * ms from sending the request until the response headers (0 disables); retried like any transient failure.
	 * Default {@link DEFAULT_HEADERS_TIMEOUT_MS} (30 s); raise it for a local server that loads the model or
	 * processes the prompt before answering.
	 */
	headersTimeoutMs?: number;
	/** @deprecated Alias of {@link headersTimeoutMs}, which wins when both are set. */
	firstByteTimeoutMs?: number;
	/**
	 * ms of silence allowed once the headers arrived, before the first chunk and between chunks (0 disables);
	 * not retried. Default {@link DEFAULT_IDLE_TIMEOUT_MS} (120 s).
	 */
	idleTimeoutMs?: number;
	/**
	 * Largest single SSE event or line in bytes; a bigger one ends the call as `malformed_response` as soon as
	 * it passes the cap, instead of being buffered whole (0 disables). Default {@link DEFAULT_MAX_EVENT_BYTES}.
	 */
	maxEventBytes?: number;
	/** Bytes read of an HTTP error body (the rest is not read). Default {@link DEFAULT_MAX_ERROR_BODY_BYTES}. */
	maxErrorBodyBytes?: number;
	/** A `fetch` to use instead of the platform one (proxies, tracing). */
	fetch?: typeof fetch;
}

/** One HTTP request that answers with server-sent events. */
export interface SseRequest {
	url: string;
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
	readonly model: Model;
	readonly options: ProviderStreamOptions;
	/** The resolved key (`options.apiKey` or the environment); `undefined` only when the model needs none. */
	readonly apiKey: string | undefined;
	/** 1-based attempt number. */
	readonly attempt: number;
	/** Aborted when this attempt is cancelled (caller abort, stall timeout). */
	readonly signal: AbortSignal;
	/** Send `request` and yield its SSE events; HTTP errors are thrown as classified `ProviderError`s. */
	streamSse(request: SseRequest): AsyncGenerator<SseEvent, void, undefined>;
}

/** How `runProviderStream` treats the key. */
export interface ProviderRunSpec {
	/** Fail with `auth` when no key is found. Default: true unless `model.compat.requiresApiKey === false`. */
	requireApiKey?: boolean;
}

/** The function a provider writes: one attempt of one model call. */
export type ProviderRun = (builder: AssistantMessageBuilder, ctx: ProviderCallContext) => Promise<void>;

/**
 * Run one provider call as an `AssistantMessageEventStream`, returned synchronously. Never throws, never
 * rejects (SPEC E3): every failure ends the stream with an `error` event. One abort listener per stream; on
 * abort the request is cancelled at once and the message is committed as `aborted` (SPEC A1, A2, A5).
 */
export function runProviderStream(
	model: Model,
	options: ProviderStreamOptions | undefined,
	run: ProviderRun,
	spec: ProviderRunSpec = {},
): AssistantMessageEventStream {
	const opts: ProviderStreamOptions = options ?? {};
	const stream: AssistantMessageEventStream = new EventStream<AssistantMessageEvent, AssistantMessage>();
	if (!model || typeof model !== "object") {
		// SPEC E3 even for a caller bug: an error message, not a throw or a rejected result.
		const builder = new AssistantMessageBuilder(
			{ api: "unknown", provider: "unknown", model: "unknown", timestamp: Date.now() },
			stream,
		);
		builder.fail("error", "stream called without a model", "invalid_request");
		return stream;
	}
	const builder = new ProviderMessageBuilder(
		{ api: model.api, provider: model.provider, model: model.id, timestamp: Date.now() },
		stream,
	);
	builder.start();
	const runner = new StreamRunner(model, opts, run, spec, builder, stream);
	runner
		.drive()
		.catch((error: unknown) => runner.failOnce("error", `internal error: ${errorText(error)}`, "internal"));
	return stream;
}

class StreamRunner {
	private current: AbortController | undefined;
	private wakeSleep: (() => void) | undefined;
	private readonly onAbort = (): void => this.abortNow();

	constructor(
		private readonly model: Model,
		private readonly options: ProviderStreamOptions,
		private readonly run: ProviderRun,
		private readonly spec: ProviderRunSpec,
		private readonly builder: ProviderMessageBuilder,
		private readonly stream: AssistantMessageEventStream,
	) {}

	async drive(): Promise<void> {
		const signal = this.options.signal;
		if (signal?.aborted) return this.abortNow();
		signal?.addEventListener("abort", this.onAbort, { once: true });
		try {
			await this.attempts();
		} finally {
			signal?.removeEventListener("abort", this.onAbort);
		}
	}

	/** End the stream as failed unless it already ended (a racing abort or decoder may have finished it). */
	failOnce(reason: "error" | "aborted", message: string, kind: ErrorKind): void {
		if (this.stream.done) return;
		try {
			this.builder.fail(reason, message, kind);
		} catch (error) {
			this.stream.fail(error);
		}
	}

	private abortNow(): void {
		const reason = abortReasonText(this.options.signal?.reason);
		this.current?.abort(this.options.signal?.reason);
		this.wakeSleep?.();
		this.failOnce("aborted", reason, "aborted");
	}

	private async attempts(): Promise<void> {
		const apiKey = resolveApiKey(this.model, this.options.apiKey);
		this.builder.secrets = [apiKey];
		const needsKey = this.spec.requireApiKey ?? this.model.compat?.requiresApiKey !== false;
		if (needsKey && !apiKey) {
			const hint = apiKeyEnvHint(this.model);
			return this.failOnce("error", `No API key for provider "${this.model.provider}": set ${hint}.`, "auth");
		}
		for (let attempt = 1; !this.stream.done; attempt++) {
			const controller = new AbortController();
			this.current = controller;
			const ctx = new CallContext(this.model, this.options, apiKey, attempt, controller, () =>
				this.builder.markAccepted(),
			);
			try {
				await this.run(this.builder, ctx);
				if (!this.stream.done)
					throw new ProviderError("network", "stream ended unexpectedly", { retryable: false });
				return;
			} catch (thrown) {
				if (this.stream.done) return;
				const error = asProviderError(thrown);
				const state = {
					attempt,
					firstByteSeen: ctx.firstByteSeen,
					contentStarted: this.builder.message.content.length > 0,
				};
				const delayMs = retryDelayMs(error, state, this.options);
				if (delayMs === undefined) return this.failOnce("error", error.message, error.kind);
				this.reportRetry(attempt, delayMs, error);
				await this.sleep(delayMs);
			} finally {
				ctx.dispose();
				// A shared reason: `abort()` with none builds a DOMException (with a stack) on every call.
				controller.abort(ATTEMPT_FINISHED);
			}
		}
	}

	private reportRetry(attempt: number, delayMs: number, error: ProviderError): void {
		try {
			const errorMessage = redactSecrets(error.message, this.builder.secrets);
			this.options.onRetry?.({ attempt, delayMs, errorKind: error.kind, errorMessage });
		} catch {
			// A host callback must not turn a retry into a failure.
		}
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(done, ms);
			const self = this;
			function done(): void {
				clearTimeout(timer);
				self.wakeSleep = undefined;
				resolve();
			}
			this.wakeSleep = done;
		});
	}
}

class CallContext implements ProviderCallContext {
	/** The response headers arrived: the server accepted the request (a later stall or drop is not retried). */
	firstByteSeen = false;
	private headersTimer: ReturnType<typeof setTimeout> | undefined;

	constructor(
		readonly model: Model,
		readonly options: ProviderStreamOptions,
		readonly apiKey: string | undefined,
		readonly attempt: number,
		private readonly controller: AbortController,
		private readonly onAccepted: () => void,
	) {}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	dispose(): void {
		clearTimeout(this.headersTimer);
	}

	streamSse(request: SseRequest): AsyncGenerator<SseEvent, void, undefined> {
		return new LazySseStream(
			() => this.openSse(request),
			(error) => this.timeoutReason() ?? classifyThrown(error),
		);
	}

	/** Send the request; on success, the body's SSE events (HTTP errors thrown as classified errors). */
	private async openSse(request: SseRequest): Promise<AsyncGenerator<SseEvent, void, undefined>> {
		const url = checkedUrl(request.url);
		const limit =
			this.options.headersTimeoutMs ?? this.options.firstByteTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
		if (limit > 0 && Number.isFinite(limit)) {
			this.headersTimer = setTimeout(() => {
				this.controller.abort(new ProviderError("timeout", `no response headers within ${limit} ms`));
			}, limit);
		}
		const doFetch = this.options.fetch ?? globalThis.fetch;
		const response = await this.fetchOrThrow(doFetch, url, request);
		clearTimeout(this.headersTimer);
		if (!response.ok) {
			const text = await readBodyText(response.body, this.bodyReadOptions()).catch(() => "");
			throw classifyHttpError(
				response.status,
				response.statusText,
				response.headers,
				text,
				request.classifyBody,
			);
		}
		this.firstByteSeen = true;
		this.onAccepted();
		const contentType = response.headers.get("content-type");
		if (isNotAnEventStream(contentType)) {
			const text = await readBodyText(response.body, this.bodyReadOptions()).catch(() => "");
			throw classifyNonStreamBody(response.status, contentType ?? "", text, request.classifyBody);
		}
		if (!response.body) throw new ProviderError("malformed_response", "response has no body");
		return readSseEvents(response.body, {
			signal: this.controller.signal,
			idleTimeoutMs: this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
			onStall: () => this.controller.abort(new ProviderError("timeout", "stream stalled")),
			maxEventBytes: this.options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
			...(request.onInvalidLine ? { onInvalidLine: request.onInvalidLine } : {}),
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
		const { signal } = this.controller;
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
			return await doFetch(url, {
				method: request.method ?? "POST",
				headers,
				...(request.body === undefined ? {} : { body: request.body }),
				signal: this.controller.signal,
			});
		} catch (error) {
			// A headers timeout aborts with a ProviderError reason; report that, not a bare AbortError.
			throw this.timeoutReason() ?? classifyThrown(error);
		}
	}
}

/**
 * What `run` threw, as a classified error. Network failures were already classified where fetch and the body
 * read happen; anything else unclassified is a decoder meeting a shape it cannot handle.
 */
function asProviderError(thrown: unknown): ProviderError {
	if (thrown instanceof ProviderError) return thrown;
	return new ProviderError("malformed_response", `unexpected response: ${errorText(thrown)}`, {
		retryable: false,
		cause: thrown,
	});
}

/**
 * The events of one request, opened on the first `next()`: the fetch happens lazily, then each call is
 * forwarded to the body's event iterator (one hop per event). Every failure — HTTP classification aside —
 * is mapped once by `mapError` (timeouts, network errors).
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
		if (this.inner) return this.inner.next().catch(this.rethrow);
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
		throw error instanceof ProviderError ? error : this.mapError(error);
	};
}

function checkedUrl(url: string): string {
	try {
		new URL(url);
		return url;
	} catch {
		throw new ProviderError("network", `invalid base URL: ${url}`, { retryable: false });
	}
}

/**
 * Join a base URL and a path with exactly one slash between them. A query on the base (Azure's
 * `?api-version=`, a `?key=` proxy) stays at the end, after the path and after any query of the path's own.
 */
export function joinUrl(base: string, path: string): string {
	const [baseBeforeQuery, baseQuery] = splitQuery(base);
	const [pathBeforeQuery, pathQuery] = splitQuery(path);
	const joined = `${baseBeforeQuery.replace(/\/+$/, "")}/${pathBeforeQuery.replace(/^\/+/, "")}`;
	const query = [pathQuery, baseQuery].filter((part) => part !== "").join("&");
	return query === "" ? joined : `${joined}?${query}`;
}

function splitQuery(url: string): [string, string] {
	const at = url.indexOf("?");
	return at < 0 ? [url, ""] : [url.slice(0, at), url.slice(at + 1)];
}

/** Parse one SSE `data` payload as JSON; a malformed chunk fails the call as `malformed_response`. */
export function parseEventJson(data: string): unknown {
	try {
		return JSON.parse(data);
	} catch (error) {
		const shown = data.length > 200 ? `${data.slice(0, 200)}…` : data;
		throw new ProviderError("malformed_response", `malformed stream chunk (${errorText(error)}): ${shown}`);
	}
}
