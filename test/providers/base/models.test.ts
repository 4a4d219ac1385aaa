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

	it("every catalog api the built-in registry knows is dispatched there", () => {
		expect(Object.keys(builtinProviders())).toContain("anthropic-messages");
	});
});
