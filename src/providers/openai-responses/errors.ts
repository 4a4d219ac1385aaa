/**
 * OpenAI error-body knowledge for HTTP errors, `error` events and `response.failed`: the
 * `code`/`type` fields decide the kind, the generic status rules cover the rest.
 */
import {
	type BodyClassification,
	type BodyClassifier,
	classifyStreamError,
	type ProviderError,
} from "../base/errors.js";

const CODE_KINDS: Readonly<Record<string, BodyClassification>> = {
	context_length_exceeded: { kind: "context_overflow", retryable: false },
	string_above_max_length: { kind: "context_overflow", retryable: false },
	rate_limit_exceeded: { kind: "rate_limit" },
	// Out of credit: waiting does not help.
	insufficient_quota: { kind: "rate_limit", retryable: false },
	server_error: { kind: "server" },
	server_is_overloaded: { kind: "overloaded" },
	slow_down: { kind: "overloaded" },
	invalid_api_key: { kind: "auth", retryable: false },
	invalid_prompt: { kind: "invalid_request", retryable: false },
};

function field(value: unknown, key: string): unknown {
	return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/** Classify an OpenAI error body (`{error:{code,type,message}}` or a bare `{code,message}`). */
export const classifyOpenAIErrorBody: BodyClassifier = (body) => {
	const error = field(body, "error") ?? body;
	for (const key of ["code", "type"]) {
		const value = field(error, key);
		if (typeof value === "string" && Object.hasOwn(CODE_KINDS, value)) return CODE_KINDS[value];
	}
	return undefined;
};

/** A `ProviderError` for an error that arrived inside the stream (`error` event, `response.failed`). */
export function streamError(error: unknown): ProviderError {
	return classifyStreamError(error, JSON.stringify(error ?? null), classifyOpenAIErrorBody);
}
