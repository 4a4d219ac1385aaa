/**
 * Classified provider failures. Every way a provider call can go wrong becomes a `ProviderError`
 * with an `ErrorKind`; `runProviderStream` turns it into an `error` message (rule E3) and decides from the
 * kind whether a retry is worth it (rule A8). Classification lives here, once, for every API; an API adds its
 * own body knowledge (Anthropic `overloaded_error`, OpenAI `context_length_exceeded`) via a `BodyClassifier`.
 */
import type { ErrorKind } from "../../core/messages.js";

/** A classified provider failure. Thrown inside provider code, never out of a stream function. */
export class ProviderError extends Error {
	/** Always `"ProviderError"`. */
	override readonly name = "ProviderError";
	/** The classified kind carried onto the message as `errorKind`. */
	readonly kind: ErrorKind;
	/** HTTP status when the failure came from a response. */
	readonly status: number | undefined;
	/** Server-requested delay before a retry (`retry-after`, `retry-after-ms`), in ms. */
	readonly retryAfterMs: number | undefined;
	/** Overrides the default transient-kind rule (e.g. a 429 `insufficient_quota` is not worth retrying). */
	readonly retryable: boolean | undefined;

	constructor(
		kind: ErrorKind,
		message: string,
		extra: { status?: number; retryAfterMs?: number; retryable?: boolean; cause?: unknown } = {},
	) {
		super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
		this.kind = kind;
		this.status = extra.status;
		this.retryAfterMs = extra.retryAfterMs;
		this.retryable = extra.retryable;
	}
}

/** Type guard for `ProviderError`. */
export function isProviderError(value: unknown): value is ProviderError {
	return value instanceof ProviderError;
}

/** What an API-specific body classifier may decide; `undefined` falls back to the generic status rules. */
export interface BodyClassification {
	/** The failure's kind. */
	kind: ErrorKind;
	/** Overrides whether the kind is retried (rule A8); default: the kind decides. */
	retryable?: boolean;
}

/**
 * Per-API knowledge of error bodies: given the parsed JSON body (or `undefined` when it is not JSON), the raw
 * text and the status, return a classification or `undefined` to use the generic rules.
 */
export type BodyClassifier = (
	body: unknown,
	text: string,
	status: number | undefined,
) => BodyClassification | undefined;

/** Kinds that are worth retrying before any content arrived (rule A8). */
export const TRANSIENT_ERROR_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
	"rate_limit",
	"overloaded",
	"server",
	"network",
	"timeout",
]);

const CONTEXT_OVERFLOW_TEXT =
	/prompt is too long|context[ _-]?length|context window|maximum context|too many tokens|input is too long|exceeds the (?:maximum|context)|token limit/i;

/** Generic kind for an HTTP status; body text only refines 400/413 into `context_overflow`. */
export function kindForStatus(status: number, text = ""): ErrorKind {
	if (status === 401 || status === 403) return "auth";
	if (status === 429) return "rate_limit";
	if (status === 529) return "overloaded";
	if (status === 408 || status === 504) return "timeout";
	if ((status === 400 || status === 413 || status === 422) && CONTEXT_OVERFLOW_TEXT.test(text))
		return "context_overflow";
	if (status >= 500) return "server";
	return "invalid_request";
}

/** The human message inside a typical JSON error body (`{error:{message}}`, `{message}`, `{error:"..."}`). */
export function errorBodyMessage(body: unknown, text: string): string {
	const pick = (value: unknown): string | undefined => {
		if (typeof value === "string" && value.length > 0) return value;
		if (value && typeof value === "object") {
			const record = value as Record<string, unknown>;
			return pick(record.message) ?? pick(record.error) ?? pick(record.detail);
		}
		return undefined;
	};
	const picked = Array.isArray(body) ? pick(body[0]) : pick(body);
	const raw = picked ?? text.trim();
	return raw.length > 500 ? `${raw.slice(0, 500)}…` : raw;
}

