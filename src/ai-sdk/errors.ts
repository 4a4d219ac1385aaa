/**
 * Classifying what an AI SDK model throws or streams as an `error` part. The AI SDK's `APICallError` carries
 * `statusCode`, `responseBody` and `isRetryable`; it is read by shape (not `instanceof`), so this entry needs
 * no runtime import of `@ai-sdk/provider` and works across its copies and versions.
 */
import { errorText } from "../core/abort.js";
import {
	classifyStreamError,
	classifyThrown,
	kindForStatus,
	ProviderError,
} from "../providers/base/errors.js";

interface ApiCallErrorShape {
	message: string;
	statusCode?: number;
	responseBody?: string;
	isRetryable?: boolean;
}

function apiCallError(error: unknown): ApiCallErrorShape | undefined {
	if (!(error instanceof Error)) return undefined;
	const { statusCode, isRetryable } = error as { statusCode?: unknown; isRetryable?: unknown };
	if (typeof statusCode !== "number" && typeof isRetryable !== "boolean") return undefined;
	return error as ApiCallErrorShape;
}

/**
 * A classified error for anything an AI SDK model reported: an `APICallError` by its status (and its own
 * retry verdict); a network failure thrown by `fetch` as `network`; any other value as an in-stream error.
 */
export function classifyAiSdkError(error: unknown): ProviderError {
	if (error instanceof ProviderError) return error;
	const api = apiCallError(error);
	if (api && answered(api.statusCode, error as Error)) {
		// The request failed on the way (no status, a network cause) or after a 2xx answer, while its body was
		// read: a dropped connection, not a request the server rejected.
		return isNetworkFailure((error as { cause?: unknown }).cause)
			? classifyThrown(error)
			: new ProviderError("malformed_response", errorText(error), { cause: error });
	}
	if (api) {
		const status = api.statusCode;
		const kind = status === undefined ? "server" : kindForStatus(status, api.responseBody ?? api.message);
		const head = status === undefined ? "" : `HTTP ${status}: `;
		return new ProviderError(kind, `${head}${api.message}`, {
			...(status === undefined ? {} : { status }),
			...(api.isRetryable === undefined ? {} : { retryable: api.isRetryable }),
			cause: error,
		});
	}
	if (error instanceof TypeError) return classifyThrown(error);
	if (error instanceof Error) return new ProviderError("server", errorText(error), { cause: error });
	const text = typeof error === "string" ? error : safeJson(error);
	return classifyStreamError(tryParse(text), text);
}

/**
 * An `APICallError` the server's status does not explain: one after a 2xx answer (its body failed), or one with
 * no status whose cause is a failed `fetch` (the AI SDK's "Cannot connect to API").
 */
function answered(status: number | undefined, error: Error): boolean {
	if (status === undefined) return isNetworkFailure((error as { cause?: unknown }).cause);
	return status >= 200 && status < 300;
}

/** What `fetch` throws when the connection fails: a `TypeError`, or an error with a system code. */
function isNetworkFailure(cause: unknown): boolean {
	return cause instanceof TypeError || (cause instanceof Error && "code" in cause);
}

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

function tryParse(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
