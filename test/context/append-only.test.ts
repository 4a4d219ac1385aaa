import { describe, expect, it } from "vitest";
import { canonicalJson, cyrb53 } from "../../src/context/append-only.js";
import {
	Agent,
	AppendOnlyContextManager,
	type AssistantMessage,
	emptyUsage,
	type Message,
	type ToolSpec,
} from "../../src/index.js";
import { buildAnthropicRequest } from "../../src/providers/anthropic/index.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import { testModel } from "../providers/anthropic/helpers.js";
import { echoTool, runScript, user } from "../support/run.js";

const model = testModel("http://127.0.0.1:1");

function reply(text: string): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: model.id,
		usage: emptyUsage(),
		stopReason: "stop",
		timestamp: 0,
	};
}

/** A conversation of `n` messages, alternating user and assistant. */
function conversation(n: number): Message[] {
	return Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : reply(`answer ${i}`)));
}

const readTool: ToolSpec = {
	name: "read",
	description: "Read a file",
	parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const lsTool: ToolSpec = { name: "ls", description: "List a folder", parameters: { type: "object" } };

/** A manager whose hash counts its calls. */
function counted() {
	const hashed: string[] = [];
	const manager = new AppendOnlyContextManager({
		hash: (text) => {
			hashed.push(text);
			return cyrb53(text);
		},
	});
	return { manager, hashed };
}

const body = (context: Parameters<typeof buildAnthropicRequest>[1], cacheTtl?: "off") =>
	JSON.stringify(buildAnthropicRequest(model, context, cacheTtl ? { cacheTtl } : {}));

describe("AppendOnlyContextManager", () => {
	it("SPEC X2: an identical re-sync is a no-op — same array, nothing hashed", () => {
		const { manager, hashed } = counted();
		const messages = conversation(6);
		const first = manager.syncMessages(messages);
		expect(first).toMatchObject({ unchanged: 0, changed: true, reset: false });
		const again = manager.syncMessages(messages.slice());
		expect(again.messages).toBe(first.messages);
		expect(again).toMatchObject({ unchanged: 6, changed: false, reset: false });
		expect(hashed).toHaveLength(0);
	});

	it("SPEC X2: an identical build returns the same context object and reports every message unchanged", () => {
		const manager = new AppendOnlyContextManager();
		const messages = conversation(4);
		const input = { systemPrompt: "Be brief.", tools: [readTool], messages };
		const first = manager.build(input);
		expect(first).toMatchObject({ stablePrefixChanged: true, unchangedMessages: 0 });
		const second = manager.build({ ...input, tools: [readTool], messages: messages.slice() });
		expect(second.context).toBe(first.context);
		expect(second).toMatchObject({ stablePrefixChanged: false, unchangedMessages: 4, reset: false });
		expect(Object.isFrozen(second.context.messages)).toBe(true);
	});

	it("SPEC X2: appending keeps every earlier entry and reports them unchanged, hashing nothing", () => {
		const { manager, hashed } = counted();
		const messages = conversation(4);
		manager.syncMessages(messages);
		const longer = [...messages, user("more")];
		const sync = manager.syncMessages(longer);
		expect(sync).toMatchObject({ unchanged: 4, changed: true });
		expect(sync.messages).toEqual(longer);
		expect(hashed).toHaveLength(0);
	});

	it("SPEC X2: an edit at index k keeps 0..k-1 as the same objects and bytes; the rest comes from the new list", () => {
		const manager = new AppendOnlyContextManager();
		const original = conversation(12);
		const before = manager.build({ messages: original });
		// A host (or transformContext) that rebuilds every message object with equal content, editing one.
		const k = 7;
		const rebuilt = original.map((m) => structuredClone(m));
		rebuilt[k] = reply("answer 7, pruned");
		const after = manager.build({ messages: rebuilt });
		expect(after.unchangedMessages).toBe(k);
		for (let i = 0; i < k; i++) expect(after.context.messages[i]).toBe(original[i]);
		expect(after.context.messages[k]).toBe(rebuilt[k]);
		for (let i = k + 1; i < 12; i++) expect(after.context.messages[i]).toBe(rebuilt[i]);
		// Same bytes up to the edit: the Anthropic body shares everything before message k.
		const upToK = body({ messages: before.context.messages.slice(0, k) }, "off").slice(0, -2);
		expect(body(after.context, "off").startsWith(upToK)).toBe(true);
		expect(body(before.context, "off").startsWith(upToK)).toBe(true);
	});

	it("SPEC X2: a revert restores the earlier bytes", () => {
		const manager = new AppendOnlyContextManager();
		const original = conversation(8);
		// Content bytes: the rewrite also sets a cache anchor (a breakpoint marker), which is not content.
		const first = body(manager.build({ messages: original }).context, "off");
		const edited = original.slice();
		edited[3] = reply("answer 3, rewritten");
		const second = body(manager.build({ messages: edited }).context, "off");
		expect(second).not.toBe(first);
		// The revert arrives as fresh objects with the original content, even with keys in another order.
		const reverted = original.map((m) => structuredClone(m));
		const { content, role, ...rest } = original[3] as AssistantMessage;
		reverted[3] = { ...rest, content, role } as AssistantMessage;
		const third = manager.build({ messages: reverted });
		expect(body(third.context, "off")).toBe(first);
		expect(third.unchangedMessages).toBe(3);
	});

	it("SPEC X2: a key-order-only difference is no change — the object sent first keeps being sent", () => {
		const manager = new AppendOnlyContextManager();
		const original = conversation(3);
		manager.syncMessages(original);
		const shuffled = original.map((m) => Object.fromEntries(Object.entries(m).reverse()) as Message);
		const sync = manager.syncMessages(shuffled);
		expect(sync).toMatchObject({ unchanged: 3, changed: false });
		expect(sync.messages[0]).toBe(original[0]);
	});

	it("SPEC X2: a tool-list change rebuilds only the prefix; the message log is untouched", () => {
		const manager = new AppendOnlyContextManager();
		const messages = conversation(6);
		const first = manager.build({ systemPrompt: "sys", tools: [readTool], messages });
		const second = manager.build({ systemPrompt: "sys", tools: [readTool, lsTool], messages });
		expect(second.stablePrefixChanged).toBe(true);
		expect(second.unchangedMessages).toBe(6);
		expect(second.context.messages).toBe(first.context.messages);
		expect(second.context.tools).toEqual([readTool, lsTool]);
		// Equal specs rebuilt as new objects: the frozen prefix (same array, same spec objects) stays.
		const third = manager.build({
			systemPrompt: "sys",
			tools: [structuredClone(readTool), structuredClone(lsTool)],
			messages,
		});
		expect(third.stablePrefixChanged).toBe(false);
		expect(third.context.tools).toBe(second.context.tools);
		expect(third.context).toBe(second.context);
		// A system prompt change is a prefix change too.
		const fourth = manager.build({ systemPrompt: "sys 2", tools: [readTool, lsTool], messages });
		expect(fourth.stablePrefixChanged).toBe(true);
		expect(fourth.context.messages).toBe(first.context.messages);
		expect(fourth.context.systemPrompt).toBe("sys 2");
	});

	it("SPEC X2: digests are memoized per object — an unchanged object is never re-hashed", () => {
		const { manager, hashed } = counted();
		const original = conversation(10);
		manager.syncMessages(original);
		const copies = original.map((m) => structuredClone(m));
		manager.syncMessages(copies);
		// Each side of each comparison hashed once: 10 log entries + 10 copies.
		expect(hashed).toHaveLength(20);
		expect(manager.digestCount).toBe(20);
		manager.syncMessages(copies);
		manager.syncMessages(original.map((m, i) => (i < 5 ? m : (copies[i] as Message))));
		expect(hashed).toHaveLength(20);
		// An edit: only the one new object is hashed; the log's entries and the copies are memoized.
		const edited = copies.slice();
		edited[9] = user("new");
		expect(manager.syncMessages(edited).unchanged).toBe(9);
		expect(hashed).toHaveLength(21);
		// A pruning pass that rebuilds message 3 on every call: one digest per fresh object, none for the rest.
		const log = manager.messages;
		for (let call = 0; call < 3; call++) {
			const pruned = log.slice();
			pruned[3] = structuredClone(log[3] as Message);
			expect(manager.syncMessages(pruned)).toMatchObject({ unchanged: 10, changed: false });
		}
		expect(hashed).toHaveLength(24);
	});

	it("SPEC X2: a shorter list (compaction) resets the log", () => {
		const manager = new AppendOnlyContextManager();
		const messages = conversation(10);
		manager.build({ messages });
		const compacted = [user("summary of the conversation so far"), ...messages.slice(8)];
		const built = manager.build({ messages: compacted });
		expect(built).toMatchObject({ reset: true, unchangedMessages: 0, stablePrefixChanged: false });
		expect(built.context.messages).toEqual(compacted);
		expect(manager.messages).toEqual(compacted);
		// The new log is appended to from then on.
		const next = manager.build({ messages: [...compacted, user("go on")] });
		expect(next).toMatchObject({ reset: false, unchangedMessages: 3 });
	});

	it("reset() forgets the prefix and the log", () => {
		const manager = new AppendOnlyContextManager();
		manager.build({ systemPrompt: "s", messages: conversation(2) });
		manager.reset();
		expect(manager.messages).toEqual([]);
		expect(manager.build({ systemPrompt: "s", messages: conversation(2) })).toMatchObject({
			stablePrefixChanged: true,
			unchangedMessages: 0,
		});
	});

	it("canonical JSON sorts object keys at every depth and keeps array order", () => {
		expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe(
			'{"a":{"d":[2,{"y":2,"z":1}]},"b":1}',
		);
		expect(cyrb53("abc")).toBe(cyrb53("abc"));
		expect(cyrb53("abc")).not.toBe(cyrb53("abd"));
	});
});

describe("SPEC X2 in the loop (C1: … → tool normalization → append-only build → stream)", () => {
	it("SPEC X2/C1: the manager's frozen context reaches the stream function with its hints", async () => {
		const manager = new AppendOnlyContextManager();
		const { scripted } = await runScript([toolReply("echo", { text: "a" }), textReply("done")], {
			tools: [echoTool()],
			systemPrompt: "sys",
			config: { contextManager: manager },
		});
		const [first, second] = scripted.calls;
		expect(first?.options.cacheHints).toEqual({ stablePrefixChanged: true, unchangedMessages: 0 });
		expect(second?.options.cacheHints).toEqual({ stablePrefixChanged: false, unchangedMessages: 1 });
		expect(second?.context.tools).toBe(first?.context.tools);
		expect(second?.context.messages).toEqual(manager.messages);
	});

	it("SPEC X2: without a manager no hints are sent", async () => {
		const { scripted } = await runScript([textReply("done")]);
		expect(scripted.calls[0]?.options.cacheHints).toBeUndefined();
	});

	it("SPEC X2: an Agent-owned manager keeps the prefix across prompts", async () => {
		const scripted = scriptedModel([toolReply("echo", { text: "a" }), textReply("one"), textReply("two")], {
			now: () => 0,
		});
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool()],
			contextManager: new AppendOnlyContextManager(),
		});
		await agent.prompt("first");
		await agent.prompt("second");
		const last = scripted.calls[2];
		const before = scripted.calls[1];
		expect(last?.options.cacheHints).toEqual({
			stablePrefixChanged: false,
			unchangedMessages: before?.context.messages.length,
		});
		for (const [i, m] of (before?.context.messages ?? []).entries())
			expect(last?.context.messages[i]).toBe(m);
	});
});