/** Parse a body as JSON when possible. */
export function tryParseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/**
 * Milliseconds requested by `retry-after-ms`, or `retry-after` as seconds or an HTTP date (relative to `now`).
 * Returns `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
	const ms = headers.get("retry-after-ms");
	if (ms !== null && ms.trim() !== "") {
		const value = Number(ms);
		if (Number.isFinite(value) && value >= 0) return value;
	}
	const after = headers.get("retry-after");
	if (after === null || after.trim() === "") return undefined;
	const seconds = Number(after);
	if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
	const date = Date.parse(after);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Classify a non-2xx HTTP response from its status, headers and body text. */
export function classifyHttpError(
	status: number,
	statusText: string,
	headers: Headers,
	text: string,
	classifyBody?: BodyClassifier,
): ProviderError {
	const body = tryParseJson(text);
	const specific = classifyBody?.(body, text, status);
	const kind = specific?.kind ?? kindForStatus(status, text);
	// A gateway's error page (Cloudflare, nginx) says what happened in its text, not in its markup.
	const detail = body === undefined && /^\s*</.test(text) ? pageText(text) : errorBodyMessage(body, text);
	const head = `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
	return new ProviderError(kind, detail ? `${head}: ${detail}` : head, {
		status,
		retryAfterMs: parseRetryAfter(headers),
		...(specific?.retryable === undefined ? {} : { retryable: specific.retryable }),
	});
}

/** Error `type`/`status` names used across APIs (OpenAI, Anthropic, Groq, Google RPC statuses). */
const BODY_TYPE_KINDS: Readonly<Record<string, ErrorKind>> = {
	invalid_request_error: "invalid_request",
	not_found_error: "invalid_request",
	tool_use_failed: "invalid_request",
	INVALID_ARGUMENT: "invalid_request",
	FAILED_PRECONDITION: "invalid_request",
	NOT_FOUND: "invalid_request",
	authentication_error: "auth",
	permission_error: "auth",
	UNAUTHENTICATED: "auth",
	PERMISSION_DENIED: "auth",
	rate_limit_error: "rate_limit",
	rate_limit_exceeded: "rate_limit",
	RESOURCE_EXHAUSTED: "rate_limit",
	overloaded_error: "overloaded",
	timeout_error: "timeout",
	api_error: "server",
	server_error: "server",
};

/**
 * The kind an in-stream error body states itself: a known `type`/`status` name, else an HTTP-like status in
 * `status`, `status_code` or `code` (number or three-digit string), on the body or its `error` object.
 */
function kindFromBody(body: unknown, text: string): ErrorKind | undefined {
	const records = [body, field(body, "error")].filter(
		(value): value is Record<string, unknown> => value !== null && typeof value === "object",
	);
	for (const record of records)
		for (const key of ["type", "status", "code"]) {
			const name = record[key];
			if (typeof name === "string" && Object.hasOwn(BODY_TYPE_KINDS, name)) return BODY_TYPE_KINDS[name];
		}
	for (const record of records)
		for (const key of ["status", "status_code", "statusCode", "code"]) {
			const value = record[key];
			const status = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
			if (typeof status === "number" && status >= 400 && status < 600) return kindForStatus(status, text);
		}
	return undefined;
}

function field(value: unknown, key: string): unknown {
	return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * Classify an error event that arrived inside a stream (no HTTP status): the API's own classifier, then
 * context-overflow text, then the body's own type or status (a Groq `invalid_request_error`, a Gemini
 * `code: 400` is the caller's mistake, not worth a retry), and only then a generic `server` failure.
 */
export function classifyStreamError(
	body: unknown,
	text: string,
	classifyBody?: BodyClassifier,
): ProviderError {
	const specific = classifyBody?.(body, text, undefined);
	const message = errorBodyMessage(body, text) || "provider sent an error event";
	const kind =
		specific?.kind ??
		(CONTEXT_OVERFLOW_TEXT.test(text) ? "context_overflow" : (kindFromBody(body, text) ?? "server"));
	return new ProviderError(
		kind,
		message,
		specific?.retryable === undefined ? {} : { retryable: specific.retryable },
	);
}

/**
 * A bare JSON error body (`{"error": …}`) that a server wrote into its event stream without `data:` — after
 * the events, or instead of them — from the stream's non-SSE lines; `undefined` when they are not one.
 */
export function trailingErrorBody(
	lines: readonly string[],
	classifyBody?: BodyClassifier,
): ProviderError | undefined {
	if (lines.length === 0) return undefined;
	const text = lines.join("\n");
	const body = tryParseJson(text) as { error?: unknown } | undefined;
	if (body === null || typeof body !== "object" || body.error === undefined || body.error === null)
		return undefined;
	return classifyStreamError(body, text, classifyBody);
}

/** Non-SSE lines kept for {@link trailingErrorBody}: an error body is small; a stream of junk is not kept. */
export function strayLineCollector(maxBytes = 64 * 1024): { lines: string[]; add: (line: string) => void } {
	const lines: string[] = [];
	let bytes = 0;
	return {
		lines,
		add(line) {
			bytes += line.length;
			if (bytes <= maxBytes) lines.push(line);
		},
	};
}

/** Content types that are certainly not an event stream: a page or a document (a proxy, a JSON error). */
const NOT_AN_EVENT_STREAM = /^\s*(?:text\/html|text\/xml|application\/(?:[\w.-]+\+)?(?:json|xml))\b/i;

/** True when a 2xx response's `content-type` says it is not server-sent events (missing or odd types pass). */
export function isNotAnEventStream(contentType: string | null): boolean {
	return contentType !== null && NOT_AN_EVENT_STREAM.test(contentType);
}

/**
 * The final error for a 2xx answer that is not an event stream: the status, the content type and a short
 * snippet of the body (an HTML page's text, a JSON error's message). A JSON error that states its kind
 * (`authentication_error`, `code: 429`) keeps it; anything else is `malformed_response`. Never retried: the
 * same request would get the same page.
 */
export function classifyNonStreamBody(
	status: number,
	contentType: string,
	text: string,
	classifyBody?: BodyClassifier,
): ProviderError {
	const body = tryParseJson(text);
	const stated =
		body === undefined
			? undefined
			: (classifyBody?.(body, text, undefined)?.kind ?? kindFromBody(body, text));
	const snippet = body === undefined ? pageText(text) : errorBodyMessage(body, text).slice(0, 200);
	const type = contentType.split(";")[0]?.trim() || contentType;
	return new ProviderError(
		stated ?? "malformed_response",
		`HTTP ${status} with content type ${type}, not an event stream${snippet ? `: ${snippet}` : ""}`,
		{ status, retryable: false },
	);
}

/** The visible text at the start of an HTML (or any) body, tags and scripts dropped, at most 200 characters. */
function pageText(text: string): string {
	const visible = text
		.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ")
		.replace(/<[^>]*>/g, " ")
		.replace(/\s+/g, " ")
		.trim();
	return visible.length > 200 ? `${visible.slice(0, 200)}…` : visible;
}

/**
 * Classify whatever `fetch` or a body read threw: a `ProviderError` passes through; anything else is a
 * network failure (connection refused or reset, DNS, TLS), with the low-level cause code in the message.
 */
export function classifyThrown(error: unknown): ProviderError {
	if (error instanceof ProviderError) return error;
	const message = error instanceof Error ? error.message || error.name : String(error);
	const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
	const code =
		cause && typeof cause === "object" && "code" in cause
			? String((cause as { code: unknown }).code)
			: undefined;
	const causeMessage = cause instanceof Error ? cause.message : undefined;
	const parts = [message, causeMessage && !message.includes(causeMessage) ? causeMessage : undefined, code];
	const text = parts.filter((part): part is string => Boolean(part)).join(": ");
	return new ProviderError("network", `network error: ${text}`, { cause: error });
}
