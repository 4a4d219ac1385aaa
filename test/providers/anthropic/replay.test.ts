import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import { anthropicToolCallId, buildAnthropicRequest } from "../../../src/providers/anthropic/index.js";
import { assistant, model, tools } from "./request-fixtures.js";

// Replaying transcripts: C4 normalization, programmatic tool calling, prompt-cache-stable bytes.
describe("replay", () => {
	describe("cross-provider replay (SPEC C4)", () => {
		const foreign = assistant(
			[
				{ type: "thinking", thinking: "I should call a tool.", signature: "openai-enc" },
				{ type: "redactedThinking", data: "foreign-enc" },
				{ type: "providerBlock", api: "openai-responses", data: { type: "reasoning" } },
				{ type: "toolCall", id: "call_abc|fc_123.x", name: "read", arguments: { path: "b" } },
			],
			{ api: "openai-responses", provider: "openai", model: "gpt-5.4" },
		);
		const messages: Message[] = [
			{ role: "user", content: "go", timestamp: 1 },
			foreign,
			{
				role: "toolResult",
				toolCallId: "call_abc|fc_123.x",
				toolName: "read",
				content: [{ type: "text", text: "B" }],
				isError: true,
				timestamp: 3,
			},
		];
		it("turns foreign thinking into text, drops foreign redacted thinking and blocks, rewrites ids consistently", () => {
			const body = buildAnthropicRequest(model, { messages }, { cacheTtl: "off" });
			const id = anthropicToolCallId("call_abc|fc_123.x");
			expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
			expect(body.messages[1]).toEqual({
				role: "assistant",
				content: [
					{ type: "text", text: "I should call a tool." },
					{ type: "tool_use", id, name: "read", input: { path: "b" } },
				],
			});
			expect(body.messages[2]).toEqual({
				role: "user",
				content: [
					{ type: "tool_result", tool_use_id: id, content: [{ type: "text", text: "B" }], is_error: true },
				],
			});
		});
		it("same provider but another model: thinking becomes text, redacted thinking is dropped", () => {
			const other = assistant(
				[
					{ type: "thinking", thinking: "hmm", signature: "s" },
					{ type: "redactedThinking", data: "r" },
					{ type: "text", text: "ok" },
				],
				{ model: "claude-opus-4-6", stopReason: "stop" },
			);
			const body = buildAnthropicRequest(
				model,
				{ messages: [{ role: "user", content: "q", timestamp: 1 }, other] },
				{ cacheTtl: "off" },
			);
			expect(body.messages[1]?.content).toEqual([
				{ type: "text", text: "hmm" },
				{ type: "text", text: "ok" },
			]);
		});
		it("long ids are cut to 64 characters, deterministically and without collisions", () => {
			const a = anthropicToolCallId(`${"x".repeat(70)}.a`);
			const b = anthropicToolCallId(`${"x".repeat(70)}.b`);
			expect(a).toHaveLength(64);
			expect(a).not.toBe(b);
			expect(anthropicToolCallId(`${"x".repeat(70)}.a`)).toBe(a);
			expect(anthropicToolCallId("toolu_01ABC-def")).toBe("toolu_01ABC-def");
		});
	});
});

describe("prompt bytes: a growing conversation keeps its request prefix byte for byte", () => {
	// Prompt caching (and X2) needs each request to begin with the previous one. The only bytes allowed to
	// differ are the moving last-message cache breakpoint, which Anthropic excludes from the cache key.
	const stripBreakpoint = (json: string) => json.replaceAll(',"cache_control":{"type":"ephemeral"}', "");
	it("ten turns", () => {
		const messages: Message[] = [];
		let previous: string | undefined;
		for (let turn = 0; turn < 10; turn++) {
			messages.push({ role: "user", content: `question ${turn} — ünïcödé`, timestamp: turn });
			const body = stripBreakpoint(
				JSON.stringify(
					buildAnthropicRequest(model, { systemPrompt: "sys", messages, tools }, { thinkingLevel: "low" }),
				),
			);
			if (previous !== undefined) {
				// The previous body without its closing `]}` is a prefix of this one.
				expect(body.startsWith(previous.slice(0, -2))).toBe(true);
			}
			previous = body;
			messages.push(
				assistant([
					{ type: "thinking", thinking: `t${turn}`, signature: `s${turn}` },
					{ type: "toolCall", id: `toolu_${turn}`, name: "read", arguments: { path: `${turn}.txt` } },
				]),
				{
					role: "toolResult",
					toolCallId: `toolu_${turn}`,
					toolName: "read",
					content: [{ type: "text", text: `file ${turn}` }],
					isError: false,
					timestamp: turn,
				},
			);
		}
	});
});

describe("programmatic tool calling", () => {
	it("a call's caller (kept in its signature by the decoder) is replayed to Anthropic, dropped elsewhere", () => {
		const caller = { type: "code_execution_20250825", tool_id: "srvtoolu_1" };
		const call = {
			type: "toolCall" as const,
			id: "toolu_p",
			name: "rollDie",
			arguments: {},
			signature: JSON.stringify(caller),
		};
		const body = buildAnthropicRequest(
			model,
			{ messages: [{ role: "user", content: "q", timestamp: 1 }, assistant([call])] },
			{ cacheTtl: "off" },
		);
		expect(body.messages[1]?.content).toEqual([
			{ type: "tool_use", id: "toolu_p", name: "rollDie", input: {}, caller },
		]);
		const foreign = assistant([call], { api: "openai-responses" });
		const other = buildAnthropicRequest(
			model,
			{ messages: [{ role: "user", content: "q", timestamp: 1 }, foreign] },
			{ cacheTtl: "off" },
		);
		expect(other.messages[1]?.content).toEqual([
			{ type: "tool_use", id: "toolu_p", name: "rollDie", input: {} },
		]);
	});
});
