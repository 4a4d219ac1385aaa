// SPEC X2: where the Anthropic provider puts its prompt-cache breakpoints, with and without the append-only
// context manager. With the manager the moving tail breakpoint is the server's (top-level `cache_control`,
// automatic caching) and the manager's anchor stays put, so each request repeats the previous body byte for
// byte; without it the tail marker moves with the last block, as before.
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { CacheHints, Context } from "../../../src/core/model.js";
import { AppendOnlyContextManager } from "../../../src/index.js";
import { buildAnthropicRequest, streamAnthropic } from "../../../src/providers/anthropic/index.js";
import { collectStream } from "../support/collect.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { startReplayServer } from "../support/replay-server.js";
import { testModel } from "./helpers.js";
import { assistant, model, tools } from "./request-fixtures.js";

type Body = ReturnType<typeof buildAnthropicRequest>;

/** Where the body carries `cache_control`: `top`, `system0`, `tool1`, `m5.0` (wire message 5, block 0). */
function breakpoints(body: Body): string[] {
	const found: string[] = [];
	const marked = (block: object) => "cache_control" in block && block.cache_control != null;
	if (marked(body)) found.push("top");
	if (Array.isArray(body.system))
		for (const [i, s] of body.system.entries()) if (marked(s)) found.push(`system${i}`);
	for (const [i, t] of (body.tools ?? []).entries()) if (marked(t)) found.push(`tool${i}`);
	for (const [i, m] of body.messages.entries())
		if (Array.isArray(m.content))
			for (const [j, c] of m.content.entries()) if (marked(c)) found.push(`m${i}.${j}`);
	return found;
}

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });
const toolResult = (toolCallId: string, toolName: string, text: string): Message => ({
	role: "toolResult",
	toolCallId,
	toolName,
	content: [{ type: "text", text }],
	isError: false,
	timestamp: 0,
});
const call = (id: string) => assistant([{ type: "toolCall", id, name: "read", arguments: { path: id } }]);

/** question, reply, question, reply, … (`n` messages). */
function conversation(n: number): Message[] {
	return Array.from({ length: n }, (_, i) =>
		i % 2 === 0 ? user(`question ${i}`) : assistant([{ type: "text", text: `answer ${i}` }]),
	);
}

const hints: { cacheHints: CacheHints } = {
	cacheHints: { stablePrefixChanged: false, unchangedMessages: 0 },
};
const context = (messages: Message[], cacheAnchor?: number): Context => ({
	systemPrompt: "sys",
	tools,
	messages,
	...(cacheAnchor !== undefined ? { cacheAnchor } : {}),
});

