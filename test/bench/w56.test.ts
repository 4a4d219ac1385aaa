// The helpers behind bench W5 (grown recordings, the in-memory fetch) and W6 (prefix shares, the pruning
// transform): they decide what the benchmark measures, so they are pinned here against the real recordings
// and capstan's real providers. (The bench's peer libraries are not installed for the suite.)
import { describe, expect, it } from "vitest";
import {
	checkConversation,
	commonPrefixLength,
	KEEP_RECENT,
	PRUNE_EVERY,
	PRUNED_TEXT,
	prefixShares,
	pruningTransform,
	scriptedChatReply,
	startConversationServer,
	TOOL_NAME,
	TURNS,
	WIRES,
	withoutCacheMarkers,
} from "../../bench/w56/conversation.js";
import { APIS, buildCorpus, eventText } from "../../bench/w56/corpus.js";
import { memoryFetch } from "../../bench/w56/memory-fetch.js";
import { capstanDecoder } from "../../bench/w56/w5-capstan.js";
import { capstanConversation, modelOn } from "../../bench/w56/w6-capstan.js";
import { streamOpenAICompletions } from "../../src/providers/openai-completions/index.js";
import { collectStream } from "../providers/support/collect.js";
import { allFixtures, recordedEvents, responseBodies } from "../providers/support/fixtures.js";

describe("bench W5 corpus", () => {
	for (const api of APIS) {
		it(`${api}: grows a recording to the size asked, keeping its own first and last events`, async () => {
			const corpus = buildCorpus(api, 1_000_000);
			expect(corpus.body.byteLength).toBeGreaterThanOrEqual(1_000_000);
			expect(corpus.repeats).toBeGreaterThan(1);
			const fixture = allFixtures().find((f) => f.file === corpus.source);
			const original = recordedEvents(responseBodies(fixture!)[0]!);
			const grown = recordedEvents(corpus.body);
			expect(grown[0]).toEqual(original[0]);
			expect(grown.at(-1)).toEqual(original.at(-1));
			expect(grown.length).toBeGreaterThan(original.length);
			const text = grown.reduce(
				(sum, e) => sum + (e.data === "[DONE]" ? 0 : eventText(api, JSON.parse(e.data)).length),
				0,
			);
			expect(text).toBe(corpus.textLength);
		});

		it(`${api}: capstan's real provider decodes every text character of it through the memory fetch`, async () => {
			const corpus = buildCorpus(api, 100_000);
			const served = memoryFetch(corpus.body);
			expect(await capstanDecoder(api)(served.fetch)).toBe(corpus.textLength);
			expect(served.requests()).toBe(1);
		});
	}
});

describe("bench W6 prefix shares", () => {
	const request = (body: string) => ({ method: "POST", path: "/v1/messages", headers: {}, body });

	it("counts the shared leading bytes, per previous and per current body", () => {
		expect(commonPrefixLength(Buffer.from("abcdef"), Buffer.from("abcxyz"))).toBe(3);
		const [share] = prefixShares([request('{"m":[1,2]}'), request('{"m":[1,2,3]}')]);
		expect(share).toMatchObject({ turn: 2, bytes: 13 });
		expect(share!.ofPrevious).toBeCloseTo(9 / 11);
		expect(share!.ofCurrent).toBeCloseTo(9 / 13);
	});

	it("can compare bodies without their cache_control markers (a moved breakpoint is not a content change)", () => {
		const marked = '{"a":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}';
		expect(withoutCacheMarkers(marked)).toBe('{"a":[{"type":"text","text":"x"}]}');
		// A marker inside a JSON string is escaped text, not a field: kept.
		const quoted = JSON.stringify({ text: ',"cache_control":{"type":"ephemeral"}' });
		expect(withoutCacheMarkers(quoted)).toBe(quoted);
		const [share] = prefixShares([
			request('{"m":[{"t":"a","cache_control":{"type":"ephemeral"}}]}'),
			request('{"m":[{"t":"a"},{"t":"b","cache_control":{"type":"ephemeral"}}]}'),
		]);
		expect(share!.ofPrevious).toBeLessThan(share!.ofPreviousUnmarked);
	});

	it("prunes all but the latest tool results on every 50th call and keeps the cut in between", () => {
		const pruning = pruningTransform<{ role: string; content?: unknown }>();
		const transcript = Array.from({ length: 60 }, (_, i) => ({ role: "toolResult", content: [`r${i}`] }));
		for (let call = 1; call < PRUNE_EVERY; call++) expect(pruning.transform(transcript)).toEqual(transcript);
		const pruned = pruning.transform(transcript);
		const cut = transcript.length - KEEP_RECENT;
		expect(pruned.slice(0, cut).every((m) => JSON.stringify(m.content).includes(PRUNED_TEXT))).toBe(true);
		expect(pruned.slice(cut)).toEqual(transcript.slice(cut));
		// The next call returns new pruned copies (transforms are not written back), same content.
		const again = pruning.transform(transcript);
		expect(again[0]).not.toBe(pruned[0]);
		expect(again).toEqual(pruned);
		expect(pruning.pruningTurns).toEqual([PRUNE_EVERY]);
		expect(pruning.calls()).toBe(PRUNE_EVERY + 1);
	});
});

describe("bench W6 on both wires", () => {
	it("the Chat Completions script decodes through capstan's real provider: a sentence and one lookup call, then the summary", async () => {
		const server = await startConversationServer("openai-completions");
		try {
			const context = { messages: [{ role: "user" as const, content: "go", timestamp: 0 }] };
			const first = await collectStream(
				streamOpenAICompletions(modelOn("openai-completions", server.baseUrl), context, { apiKey: "k" }),
			);
			expect(first.message.stopReason).toBe("toolUse");
			expect(first.message.content).toEqual([
				{ type: "text", text: "Looking up item 1." },
				expect.objectContaining({
					type: "toolCall",
					id: "call_0001",
					name: TOOL_NAME,
					arguments: { item: 1 },
				}),
			]);
			expect(server.requests[0]?.path).toBe("/v1/chat/completions");
		} finally {
			await server.close();
		}
		expect(scriptedChatReply(TURNS)).toContain('"finish_reason":"stop"');
		expect(scriptedChatReply(TURNS)).not.toContain("tool_calls");
	});

	it("a conversation that sent anything to another path, or fewer requests, is refused", () => {
		const ok = { method: "POST", path: "/v1/chat/completions", headers: {}, body: "{}" };
		const requests = Array.from({ length: TURNS }, () => ok);
		expect(() => checkConversation(requests, TURNS, "openai-completions")).not.toThrow();
		expect(() => checkConversation(requests, TURNS, "anthropic-messages")).toThrow(/went to/);
		expect(() => checkConversation(requests.slice(1), TURNS, "openai-completions")).toThrow(/requests/);
	});

	for (const wire of WIRES) {
		it(`SPEC X2: ${wire}, manager on — every non-pruning request repeats ≥ 99 % of the previous body as sent`, async () => {
			const run = await capstanConversation(true, wire);
			expect(run.pruningTurns).toEqual([50, 100, 150, 200]);
			const pruning = new Set(run.pruningTurns);
			const steady = run.shares.filter((share) => !pruning.has(share.turn));
			expect(steady).toHaveLength(TURNS - 1 - run.pruningTurns.length);
			const worst = steady.reduce((a, b) => (b.ofPrevious < a.ofPrevious ? b : a));
			expect({ turn: worst.turn, atLeast99: worst.ofPrevious >= 0.99 }).toEqual({
				turn: worst.turn,
				atLeast99: true,
			});
		});
	}
});
