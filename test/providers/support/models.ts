/**
 * Test models for the four wire APIs: one realistic model per API (ids, limits and prices as the provider
 * publishes them), pointed at a loopback replay server. Tests name the API and override only what they pin.
 */
import type { Model } from "../../../src/core/model.js";

/** The wire APIs the provider tests cover. */
export type TestApi =
	| "anthropic-messages"
	| "openai-completions"
	| "openai-responses"
	| "google-generative-ai";

type ModelDefaults = Pick<Model, "id" | "provider" | "contextWindow" | "maxTokens" | "cost" | "compat">;

const OPENAI_GPT_5: ModelDefaults = {
	id: "gpt-5",
	provider: "openai",
	contextWindow: 400_000,
	maxTokens: 128_000,
	cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
};

const DEFAULTS: Record<TestApi, ModelDefaults> = {
	"anthropic-messages": {
		id: "claude-sonnet-4-5",
		provider: "anthropic",
		contextWindow: 200_000,
		maxTokens: 64_000,
		cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
		compat: { thinkingMode: "budget" },
	},
	"openai-completions": OPENAI_GPT_5,
	"openai-responses": OPENAI_GPT_5,
	"google-generative-ai": {
		id: "gemini-2.5-flash",
		provider: "google",
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
	},
};

/**
 * A fresh test model of `api` pointed at `baseUrl` (every one reasons and reads images), `overrides` applied
 * last. Nothing is shared between calls, so a test may mutate its model.
 */
export function testModel(api: TestApi, baseUrl: string, overrides: Partial<Model> = {}): Model {
	const { id, provider, contextWindow, maxTokens, cost, compat } = DEFAULTS[api];
	return {
		id,
		api,
		provider,
		baseUrl,
		reasoning: true,
		input: ["text", "image"],
		contextWindow,
		maxTokens,
		cost: { ...cost },
		...(compat ? { compat: { ...compat } } : {}),
		...overrides,
	};
}