describe("SPEC X2: Anthropic cache breakpoints", () => {
	it("without a context manager: system prompt, last tool and the last block, as before", () => {
		expect(breakpoints(buildAnthropicRequest(model, context(conversation(5))))).toEqual([
			"system0",
			"tool1",
			"m4.0",
		]);
	});

	it("with the manager's hints: the server places the tail (top-level cache_control), the anchor stays where it is told", () => {
		const body = buildAnthropicRequest(model, context(conversation(7), 3), hints);
		expect(breakpoints(body)).toEqual(["top", "system0", "tool1", "m2.0"]);
		expect(body.cache_control).toEqual({ type: "ephemeral" });
		// Fixed key order: the top-level field sits before `messages`, so it never moves the message bytes.
		const keys = Object.keys(body);
		expect(keys.indexOf("cache_control")).toBe(keys.indexOf("messages") - 1);
		// No anchor yet: three breakpoints, none inside the messages.
		expect(breakpoints(buildAnthropicRequest(model, context(conversation(7)), hints))).toEqual([
			"top",
			"system0",
			"tool1",
		]);
	});

	it("never more than four breakpoints, and none at all with cacheTtl off", () => {
		for (const anchor of [undefined, 1, 4, 7]) {
			const body = buildAnthropicRequest(model, context(conversation(7), anchor), hints);
			expect(breakpoints(body).length).toBeLessThanOrEqual(4);
			const off = buildAnthropicRequest(model, context(conversation(7), anchor), {
				...hints,
				cacheTtl: "off",
			});
			expect(JSON.stringify(off)).not.toContain("cache_control");
		}
		const oneHour = buildAnthropicRequest(model, context(conversation(7), 3), { ...hints, cacheTtl: "1h" });
		expect(JSON.stringify(oneHour).match(/"cache_control":\{"type":"ephemeral","ttl":"1h"\}/g)).toHaveLength(
			4,
		);
	});

	it("a server without automatic caching (compat.supportsAutomaticCaching: false) gets the tail as a block marker", () => {
		const compat = testModel("http://127.0.0.1:1", { compat: { supportsAutomaticCaching: false } });
		const body = buildAnthropicRequest(compat, context(conversation(7), 3), hints);
		expect(breakpoints(body)).toEqual(["system0", "tool1", "m2.0", "m6.0"]);
		expect("cache_control" in body).toBe(false);
	});

	it("the anchor marks its own message's block, also inside a merged run of tool results", () => {
		const messages: Message[] = [
			user("read three"),
			assistant([
				{ type: "toolCall", id: "toolu_a", name: "read", arguments: { path: "a" } },
				{ type: "toolCall", id: "toolu_b", name: "read", arguments: { path: "b" } },
				{ type: "toolCall", id: "toolu_c", name: "read", arguments: { path: "c" } },
			]),
			toolResult("toolu_a", "read", "A"),
			toolResult("toolu_b", "read", "B"),
			toolResult("toolu_c", "read", "C"),
		];
		// After the second result: wire message 2 (the user message of all three results), block 1.
		expect(breakpoints(buildAnthropicRequest(model, context(messages, 4), hints))).toEqual([
			"top",
			"system0",
			"tool1",
			"m2.1",
		]);
	});

	it("an anchor outside 1…messages.length, or on the tail block the server marks anyway, adds nothing", () => {
		for (const anchor of [0, -1, 8, 1.5])
			expect(breakpoints(buildAnthropicRequest(model, context(conversation(7), anchor), hints))).toEqual([
				"top",
				"system0",
				"tool1",
			]);
		expect(breakpoints(buildAnthropicRequest(model, context(conversation(7), 7), hints))).toEqual([
			"top",
			"system0",
			"tool1",
		]);
	});

	it("with the manager, every request repeats the previous body as sent (markers included), pruning aside", () => {
		const manager = new AppendOnlyContextManager();
		const history: Message[] = [user("look items up")];
		let previous: string | undefined;
		for (let turn = 1; turn <= 40; turn++) {
			// From turn 20 on a transform prunes the first result (a fresh copy each call, as pruning passes build it).
			const messages = history.map((message, i) =>
				turn >= 20 && i === 2 ? toolResult("toolu_1", "read", "[pruned]") : message,
			);
			const built = manager.build({ systemPrompt: "sys", tools, messages });
			const hintsOf = {
				stablePrefixChanged: built.stablePrefixChanged,
				unchangedMessages: built.unchangedMessages,
			};
			const sent = JSON.stringify(buildAnthropicRequest(model, built.context, { cacheHints: hintsOf }));
			// The previous body up to its closing `]}`: everything it sent is this request's prefix.
			if (previous)
				expect({ turn, extends: sent.startsWith(previous.slice(0, -2)) }).toEqual({
					turn,
					extends: turn !== 20,
				});
			// Set by the rewrite at turn 20, then kept: no narrow append moves it.
			expect(built.context.cacheAnchor).toBe(turn >= 20 ? 2 : undefined);
			previous = sent;
			history.push(call(`toolu_${turn}`), toolResult(`toolu_${turn}`, "read", `result ${turn} `.repeat(20)));
		}
	});

	it("over real HTTP: the body sent with the manager's hints carries the top-level breakpoint and the anchor", async () => {
		const server = await startReplayServer([
			{ type: "sse", body: firstBodyMatching(["anthropic-messages"], "anthropic-text"), split: { seed: 6 } },
		]);
		try {
			const live = testModel(server.baseUrl);
			const done = await collectStream(
				streamAnthropic(live, context(conversation(5), 2), { apiKey: "test-key", ...hints }),
			);
			expect(done.message.stopReason).toBe("stop");
			const sent = JSON.parse(server.requests[0]?.body ?? "{}") as Body;
			expect(breakpoints(sent)).toEqual(["top", "system0", "tool1", "m1.0"]);
		} finally {
			await server.close();
		}
	});
});
