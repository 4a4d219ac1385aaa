/** Running the Gemini provider in tests: its test model and one call collected to the end. */
import type { Context, Model } from "../../../src/core/model.js";
import { type GoogleOptions, streamGoogle } from "../../../src/providers/google/index.js";
import { type Collected, collectStream } from "../support/collect.js";
import { testModel } from "../support/models.js";

/** A Gemini model pointed at `baseUrl` (a loopback replay server). */
export function geminiModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return testModel("google-generative-ai", baseUrl, overrides);
}

/** Run one call to the end, collecting events (retries back off by 1 ms). */
export function collect(model: Model, context: Context, options: GoogleOptions = {}): Promise<Collected> {
	return collectStream(streamGoogle(model, context, { apiKey: "test-key", retryBaseDelayMs: 1, ...options }));
}
