/**
 * A Restate URL as `fetch` can use it: `fetch` refuses a URL that carries `user:password@`, and its error
 * quotes the URL, password included. The credentials become a Basic `authorization` header instead.
 */

/** A URL's base (no credentials, no trailing slash) and its credentials as a Basic authorization header. */
export interface SplitUrl {
	/** The URL without credentials or trailing slashes. */
	base: string;
	/** `Basic …` when the URL carried a user or a password. */
	authorization?: string;
}

/** Split `url` into a base `fetch` accepts and the Basic authorization its credentials stand for. */
export function splitCredentials(url: URL): SplitUrl {
	if (url.username === "" && url.password === "") return { base: url.href.replace(/\/+$/, "") };
	const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
	const bare = new URL(url.href);
	bare.username = "";
	bare.password = "";
	return {
		base: bare.href.replace(/\/+$/, ""),
		authorization: `Basic ${Buffer.from(credentials).toString("base64")}`,
	};
}

/** `headers` with `authorization` added, unless they set one themselves (in any letter case). */
export function withAuthorization(
	headers: Record<string, string>,
	authorization: string | undefined,
): Record<string, string> {
	if (authorization === undefined) return headers;
	if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) return headers;
	return { authorization, ...headers };
}
