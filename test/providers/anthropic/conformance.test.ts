import { describe, expect, it } from "vitest";
import { ANTHROPIC_STOP_REASONS } from "../../../src/providers/anthropic/index.js";
import { mapStopReason } from "../../../src/providers/base/stop-reason.js";
import { callsOf, textBlocksOf } from "../support/content.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { anthropicFacts } from "./facts.js";
import { collect, testModel } from "./helpers.js";

const server = serverForFile();

const fixtures = fixturesFor(["anthropic-messages", "anthropic-messages-compatible"]);

describe("Anthropic conformance on recorded streams", () => {
	it("covers every anthropic fixture", () => {
		expect(fixtures.length).toBe(24);
	});

	for (const fixture of fixtures) {
		describe(fixture.file, () => {
			const bodies = responseBodies(fixture);
			for (const [index, body] of bodies.entries()) {
				for (const seed of [3, 11]) {
					it(`response ${index + 1}/${bodies.length}, split seed ${seed}`, async () => {
						const facts = anthropicFacts(body);
						server.enqueue({ type: "sse", body, split: { seed: seed + index, pieces: 32 } });
						// SPEC E3: nothing throws; the stream ends with exactly one terminal event.
						const { events, message } = await collect(testModel(server.baseUrl));
						expect(events[0]?.type).toBe("start");
						expect(events.filter((event) => event.type === "done" || event.type === "error")).toHaveLength(1);

						expect(textBlocksOf(message)).toEqual(facts.texts);
						const thinking = message.content.flatMap((block) =>
							block.type === "thinking"
								? [{ thinking: block.thinking, signature: block.signature ?? "" }]
								: [],
						);
						expect(thinking).toEqual(facts.thinking);
						expect(callsOf(message)).toEqual(facts.toolCalls);
						// A non-direct caller (programmatic tool calling) is kept for replay in the call's signature.
						const callers = message.content.flatMap((block) =>
							block.type === "toolCall" ? [block.signature ? JSON.parse(block.signature) : undefined] : [],
						);
						expect(callers).toEqual(facts.toolCallers);
						const providerTypes = message.content.flatMap((block) =>
							block.type === "providerBlock" ? [String((block.data as { type?: unknown }).type)] : [],
						);
						expect(providerTypes).toEqual(facts.providerBlockTypes);
						// Server-block payloads streamed as deltas (server_tool_use / mcp input, compaction content).
						const payloads = message.content.flatMap((block) =>
							block.type === "providerBlock" ? [block.data as { input?: unknown; content?: unknown }] : [],
						);
						for (const [i, payload] of payloads.entries()) {
							const recorded = facts.providerBlockPayloads[i] ?? {};
							if ("input" in recorded) expect(payload.input).toEqual(recorded.input);
							if ("content" in recorded) expect(payload.content).toEqual(recorded.content);
						}
						// Citations kept as metadata on their text block.
						const citations = message.content.flatMap((block) =>
							block.type === "text" ? [block.citations ?? []] : [],
						);
						expect(citations).toEqual(facts.citations);
						// SPEC M5: Anthropic's input already excludes cached tokens.
						expect({
							input: message.usage.input,
							output: message.usage.output,
							cacheRead: message.usage.cacheRead,
							cacheWrite: message.usage.cacheWrite,
						}).toEqual(facts.usage);
						expect(message.usage.cost.total).toBeGreaterThanOrEqual(0);
						expect(message.usage.reasoning).toBe(facts.reasoningTokens);
						// SPEC M4: the stop reason maps as the table says.
						const expected = mapStopReason(facts.stopReason, ANTHROPIC_STOP_REASONS);
						expect(message.stopReason).toBe(expected.reason);
						if (expected.details) expect(message.stopDetails?.type).toBe(expected.details.type);
					});
				}
			}
		});
	}
});
