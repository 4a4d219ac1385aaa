/**
 * The four wire APIs side by side for the reliability tests: a recorded plain-text reply per API, a test
 * model pointed at a loopback server, and one call through the default registry (the loop's own path).
 */
import type { Context, Model } from "../../src/core/model.js";
import type { ProviderStreamOptions } from "../../src/providers/base/run-stream.js";
import { stream } from "../../src/providers/registry.js";
import { type Collected, collectStream } from "../providers/support/collect.js";
import { firstBodyMatching } from "../providers/support/fixtures.js";
import { type TestApi, testModel } from "../providers/support/models.js";
import { HELLO } from "../providers/support/transcript.js";

/** Every wire API the library ships. */
export const APIS: readonly TestApi[] = [
	"anthropic-messages",
	"openai-completions",
	"openai-responses",
	"google-generative-ai",
];

/** The fixture folder whose framing each API's hand-written events use (`frameEvents`). */
export const FOLDER: Readonly<Record<TestApi, string>> = {
	"anthropic-messages": "anthropic-messages",
	"openai-completions": "openai-chat",
	"openai-responses": "openai-responses",
	"google-generative-ai": "google-gemini",
};

const TEXT_FIXTURES: Readonly<Record<TestApi, string>> = {
	"anthropic-messages": "anthropic-text",
	"openai-completions": "openai-text",
	"openai-responses": "github-copilot-id-rotation",
	"google-generative-ai": "google-text",
};

/** A recorded plain-text reply of `api` (one HTTP response body, byte for byte). */
export function textBody(api: TestApi): Uint8Array {
	return firstBodyMatching([FOLDER[api]], TEXT_FIXTURES[api]);
}

/** Fast retries so retried paths take milliseconds. */
export const FAST: ProviderStreamOptions = { retryBaseDelayMs: 1, retryMaxDelayMs: 50 };

/** One call of `api` against `baseUrl` through the default registry, collected to its end. */
export function callApi(
	api: TestApi,
	baseUrl: string,
	options: ProviderStreamOptions = {},
	overrides: Partial<Model> = {},
	context: Context = HELLO,
): Promise<Collected> {
	const model = testModel(api, baseUrl, overrides);
	return collectStream(stream(model, context, { apiKey: "test-key", ...FAST, ...options }));
}
