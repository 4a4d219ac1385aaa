/**
 * Gemini error-body knowledge: `{error: {code, message, status}}` bodies, as HTTP errors, as an
 * error chunk inside the stream, or as a bare JSON body appended after the events.
 */
import {
	type BodyClassification,
	type BodyClassifier,
	classifyStreamError,
	type ProviderError,
} from "../base/errors.js";

const STATUS_KINDS: Readonly<Record<string, BodyClassification>> = {
	RESOURCE_EXHAUSTED: { kind: "rate_limit" },
	UNAVAILABLE: { kind: "overloaded" },
	INTERNAL: { kind: "server" },
	DEADLINE_EXCEEDED: { kind: "timeout" },
	UNAUTHENTICATED: { kind: "auth", retryable: false },
	PERMISSION_DENIED: { kind: "auth", retryable: false },
	// The server gave up on the request mid-way; it did not refuse it.
	CANCELLED: { kind: "server" },
};

const CONTEXT_OVERFLOW = /input token count.*exceeds|exceeds the maximum number of tokens|too many tokens/i;

/** Classify a Gemini error body; `undefined` falls back to the generic status rules. */
export const classifyGeminiErrorBody: BodyClassifier = (body, text) => {
	if (/API_KEY_INVALID|API key not valid/i.test(text)) return { kind: "auth", retryable: false };
	if (CONTEXT_OVERFLOW.test(text)) return { kind: "context_overflow", retryable: false };
	const error = (body as { error?: { status?: unknown } } | undefined)?.error;
	const status = typeof error?.status === "string" ? error.status : undefined;
	return status !== undefined && Object.hasOwn(STATUS_KINDS, status) ? STATUS_KINDS[status] : undefined;
};

/** A `ProviderError` for an error object that arrived inside the stream. */
export function geminiStreamError(error: unknown): ProviderError {
	const body = { error };
	return classifyStreamError(body, JSON.stringify(body), classifyGeminiErrorBody);
}
