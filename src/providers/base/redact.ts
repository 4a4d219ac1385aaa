/**
 * Secret redaction for text leaving the provider layer (error messages, retry reports). Servers echo what
 * they were sent — a 401 body quoting the key, a proxy error quoting the URL with `?key=` — and that text
 * flows into messages, events, telemetry and traces that hosts log and store. The runner masks the key in
 * use, and anything key-shaped, before any of it leaves.
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
 * `Authorization: token …` (any one-word scheme before the credential).
 */
const SECRET_HEADER =
	/((?:authorization|proxy-authorization|x-api-key|x-goog-api-key|api-key)["']?\s*[:=]\s*["']?)(?:[A-Za-z]+\s+)?[^\s"',;}]+/gi;

/**
 * The password of a URL's userinfo (`https://user:password@proxy/v1`): fetch refuses such a URL and quotes
 * it whole in its error.
 */
const URL_PASSWORD = /(\/\/[^\s/?#@:]*:)[^\s/?#@]+(?=@)/g;

/** A bearer token anywhere in the text. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/-]+=*/g;

/**
 * `text` with every occurrence of `secrets` (the key in use; blanks and very short values ignored) and
 * every key-shaped token, credential query parameter, credential header value and URL password replaced by
 * {@link REDACTED}.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
	let out = text;
	for (const secret of secrets) {
		const trimmed = secret?.trim();
		if (trimmed && trimmed.length >= MIN_SECRET_LENGTH) out = out.split(trimmed).join(REDACTED);
	}
	return out
		.replace(SECRET_QUERY, `$1${REDACTED}`)
		.replace(SECRET_HEADER, `$1${REDACTED}`)
		.replace(BEARER, `$1${REDACTED}`)
		.replace(URL_PASSWORD, `$1${REDACTED}`)
		.replace(KEY_SHAPES, REDACTED);
}
