/**
 * The interactive status line: what it says about tokens and cost before the first reply, for a priced model,
 * and for one with no prices (a local model behind `--base-url`).
 */
import { describe, expect, it } from "vitest";
import type { ModelDescription } from "../../src/cli/host.js";
import { createPalette } from "../../src/cli/interactive/ansi.js";
import { formatCost, statusLine, UsageTotals } from "../../src/cli/interactive/status-line.js";
import type { AssistantMessage } from "../../src/core/messages.js";

const plain = createPalette(false);
const model: ModelDescription = {
	provider: "ollama",
	id: "qwen3",
	spec: "ollama/qwen3",
	thinkingLevel: "off",
	contextWindow: 32_768,
	scripted: false,
};

/** A finished reply of 1,000 input and 200 output tokens costing `cost` (no price table: `priceUnknown`). */
function reply(cost: number, priceUnknown = false): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text: "ok" }],
		api: "openai-completions",
		provider: "ollama",
		model: "qwen3",
		usage: {
			input: 1000,
			output: 200,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 1200,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
			...(priceUnknown ? { priceUnknown: true } : {}),
		},
		stopReason: "stop",
		timestamp: 0,
	};
}

function line(...replies: AssistantMessage[]): string {
	const totals = new UsageTotals();
	for (const r of replies) totals.add(r);
	return statusLine(model, totals, 200, plain);
}

describe("the status line's cost", () => {
	it("is not shown before the first reply: nothing has been spent, nor priced", () => {
		expect(line()).toBe("ollama/qwen3 · thinking off · ↑0 ↓0 · ctx 0% of 33k");
	});

	it("is the sum so far once a priced reply has arrived", () => {
		expect(line(reply(0.0012), reply(0.0018))).toBe(
			"ollama/qwen3 · thinking off · ↑2.0k ↓400 · $0.0030 · ctx 4% of 33k",
		);
	});

	it("SPEC M5: is not shown for a model with no prices (a local model): its zero is no cost, and no price", () => {
		expect(line(reply(0, true))).toBe("ollama/qwen3 · thinking off · ↑1.0k ↓200 · ctx 4% of 33k");
	});

	it("a sum too small for four decimals reads as less than $0.0001, not as $0.0000", () => {
		expect(line(reply(0.00002))).toBe("ollama/qwen3 · thinking off · ↑1.0k ↓200 · <$0.0001 · ctx 4% of 33k");
		expect(formatCost(0.00002)).toBe("<$0.0001");
		expect(formatCost(0)).toBe("$0.0000");
		expect(formatCost(0.12345)).toBe("$0.1235");
		expect(formatCost(12.345)).toBe("$12.35");
	});
});
