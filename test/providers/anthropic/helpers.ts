/** Running the Anthropic provider in tests: its test model and one call collected to the end. */
import type { Context, Model } from "../../../src/core/model.js";
import { type AnthropicOptions, streamAnthropic } from "../../../src/providers/anthropic/index.js";
import { type Collected, collectStream } from "../support/collect.js";
import { testModel as modelOf } from "../support/models.js";
import { HELLO } from "../support/transcript.js";

/** A test model pointed at a replay server. */
export function testModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return modelOf("anthropic-messages", baseUrl, overrides);
}

/** Run one call and collect every event and the final message. */
export function collect(
	model: Model,
	options: AnthropicOptions = {},
	context: Context = HELLO,
): Promise<Collected> {
	return collectStream(streamAnthropic(model, context, { apiKey: "test-key", ...options }));
}
