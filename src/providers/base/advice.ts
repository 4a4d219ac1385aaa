/**
 * Advice in provider errors (issue item 6): each text names a fix that exists and where it goes, so a user
 * reading `state.error` knows which option to change. Kept apart from classification (`errors.ts`): advice
 * never changes an error's kind or whether it is retried.
 */
import type { Model } from "../../core/model.js";
import { apiKeyEnvHint } from "./env.js";
import { ProviderError } from "./errors.js";

/**
 * The error text for a call that found no key. It names only fixes that exist, where they go: the
 * environment variables, the Agent's `streamOptions.apiKey` and `getApiKey` (or `apiKey` on a direct
 * `stream()` call), `compat.apiKeyEnv`, and for a server that needs no key `compat.requiresApiKey: false`
 * (or `openaiCompatible(...)` for a Chat Completions server). It never contains a key.
 */
export function missingApiKeyMessage(model: Model): string {
	const env = apiKeyEnvHint(model);
	const give =
		"new Agent({ streamOptions: { apiKey } }) or new Agent({ getApiKey: (provider) => key }) (or apiKey in the options of a direct stream() call)";
	const where = env
		? `set ${env}, or pass one with ${give}`
		: `pass one with ${give}, or name the environment variable that holds it with compat: { apiKeyEnv: "MY_API_KEY" } on the model`;
	const keyless =
		model.api === "openai-completions"
			? ' or build the model with openaiCompatible({ baseUrl, model }) from "capstan/openai"'
			: "";
	return `No API key for provider "${model.provider}" (model "${model.id}"): ${where}. If the server needs no key, set compat: { requiresApiKey: false } on the model${keyless}.`;
}

/**
 * A refused connection says nothing listens at the base URL's origin: typically a local server that is not
 * started, or a wrong port. Other errors pass through unchanged.
 */
export function withConnectionAdvice(error: ProviderError, url: string): ProviderError {
	if (!/ECONNREFUSED/.test(error.message)) return error;
	return withHint(
		error,
		`nothing is listening at ${new URL(url).origin}: is the server running, and is model.baseUrl right?`,
	);
}

/**
 * A 404 shows the URL that was tried: most often a base URL without its API prefix (`/v1`). Only origin and
 * path are shown (a query may carry a credential). Other errors pass through unchanged.
 */
export function withHttpAdvice(error: ProviderError, method: string, url: string): ProviderError {
	if (error.status !== 404) return error;
	const { origin, pathname } = new URL(url);
	return withHint(error, `from ${method} ${origin}${pathname}`);
}

/** The same classified error (kind, status, retry facts) with `hint` appended in parentheses. */
function withHint(error: ProviderError, hint: string): ProviderError {
	return new ProviderError(error.kind, `${error.message} (${hint})`, {
		...(error.status === undefined ? {} : { status: error.status }),
		...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
		...(error.retryable === undefined ? {} : { retryable: error.retryable }),
		cause: error.cause ?? error,
	});
}
