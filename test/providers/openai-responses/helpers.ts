/** Running the OpenAI Responses provider in tests: its test model and one call collected to the end. */
import type { Context, Model } from "../../../src/core/model.js";
import {
	type OpenAIResponsesOptions,
	streamOpenAIResponses,
} from "../../../src/providers/openai-responses/index.js";
import { type Collected, collectStream } from "../support/collect.js";
import { testModel } from "../support/models.js";

/** A Responses model pointed at `baseUrl` (a loopback replay server). */
export function responsesModel(baseUrl: string, overrides: Partial<Model> = {}): Model {
	return testModel("openai-responses", baseUrl, overrides);
}

/** Run one call to the end, collecting events (retries back off by 1 ms). */
export function collect(
	model: Model,
	context: Context,
	options: OpenAIResponsesOptions = {},
): Promise<Collected> {
	return collectStream(
		streamOpenAIResponses(model, context, { apiKey: "test-key", retryBaseDelayMs: 1, ...options }),
	);
}
