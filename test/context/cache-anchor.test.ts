// SPEC X2: the append-only manager's cache anchor — the fixed breakpoint position it hands providers in
// `context.cacheAnchor`. It stays where it was set, so a marker there never leaves the bytes the previous
// request sent, and moves only where those bytes break anyway (a rewrite) or where the new tail could not
// reach the previous request's cache entry (an append wider than the lookback).
import { describe, expect, it } from "vitest";
import {
	AppendOnlyContextManager,
	CACHE_LOOKBACK_BLOCKS,
	emptyUsage,
	type Message,
	type ToolSpec,
} from "../../src/index.js";
import { user } from "../support/run.js";

const tools: ToolSpec[] = [{ name: "read", description: "Read a file", parameters: { type: "object" } }];

function calls(...ids: string[]): Message {
	return {
		role: "assistant",
		content: ids.map((id) => ({ type: "toolCall" as const, id, name: "read", arguments: { path: id } })),
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: emptyUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	};
}

const result = (id: string, text = `contents of ${id}`): Message => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "read",
	content: [{ type: "text", text }],
	isError: false,
	timestamp: 0,
});

/** One tool turn: a call and its result (two blocks). */
const turn = (n: number): Message[] => [calls(`t${n}`), result(`t${n}`)];

describe("SPEC X2: the cache anchor", () => {
	it("none on the first request nor while each call appends less than the lookback", () => {
		const manager = new AppendOnlyContextManager();
		const messages: Message[] = [user("start")];
		for (let n = 0; n < 30; n++) {
			const built = manager.build({ systemPrompt: "sys", tools, messages: messages.slice() });
			expect(built.context.cacheAnchor).toBeUndefined();
			messages.push(...turn(n));
		}
		expect(manager.cacheAnchor).toBeUndefined();
	});

	it("a rewrite puts it at the end of the unchanged messages, and later appends leave it there", () => {
		const manager = new AppendOnlyContextManager();
		const messages: Message[] = [user("start"), ...turn(0), ...turn(1), ...turn(2)];
		manager.build({ systemPrompt: "sys", tools, messages: messages.slice() });
		// Prune the second result (index 4) with a fresh copy on every call, as a transform does.
		const pruned = () => messages.map((m, i) => (i === 4 ? result("t1", "[pruned]") : m));
		const rewritten = manager.build({ systemPrompt: "sys", tools, messages: pruned() });
		expect(rewritten.unchangedMessages).toBe(4);
		expect(rewritten.context.cacheAnchor).toBe(4);
		for (let n = 3; n < 15; n++) {
			messages.push(...turn(n));
			const next = manager.build({ systemPrompt: "sys", tools, messages: pruned() });
			expect(next.context.cacheAnchor).toBe(4);
		}
		// A later rewrite behind the anchor moves it there.
		messages[2] = result("t0", "[pruned too]");
		expect(manager.build({ systemPrompt: "sys", tools, messages: pruned() }).context.cacheAnchor).toBe(2);
		// One at the very first message leaves nothing to anchor.
		messages[0] = user("another start");
		expect(
			manager.build({ systemPrompt: "sys", tools, messages: pruned() }).context.cacheAnchor,
		).toBeUndefined();
	});

	it("an append of lookback-many blocks or more moves it to where the previous request ended", () => {
		const manager = new AppendOnlyContextManager();
		const messages: Message[] = [user("start"), ...turn(0)];
		manager.build({ systemPrompt: "sys", tools, messages: messages.slice() });
		// One reply with 10 calls and their 10 results: 20 blocks.
		const ids = Array.from({ length: CACHE_LOOKBACK_BLOCKS / 2 - 1 }, (_, i) => `w${i}`);
		const narrow = [calls(...ids), ...ids.map((id) => result(id))];
		messages.push(...narrow);
		expect(
			manager.build({ systemPrompt: "sys", tools, messages: messages.slice() }).context.cacheAnchor,
		).toBe(undefined);
		const before = messages.length;
		const wide = [...ids, "w9", "w10"];
		messages.push(calls(...wide), ...wide.map((id) => result(id)));
		const built = manager.build({ systemPrompt: "sys", tools, messages: messages.slice() });
		expect(built.context.cacheAnchor).toBe(before);
		// Narrow appends keep it; the next wide one advances it again.
		messages.push(...turn(5));
		expect(
			manager.build({ systemPrompt: "sys", tools, messages: messages.slice() }).context.cacheAnchor,
		).toBe(before);
	});

	it("the lookback is an option; a custom one must be a positive integer", () => {
		const manager = new AppendOnlyContextManager({ lookbackBlocks: 4 });
		const messages: Message[] = [user("start")];
		manager.build({ messages: messages.slice() });
		messages.push(...turn(0), ...turn(1));
		expect(manager.build({ messages: messages.slice() }).context.cacheAnchor).toBe(1);
		for (const bad of [0, -3, 2.5, Number.NaN])
			expect(() => new AppendOnlyContextManager({ lookbackBlocks: bad })).toThrow(RangeError);
	});

	it("a new stable prefix, a compaction or reset() drops it", () => {
		const manager = new AppendOnlyContextManager();
		const messages: Message[] = [user("start"), ...turn(0), ...turn(1)];
		manager.build({ systemPrompt: "sys", tools, messages: messages.slice() });
		const edited = messages.map((m, i) => (i === 2 ? result("t0", "[pruned]") : m));
		expect(manager.build({ systemPrompt: "sys", tools, messages: edited }).context.cacheAnchor).toBe(2);
		expect(
			manager.build({ systemPrompt: "other", tools, messages: edited }).context.cacheAnchor,
		).toBeUndefined();
		manager.build({
			systemPrompt: "other",
			tools,
			messages: messages.map((m, i) => (i === 2 ? edited[2]! : m)),
		});
		expect(manager.build({ systemPrompt: "other", tools, messages: [user("summary")] }).reset).toBe(true);
		expect(manager.cacheAnchor).toBeUndefined();
		manager.build({ systemPrompt: "other", tools, messages: [user("summary"), calls("x"), result("x")] });
		manager.build({
			systemPrompt: "other",
			tools,
			messages: [user("edited summary"), calls("x"), result("x")],
		});
		manager.reset();
		expect(manager.cacheAnchor).toBeUndefined();
	});

	it("an identical re-sync keeps the anchor and the very same context object", () => {
		const manager = new AppendOnlyContextManager();
		const messages: Message[] = [user("start"), ...turn(0), ...turn(1)];
		manager.build({ messages: messages.slice() });
		const edited = messages.map((m, i) => (i === 2 ? result("t0", "[pruned]") : m));
		const first = manager.build({ messages: edited });
		const again = manager.build({ messages: edited.slice() });
		expect(again.context).toBe(first.context);
		expect(again.context.cacheAnchor).toBe(2);
	});
});
