/**
 * The output-token cap, one rule for every request builder: `options.maxTokens`, else the model's
 * `compat.defaultMaxTokens`, else `Model.maxTokens` for Anthropic (its API requires a cap) and no cap at all for
 * the others (the server's default: the model's whole output, within what fits the context window). Chat
 * Completions used to send the model's ceiling while Responses and Gemini sent nothing.
 */
import { describe, expect, it } from "vitest";
import type { Context, Model, StreamOptions } from "../../../src/core/model.js";
import { buildAnthropicRequest } from "../../../src/providers/anthropic/index.js";
import { buildGeminiRequest } from "../../../src/providers/google/request.js";
import { openaiCompatible } from "../../../src/providers/openai-completions/compatible.js";
import { buildOpenAICompletionsRequest } from "../../../src/providers/openai-completions/request.js";
import { buildResponsesRequest } from "../../../src/providers/openai-responses/request.js";
import { type TestApi, testModel } from "../support/models.js";

const CONTEXT: Context = { messages: [{ role: "user", content: "Hi", timestamp: 1 }] };

/** The body's cap fields that are present (none: `{}`). */
function present(fields: Record<string, unknown>): Record<string, unknown> {
	return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Every builder, as the cap fields of the body it builds for `model` and `options`. */
const caps: Record<TestApi, (model: Model, options: StreamOptions) => Record<string, unknown>> = {
	"anthropic-messages": (m, o) => present({ max_tokens: buildAnthropicRequest(m, CONTEXT, o).max_tokens }),
	"openai-completions": (m, o) => {
		const body = buildOpenAICompletionsRequest(m, CONTEXT, o);
		return present({ max_tokens: body.max_tokens, max_completion_tokens: body.max_completion_tokens });
	},
	"openai-responses": (m, o) =>
		present({ max_output_tokens: buildResponsesRequest(m, CONTEXT, o).max_output_tokens }),
	"google-generative-ai": (m, o) =>
		present({ maxOutputTokens: buildGeminiRequest(m, CONTEXT, o).generationConfig?.maxOutputTokens }),
};

/** The field each API names its cap (the test models' Chat Completions server is api.openai.com's preset). */
const FIELD: Record<TestApi, string> = {
	"anthropic-messages": "max_tokens",
	"openai-completions": "max_completion_tokens",
	"openai-responses": "max_output_tokens",
	"google-generative-ai": "maxOutputTokens",
};
const apis = Object.keys(caps) as TestApi[];

const model = (api: TestApi, compat: Record<string, unknown> = {}): Model => {
	const base = testModel(api, "http://127.0.0.1:9");
	return { ...base, compat: { ...base.compat, ...compat } };
};

describe("the output-token cap of a request", () => {
	it.each([
		["anthropic-messages", { max_tokens: 64_000 }],
		["openai-completions", {}],
		["openai-responses", {}],
		["google-generative-ai", {}],
	] as const)(
		"%s: no maxTokens anywhere sends %j (Anthropic requires a cap; the model's ceiling)",
		(api, expected) => {
			expect(caps[api](model(api), {})).toEqual(expected);
		},
	);

	it.each(apis)("%s: compat.defaultMaxTokens caps every request that sets no maxTokens", (api) => {
		expect(caps[api](model(api, { defaultMaxTokens: 4000 }), {})).toEqual({ [FIELD[api]]: 4000 });
	});

	it.each(apis)("%s: options.maxTokens wins over compat.defaultMaxTokens and the model's ceiling", (api) => {
		const capped = model(api, { defaultMaxTokens: 4000 });
		expect(caps[api](capped, { maxTokens: 500 })).toEqual({ [FIELD[api]]: 500 });
		expect(caps[api](model(api), { maxTokens: 500 })).toEqual({ [FIELD[api]]: 500 });
	});

	it.each(apis)("%s: a compat.defaultMaxTokens that is not a whole number above 0 is ignored", (api) => {
		const ceiling = api === "anthropic-messages" ? { max_tokens: 64_000 } : {};
		for (const defaultMaxTokens of [0, -5, 1.5, "4000", null])
			expect(caps[api](model(api, { defaultMaxTokens }), {})).toEqual(ceiling);
	});

	it("openaiCompatible's maxTokens is still sent on every request that sets none, in the preset's field", () => {
		const capped = openaiCompatible({
			baseUrl: "http://localhost:8080/v1",
			model: "m",
			maxTokens: 2048,
		}).model;
		expect(caps["openai-completions"](capped, {})).toEqual({ max_tokens: 2048 });
		expect(caps["openai-completions"](capped, { maxTokens: 100 })).toEqual({ max_tokens: 100 });
		const open = openaiCompatible({ baseUrl: "http://localhost:8080/v1", model: "m" }).model;
		expect(caps["openai-completions"](open, {})).toEqual({});
	});
});
