/**
 * Redirects that keep the credentials at home. A provider request carries its key in a header — `x-api-key`
 * (Anthropic), `x-goog-api-key` (Gemini), `api-key` (Azure), or any header from `model.headers` and
 * `options.headers` — and fetch's default `redirect: "follow"` removes only `authorization` when a server
 * redirects to another origin: every other header would go there too. So requests are sent with
 * `redirect: "manual"` and redirects are followed here, and only within the request's own origin.
 */
import { ProviderError } from "./errors.js";

/** Most redirects followed for one request; fetch's own limit (20) is far more than any API needs. */
export const MAX_REDIRECTS = 5;

/** The statuses fetch treats as redirects (with a `location`). */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Redirects that keep method and body; fetch resends a POST after 301/302/303 as a GET without its body. */
const KEEPS_METHOD: ReadonlySet<number> = new Set([307, 308]);

/** How a refused redirect tells the user to fix the address. */
export interface SameOriginFetchOptions {
	/** The fix named at the end of the error; default "set model.baseUrl to the address it redirects to". */
	fixHint?: string;
}

const DEFAULT_FIX_HINT = "set model.baseUrl to the address it redirects to";

/**
 * `doFetch(url, init)` with `redirect: "manual"`, following redirects itself, at most {@link MAX_REDIRECTS}
 * and only within the origin of `url` (scheme, host and port: `http` → `https` on the same host is another
 * origin, and is refused too). 307 and 308 repeat the method and body. 301, 302 and 303 are followed for a GET
 * or HEAD (as fetch does) and refused for any other method, because fetch would resend a POST as a GET
 * without its body, which no model API answers usefully. A redirect to another origin, one past the limit, or
 * one the runtime hides (a `type: "opaqueredirect"` response, as browsers and edge runtimes give) throws an
 * `invalid_request` `ProviderError` that is not retried. Its message shows only the target's origin and path
 * (never the query, the URL's credentials or any header) and ends with `options.fixHint`. A response that is
 * not a redirect (or a 3xx without `location`) is returned as it is.
 */
export async function fetchSameOrigin(
	doFetch: typeof fetch,
	url: string,
	init: RequestInit,
	options: SameOriginFetchOptions = {},
): Promise<Response> {
	const fixHint = options.fixHint ?? DEFAULT_FIX_HINT;
	const { origin } = new URL(url);
	const method = (init.method ?? "GET").toUpperCase();
	let current = url;
	for (let followed = 0; ; followed++) {
		const response = await doFetch(current, { ...init, redirect: "manual" });
		if (response.type === "opaqueredirect")
			throw refused(
				`the server at ${origin} answered with a redirect this runtime does not let capstan inspect, so it was not followed: ${fixHint}`,
			);
		const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get("location") : null;
		if (location === null) return response;
		// The redirect's own body is never read; release its connection.
		response.body?.cancel().catch(() => {});
		const target = redirectTarget(location, current, response.status, fixHint);
		const head = `HTTP ${response.status} redirect to ${shown(target)}`;
		if (target.origin !== origin)
			throw refused(
				`${head}, another origin than ${origin}: not followed, so this request's key and headers are not sent there; ${fixHint}`,
				response.status,
			);
		if (followed >= MAX_REDIRECTS)
			throw refused(
				`${head}: more than ${MAX_REDIRECTS} redirects, not followed; ${fixHint}`,
				response.status,
			);
		if (!KEEPS_METHOD.has(response.status) && method !== "GET" && method !== "HEAD")
			throw refused(
				`${head}: not followed, because it would turn the ${method} into a GET without its body; ${fixHint}`,
				response.status,
			);
		current = target.href;
	}
}

/** The absolute address a `location` names (relative to the URL that answered). */
function redirectTarget(location: string, from: string, status: number, fixHint: string): URL {
	try {
		return new URL(location, from);
	} catch {
		throw refused(`HTTP ${status} redirect to an address that is not a URL: ${fixHint}`, status);
	}
}

/** Origin and path only: a query or the userinfo may carry a credential. */
function shown(url: URL): string {
	return `${url.origin}${url.pathname}`;
}

function refused(message: string, status?: number): ProviderError {
	return new ProviderError("invalid_request", message, {
		retryable: false,
		...(status === undefined ? {} : { status }),
	});
}
