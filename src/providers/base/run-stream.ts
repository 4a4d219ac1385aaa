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
import { markImmutableSnapshots } from "../../core/snapshot-brand.js";
import { missingApiKeyMessage, withConnectionAdvice, withHttpAdvice } from "./advice.js";
import { resolveApiKey, withoutSecret } from "./env.js";
import { type BodyClassifier, classifyHttpError, classifyThrown, ProviderError } from "./errors.js";
import { type RetryPolicy, retryDelayMs } from "./retry.js";
import { readSseEvents, type SseEvent } from "./sse.js";

/** Abort reason that releases an attempt's request once it is over (nothing is waiting on it). */
const ATTEMPT_FINISHED = "attempt finished";

/** Default time allowed until the first response byte. Generous: hidden reasoning can precede any output. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 120_000;
/** Default longest silence between two body chunks once the response started. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** Stream options every built-in provider understands, beyond the core `StreamOptions`. */
export interface ProviderStreamOptions extends StreamOptions, RetryPolicy {
	/** ms until the first response byte (0 disables). Default {@link DEFAULT_FIRST_BYTE_TIMEOUT_MS}. */
	firstByteTimeoutMs?: number;
	/** ms of silence allowed between chunks (0 disables). Default {@link DEFAULT_IDLE_TIMEOUT_MS}. */
	idleTimeoutMs?: number;
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
	// Only the builder pushes into this stream, so its snapshots are immutable (SPEC L5: the loop need not copy).
	markImmutableSnapshots(stream);
	if (!model || typeof model !== "object") {
		// SPEC E3 even for a caller bug: an error message, not a throw or a rejected result.
		const builder = new AssistantMessageBuilder(
			{ api: "unknown", provider: "unknown", model: "unknown", timestamp: Date.now() },
			stream,
		);
		builder.fail("error", "stream called without a model", "invalid_request");
		return stream;
	}
	const builder = new AssistantMessageBuilder(
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
		private readonly builder: AssistantMessageBuilder,
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
		const needsKey = this.spec.requireApiKey ?? this.model.compat?.requiresApiKey !== false;
		if (needsKey && !apiKey) return this.failOnce("error", missingApiKeyMessage(this.model), "auth");
		for (let attempt = 1; !this.stream.done; attempt++) {
			const controller = new AbortController();
			this.current = controller;
			const ctx = new CallContext(this.model, this.options, apiKey, attempt, controller);
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
				// SPEC E3: a server may echo the key back in its error text; it never reaches the host.
				const message = withoutSecret(error.message, apiKey);
				if (delayMs === undefined) return this.failOnce("error", message, error.kind);
				this.reportRetry(attempt, delayMs, error.kind, message);
				await this.sleep(delayMs);
			} finally {
				ctx.dispose();
				// A shared reason: `abort()` with none builds a DOMException (with a stack) on every call.
				controller.abort(ATTEMPT_FINISHED);
			}
		}
	}

	private reportRetry(attempt: number, delayMs: number, errorKind: ErrorKind, errorMessage: string): void {
		try {
			this.options.onRetry?.({ attempt, delayMs, errorKind, errorMessage });
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
	firstByteSeen = false;
	private firstByteTimer: ReturnType<typeof setTimeout> | undefined;

	constructor(
		readonly model: Model,
		readonly options: ProviderStreamOptions,
		readonly apiKey: string | undefined,
		readonly attempt: number,
		private readonly controller: AbortController,
	) {}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	dispose(): void {
		clearTimeout(this.firstByteTimer);
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
		const limit = this.options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS;
		if (limit > 0 && Number.isFinite(limit)) {
			this.firstByteTimer = setTimeout(() => {
				this.controller.abort(new ProviderError("timeout", `no response within ${limit} ms`));
			}, limit);
		}
		const doFetch = this.options.fetch ?? globalThis.fetch;
		const response = await this.fetchOrThrow(doFetch, url, request);
		if (!response.ok) {
			const text = await response.text().catch(() => "");
			this.markFirstByte();
			const error = classifyHttpError(
				response.status,
				response.statusText,
				response.headers,
				text,
				request.classifyBody,
			);
			throw withHttpAdvice(error, request.method ?? "POST", url);
		}
		if (!response.body) throw new ProviderError("malformed_response", "response has no body");
		return readSseEvents(response.body, {
			signal: this.controller.signal,
			idleTimeoutMs: this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
			onStall: () => this.controller.abort(new ProviderError("timeout", "stream stalled")),
			onBytes: () => this.markFirstByte(),
			...(request.onInvalidLine ? { onInvalidLine: request.onInvalidLine } : {}),
		});
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
			// A first-byte timeout aborts with a ProviderError reason; report that, not a bare AbortError.
			throw withConnectionAdvice(this.timeoutReason() ?? classifyThrown(error), url);
		}
	}

	private markFirstByte(): void {
		if (this.firstByteSeen) return;
		this.firstByteSeen = true;
		clearTimeout(this.firstByteTimer);
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

/** Join a base URL and a path with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
	return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
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
