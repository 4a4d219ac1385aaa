/**
 * The status line: model, thinking level, tokens and cost so far, and how full the context window is.
 * Totals are folded in once per finished reply, so drawing the line costs nothing per delta.
 */
import type { AgentMessage, AssistantMessage, Usage } from "../../core/messages.js";
import type { ModelDescription } from "../host.js";
import type { Palette } from "./ansi.js";
import { truncateStyled } from "./text-width.js";

/** Token and cost totals of the conversation, and the size of the last request. */
export class UsageTotals {
	input = 0;
	output = 0;
	cacheRead = 0;
	cacheWrite = 0;
	cost = 0;
	replies = 0;
	priceUnknown = false;
	/** Tokens the last reply's request and answer occupied: what the next request starts from. */
	contextTokens = 0;

	/** Add one finished reply. */
	add(reply: AssistantMessage): void {
		const u: Usage = reply.usage;
		this.input += u.input;
		this.output += u.output;
		this.cacheRead += u.cacheRead;
		this.cacheWrite += u.cacheWrite;
		this.cost += u.cost.total;
		this.replies++;
		if (u.priceUnknown) this.priceUnknown = true;
		const used = u.input + u.cacheRead + u.cacheWrite + u.output;
		if (used > 0) this.contextTokens = used;
	}

	/** Start over from a transcript (a resumed or cleared session). */
	reset(messages: readonly AgentMessage[] = []): void {
		Object.assign(this, new UsageTotals());
		for (const m of messages)
			if ((m as { role?: unknown }).role === "assistant") this.add(m as AssistantMessage);
	}
}

/** Compact token counts: 950, 12.3k, 1.2M. */
export function formatTokens(n: number): string {
	if (n < 1000) return String(n);
	if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
	return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Dollars with enough digits to see small sums; a sum above zero never reads as `$0.0000`. */
export function formatCost(cost: number): string {
	if (cost > 0 && cost < 0.00005) return "<$0.0001";
	return cost >= 1 ? `$${cost.toFixed(2)}` : `$${cost.toFixed(4)}`;
}

/**
 * The conversation's cost as every CLI view words it (the status line, `/usage`, the print mode's usage line):
 * {@link formatCost} once something was spent; `unknown` for a model with no price table (rule M5: its zero
 * cost is no price), each view saying that in its own words or not at all; and nothing when a priced model
 * spent nothing (the scripted demo), rather than a `$0.0000` that reads like a measurement.
 */
export function spentCost(cost: number, priceUnknown: boolean, unknown?: string): string | undefined {
	if (cost > 0) return formatCost(cost);
	return priceUnknown ? unknown : undefined;
}

/**
 * The status line for the live region, cut to `width`. The cost shows once something was spent: not before the
 * first reply, nor for a model with no prices (rule M5: a local model's zero is no price; `/usage` says so).
 */
export function statusLine(model: ModelDescription, totals: UsageTotals, width: number, s: Palette): string {
	const parts = [
		model.scripted ? `${model.spec} (scripted)` : model.spec,
		`thinking ${model.thinkingLevel}`,
		`↑${formatTokens(totals.input + totals.cacheRead + totals.cacheWrite)} ↓${formatTokens(totals.output)}`,
	];
	const cost = spentCost(totals.cost, totals.priceUnknown);
	if (cost !== undefined) parts.push(cost);
	if (model.contextWindow && model.contextWindow > 0) {
		const share = Math.min(999, Math.round((totals.contextTokens / model.contextWindow) * 100));
		parts.push(`ctx ${share}% of ${formatTokens(model.contextWindow)}`);
	}
	return truncateStyled(s.dim(parts.join(" · ")), width);
}
