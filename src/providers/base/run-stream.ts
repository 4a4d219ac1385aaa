/**
 * The never-throw provider stream (rule E3) with retries (rule A8), stall timeouts and abort (rule A2), written
 * once for every API. A provider supplies only `run(builder, ctx)`: build the request, read `ctx.streamSse`,
 * feed the builder, and finish with `builder.done(...)` (or `finishWithStop`). Anything it throws becomes an
 * `error` message with a classified `errorKind`; a transient failure before any content is retried.
 *
 * Contract for `run`: do not call `builder.start()` (the runner does, once, even across retries); throw a
 * `ProviderError` for failures you can classify; return after finishing the builder. Returning without
 * finishing means the stream ended unexpectedly. Open builder blocks only when content arrives: a reply
 * holding any block (even an empty one) is never retried (rule A8 "only before the first content event").
 * Fetch and body-read failures are classified `network`/`timeout` by `ctx.streamSse`; any other non-
 * `ProviderError` thrown by `run` is reported as `malformed_response` (a shape the decoder could not handle).
 */
import { abortReasonText, errorText, subscribeAbort } from "../../core/abort.js";
import { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import { EventStream } from "../../core/event-stream.js";
import type { AssistantMessageEvent, AssistantMessageEventStream } from "../../core/events.js";
import type { AssistantMessage, ErrorKind } from "../../core/messages.js";
import type { Model } from "../../core/model.js";
import { markImmutableSnapshots } from "../../core/snapshot-brand.js";
import { MAX_TIMER_DELAY_MS } from "../../core/timer.js";
import { missingApiKeyMessage } from "./advice.js";
import { CallContext, type ProviderCallContext, type ProviderStreamOptions } from "./attempt.js";
import { resolveApiKey } from "./env.js";
import { ProviderError } from "./errors.js";
import { ProviderMessageBuilder } from "./message-builder.js";
import { redactSecrets, requestCredentials } from "./redact.js";
import { retryDelayMs } from "./retry.js";

export {
	DEFAULT_FIRST_BYTE_TIMEOUT_MS,
	DEFAULT_HEADERS_TIMEOUT_MS,
	DEFAULT_IDLE_TIMEOUT_MS,
	DEFAULT_MAX_ERROR_BODY_BYTES,
	DEFAULT_MAX_EVENT_BYTES,
	type ProviderCallContext,
	type ProviderStreamOptions,
	type SseRequest,
} from "./attempt.js";

/** Abort reason that releases an attempt's request once it is over (nothing is waiting on it). */
const ATTEMPT_FINISHED = "attempt finished";

/** How `runProviderStream` treats the key. */
export interface ProviderRunSpec {
	/** Fail with `auth` when no key is found. Default: true unless `model.compat.requiresApiKey === false`. */
	requireApiKey?: boolean;
}

/** The function a provider writes: one attempt of one model call. */
export type ProviderRun = (builder: AssistantMessageBuilder, ctx: ProviderCallContext) => Promise<void>;

/**
 * Run one provider call as an `AssistantMessageEventStream`, returned synchronously. Never throws, never
 * rejects (rule E3): every failure ends the stream with an `error` event. One abort listener per stream; on
 * abort the request is cancelled at once and the message is committed as `aborted` (rule A1, A2, A5).
 */
export function runProviderStream(
	model: Model,
	options: ProviderStreamOptions | undefined,
	run: ProviderRun,
	spec: ProviderRunSpec = {},
): AssistantMessageEventStream {
	const opts: ProviderStreamOptions = options ?? {};
	const stream: AssistantMessageEventStream = new EventStream<AssistantMessageEvent, AssistantMessage>();
	// Only the builder pushes into this stream, so its snapshots are immutable (rule L5: the loop need not copy).
	markImmutableSnapshots(stream);
	if (!model || typeof model !== "object") {
		// Rule E3 even for a caller bug: an error message, not a throw or a rejected result.
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
		const unsubscribe = signal ? subscribeAbort(signal, this.onAbort) : undefined;
		try {
			await this.attempts();
		} finally {
			unsubscribe?.();
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
		// Rule E3: the key, and the credentials the host put in headers or the base URL, are masked in every
		// error text: servers and gateways quote back what they were sent.
		this.builder.secrets = [
			apiKey,
			...requestCredentials(this.model.baseUrl, [this.model.headers, this.options.headers]),
		];
		const needsKey = this.spec.requireApiKey ?? this.model.compat?.requiresApiKey !== false;
		if (needsKey && !apiKey) return this.failOnce("error", missingApiKeyMessage(this.model), "auth");
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
				// Rule E3: a server may echo the key back in its error text; it never reaches the host, in a retry
				// report or the reply (one masking for both: the key in use and anything key-shaped).
				const message = redactSecrets(error.message, this.builder.secrets);
				if (delayMs === undefined) return this.failOnce("error", message, error.kind);
				this.reportRetry(attempt, delayMs, error.kind, message);
				// The host may abort from inside `onRetry`: the reply is then over, and nothing may wait (no timer).
				if (this.stream.done) return;
				await this.sleep(delayMs);
			} finally {
				ctx.dispose();
				// A shared reason: `abort()` with none builds a DOMException (with a stack) on every call. A signal
				// nobody read needs no abort (and reading it only to abort it would build it).
				if (ctx.signalInUse) controller.abort(ATTEMPT_FINISHED);
			}
		}
	}

	private reportRetry(attempt: number, delayMs: number, errorKind: ErrorKind, errorMessage: string): void {
		try {
			const redacted = redactSecrets(errorMessage, this.builder.secrets);
			this.options.onRetry?.({ attempt, delayMs, errorKind, errorMessage: redacted });
		} catch {
			// A host callback must not turn a retry into a failure.
		}
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			// A server may ask for longer than a timer can wait (with `retryMaxDelayMs: Infinity`): wait the longest.
			const timer = setTimeout(done, Math.min(ms, MAX_TIMER_DELAY_MS));
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
