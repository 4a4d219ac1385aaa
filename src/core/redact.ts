/**
 * Secret redaction for text leaving the provider layer (error messages, retry reports) and the loop (what a
 * host's stream function throws). Servers echo what they were sent — a 401 body quoting the key, a proxy
 * error quoting the URL with `?key=` — and that text flows into messages, events, telemetry and traces that
 * hosts log and store. The runner masks the key in use, the request's other credentials, and anything
 * key-shaped, before any of it leaves.
 */

/** What replaces a secret. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not masked literally (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 6;

/**
 * Vendor key shapes: OpenAI/Anthropic/OpenRouter/Groq-style `sk-…`/`gsk_…`, Google `AIza…`, xAI `xai-…`,
 * Hugging Face `hf_…`, GitHub `ghp_…`/`gho_…`/`ghs_…`/`github_pat_…` (a tool's or proxy's credential echoed).
 */
const KEY_SHAPES =
	/\b(?:sk-[A-Za-z0-9_-]{12,}|gsk_[A-Za-z0-9]{12,}|xai-[A-Za-z0-9]{12,}|AIza[0-9A-Za-z_-]{20,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g;

/**
 * Parameters that carry credentials, in a query (`?key=`, `&api_key=`, SAS `sig=`, …) or on their own as
 * `name=value` in echoed text (`api_key=…`, `ANTHROPIC_API_KEY=…`).
 */
const SECRET_QUERY =
	/((?:^|[?&\s"'{,;(])(?:[A-Za-z0-9]+_)*(?:key|api[_-]?key|apikey|access[_-]?token|token|auth|sig|signature|secret|password|client[_-]?secret)=)[^&#\s"'<>]+/gim;

/**
 * Credential headers as they appear in echoed text: `x-api-key: …`, `"authorization":"Bearer …"`,
 * `Authorization: token …` (after one of the usual auth schemes). The credential is 8 characters or more, so
 * the prose of an auth error (`Missing Authorization: please provide a valid token`) stays readable.
 */
const SECRET_HEADER =
	/((?:authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key)["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest|ApiKey|Key|Negotiate|NTLM|SSWS|SharedKey|SharedKeyLite|SharedAccessSignature|OAuth|Splunk)\s+)?)[^\s"',;})\]<>]{8,}/gi;

/**
 * The password of a URL's userinfo (`https://user:password@proxy/v1`): fetch refuses such a URL and quotes
 * it whole in its error.
 */
const URL_PASSWORD = /(\/\/[^\s/?#@:]*:)[^\s/?#@]+(?=@)/g;

/** A bearer token anywhere in the text (8 characters or more: `Bearer auth` in an error's prose is no token). */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/g;

/**
 * `text` with every occurrence of `secrets` (the key in use; blanks and very short values ignored) and
 * every key-shaped token, credential query parameter, credential header value and URL password replaced by
 * {@link REDACTED}.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
	let out = text;
	const literal = secrets
		.map((secret) => secret?.trim() ?? "")
		.filter((secret) => secret.length >= MIN_SECRET_LENGTH)
		// Longest first: a secret that contains another goes whole, leaving no piece of itself behind.
		.sort((a, b) => b.length - a.length);
	for (const secret of literal) out = out.split(secret).join(REDACTED);
	return out
		.replace(SECRET_QUERY, `$1${REDACTED}`)
		.replace(SECRET_HEADER, `$1${REDACTED}`)
		.replace(BEARER, `$1${REDACTED}`)
		.replace(URL_PASSWORD, `$1${REDACTED}`)
		.replace(KEY_SHAPES, REDACTED);
}

/** Header names whose values are credentials: `authorization`, `x-api-key`, `cf-aig-authorization`, `x-…-token`. */
const CREDENTIAL_HEADER = /auth|key|token|secret|passw|signature|credential|cookie/i;

/** Header names that match {@link CREDENTIAL_HEADER} but name no credential: an idempotency key is a request id. */
const NOT_CREDENTIAL_HEADER = /idempotency/i;

/** Query parameter names whose values are credentials: `key`, `api-key`, `sig`, `code` (Azure Functions), … */
const CREDENTIAL_PARAM = /key|token|secret|sig|auth|passw|code|credential/i;

/**
 * The credentials of a request besides its key, to mask literally wherever a server quotes them back: the
 * values of credential headers (`headers`, e.g. a model's and a call's own; with an auth scheme, the token
 * after it too), and of `baseUrl` the password of its userinfo and the values of credential query parameters
 * under any name (`?x-functions-code=`). Headers that are no credential (`x-title`, `anthropic-beta`) are left
 * out, so their values stay readable in error texts. `baseUrl` need not parse as a URL.
 */
export function requestCredentials(
	baseUrl: string | undefined,
	headers: readonly (Record<string, string> | undefined)[],
): string[] {
	const found: string[] = [];
	for (const set of headers)
		for (const [name, value] of Object.entries(set ?? {})) {
			if (typeof value !== "string" || !CREDENTIAL_HEADER.test(name) || NOT_CREDENTIAL_HEADER.test(name))
				continue;
			found.push(value);
			const schemed = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(value.trim());
			if (schemed?.[1]) found.push(schemed[1]);
		}
	if (typeof baseUrl === "string") found.push(...urlCredentials(baseUrl));
	return found;
}

function urlCredentials(url: string): string[] {
	const found: string[] = [];
	const password = /\/\/[^\s/?#@:]*:([^\s/?#@]+)@/.exec(url)?.[1];
	if (password) found.push(password, decoded(password));
	const query = url.split("#")[0]?.split("?").slice(1).join("?") ?? "";
	for (const pair of query.split("&")) {
		const at = pair.indexOf("=");
		if (at <= 0 || !CREDENTIAL_PARAM.test(decoded(pair.slice(0, at)))) continue;
		const value = pair.slice(at + 1);
		found.push(value, decoded(value));
	}
	return found;
}

function decoded(text: string): string {
	try {
		return decodeURIComponent(text.replace(/\+/g, " "));
	} catch {
		return text;
	}
}
