import { describe, expect, it } from "vitest";
import { getModel, listModels, MODELS } from "../../../src/providers/models.js";
import { builtinProviders } from "../../../src/providers/registry.js";

describe("model catalog", () => {
	it("lists Anthropic, OpenAI and Google models with sane limits and prices", () => {
		expect(Object.keys(MODELS).sort()).toEqual(["anthropic", "google", "openai"]);
		for (const model of listModels()) {
			expect(model.contextWindow).toBeGreaterThan(model.maxTokens);
			expect(model.cost.output).toBeGreaterThan(model.cost.input);
			expect(model.cost.cacheRead).toBeLessThan(model.cost.input);
			expect(model.baseUrl).toMatch(/^https:\/\//);
		}
	});

	it("getModel returns a fresh copy; unknown ids fail with a clear message", () => {
		const a = getModel("anthropic", "claude-sonnet-4-5");
		a.maxTokens = 1;
		expect(getModel("anthropic", "claude-sonnet-4-5").maxTokens).toBe(64_000);
		expect(() => getModel("anthropic", "claude-9")).toThrow(
			/Unknown anthropic model "claude-9".*explicit Model/,
		);
		expect(() => getModel("acme", "x")).toThrow(/Unknown provider "acme"/);
	});

	// Figures from the vendors' model and pricing pages (USD per million tokens), checked 2026-12-07.
	it.each([
		// platform.claude.com/docs/en/about-claude/pricing: Fable 5.1 cache hits are $0.25, not 0.1× input.
		["anthropic", "claude-fable-5-1", { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 }],
		// platform.claude.com/docs/en/models/opus-5-5/overview: cache read $0.20, 5-minute cache write $5.
		["anthropic", "claude-opus-5-5", { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 }],
		["anthropic", "claude-sonnet-5-5", { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 }],
		// developers.openai.com/api/docs/models/<id>: input, cached input, 30-minute cache write, output.
		["openai", "gpt-6.2-sol", { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 }],
		["openai", "gpt-6.1-terra", { input: 1, output: 5, cacheRead: 0.05, cacheWrite: 1.25 }],
		["openai", "gpt-6-luna", { input: 0.1, output: 0.5, cacheRead: 0.01, cacheWrite: 0.125 }],
	])("%s/%s is priced as its vendor lists it", (provider, id, cost) => {
		expect(getModel(provider, id).cost).toEqual(cost);
	});

	it("GPT-6 models have their documented 1.05M context window and 128K output", () => {
		for (const id of ["gpt-6.2-sol", "gpt-6.1-terra", "gpt-6-luna"])
			expect(getModel("openai", id), id).toMatchObject({
				api: "openai-responses",
				contextWindow: 1_050_000,
				maxTokens: 128_000,
			});
	});

	it("every catalog api the built-in registry knows is dispatched there", () => {
		expect(Object.keys(builtinProviders())).toContain("anthropic-messages");
	});
});
