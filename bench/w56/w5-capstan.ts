/** W5, capstan: `stream` from `capstan/providers` (dispatch on `model.api` to the real provider). */
import type { Model } from "../../src/core/model.js";
import { stream } from "../../src/providers/index.js";
import type { WireApi } from "./corpus.js";
import type { Decode } from "./memory-fetch.js";

const model = (id: string, api: string, provider: string, baseUrl: string): Model => ({
	id,
	api,
	provider,
	baseUrl,
	reasoning: false,
	input: ["text"],
	contextWindow: 200_000,
	maxTokens: 8192,
	cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
});

const MODELS: Record<WireApi, Model> = {
	anthropic: model("claude-sonnet-4-5", "anthropic-messages", "anthropic", "http://bench.invalid"),
	"openai-chat": model("gpt-4o-mini", "openai-completions", "openai", "http://bench.invalid/v1"),
	"openai-responses": model("gpt-4o-mini", "openai-responses", "openai", "http://bench.invalid/v1"),
	"google-gemini": model("gemini-2.5-flash", "google-generative-ai", "google", "http://bench.invalid/v1beta"),
};

/** Decode one request through capstan's provider for `api`. */
export function capstanDecoder(api: WireApi): Decode {
	const target = MODELS[api];
	return async (fetchFn) => {
		const events = stream(
			target,
			{ messages: [{ role: "user", content: "hi", timestamp: 0 }] },
			{ apiKey: "bench-key", fetch: fetchFn, maxRetries: 0 },
		);
		let chars = 0;
		for await (const event of events) if (event.type === "text_delta") chars += event.delta.length;
		const message = await events.result();
		if (message.stopReason === "error" || message.stopReason === "aborted")
			throw new Error(`capstan ${api}: ${message.errorMessage}`);
		return chars;
	};
}
