/** Running the Chat Completions provider in tests: its test model and one call collected to the end. */
import type { Context, Model } from "../../../src/core/model.js";
import {
	type OpenAICompletionsOptions,
	streamOpenAICompletions,
} from "../../../src/providers/openai-completions/index.js";
import { type Collected, collectStream } from "../support/collect.js";
import { testModel as modelOf } from "../support/models.js";
import { HELLO } from "../support/transcript.js";

/** A test model pointed at a replay server (`baseUrl` must include the API prefix, like `/v1`). */
export function testModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return modelOf("openai-completions", baseUrl, overrides);
}

/** Run one call and collect every event and the final message. */
export function collect(
	model: Model,
	options: OpenAICompletionsOptions = {},
	context: Context = HELLO,
): Promise<Collected> {
	return collectStream(streamOpenAICompletions(model, context, { apiKey: "test-key", ...options }));
}
