/**
 * Reliability: truncated provider streams (SPEC E3, A4, L12, T13). Every recorded stream is cut at every SSE
 * event boundary and ±1 byte around it, and at seeded random byte offsets, then served over loopback HTTP
 * both with a clean close and with a TCP reset after the cut. The reply must end as a clean error (stopReason
 * `error`, an error text and kind, one terminal event, only tool calls that completed) that the loop pairs
 * with placeholders — or, when the cut falls after a complete stream, equal the whole stream's result.
 *
 * Known limit: Gemini streams (google-gemini, google-vertex) have no end marker. A cut right after the chunk
 * that carries `finishReason` is indistinguishable from a complete stream, and is accepted as one.
 *
 * Cut points per recording are capped at `TRUNCATION_CUTS` (default 36, spread evenly over the boundaries,
 * always including the last ones); `TRUNCATION_CUTS=all` sweeps every boundary (a long local run).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
	AssistantMessage,
	AssistantMessageEvent,
	AssistantMessageEventStream,
	StreamFunction,
} from "../../src/index.js";
import { agentLoop } from "../../src/index.js";
import { streamAnthropic } from "../../src/providers/anthropic/index.js";
import { streamGoogle } from "../../src/providers/google/index.js";
import { streamOpenAICompletions } from "../../src/providers/openai-completions/index.js";
import { streamOpenAIResponses } from "../../src/providers/openai-responses/index.js";
import { assertEventShape, collectStream } from "../providers/support/collect.js";
import {
	allFixtures,
	type FixtureInfo,
	responseBodies,
	seededRandom,
} from "../providers/support/fixtures.js";
import { type TestApi, testModel } from "../providers/support/models.js";
import { type ReplayServer, startReplayServer } from "../providers/support/replay-server.js";
import { assertPaired } from "../support/trace.js";

const LIMIT =
	process.env.TRUNCATION_CUTS === "all"
		? Number.POSITIVE_INFINITY
		: Number(process.env.TRUNCATION_CUTS ?? 36);

const PROVIDERS: [prefix: string, api: TestApi, stream: StreamFunction][] = [
	["anthropic-messages", "anthropic-messages", streamAnthropic],
	["openai-chat", "openai-completions", streamOpenAICompletions],
	["openai-compatible-", "openai-completions", streamOpenAICompletions],
	["openai-responses", "openai-responses", streamOpenAIResponses],
	["google-gemini", "google-generative-ai", streamGoogle],
	["google-vertex", "google-generative-ai", streamGoogle],
];

function providerOf(fixture: FixtureInfo) {
	const found = PROVIDERS.find(([prefix]) => fixture.api.startsWith(prefix));
	return found ? { api: found[1], stream: found[2] } : undefined;
}

/** Byte offsets just after each SSE event (a blank line: LF LF or CR LF CR LF). */
function eventBoundaries(body: Uint8Array): number[] {
	const ends: number[] = [];
	for (let i = 1; i < body.length; i++) {
		if (body[i] !== 0x0a) continue;
		if (body[i - 1] === 0x0a || (body[i - 1] === 0x0d && body[i - 2] === 0x0a)) ends.push(i + 1);
	}
	return ends;
}

/** Boundaries ±1 byte (capped, spread evenly, the last ones always in) and 6 seeded random offsets. */
function cutPoints(body: Uint8Array, seed: number): number[] {
	let boundaries = eventBoundaries(body);
	if (boundaries.length * 3 > LIMIT) {
		const keep = Math.max(1, Math.floor(LIMIT / 3));
		const step = boundaries.length / keep;
		boundaries = [
			...Array.from({ length: keep }, (_, i) => boundaries[Math.floor(i * step)] as number),
			...boundaries.slice(-2),
		];
	}
	const random = seededRandom(seed);
	const cuts = new Set<number>(boundaries.flatMap((b) => [b - 1, b, b + 1]));
	for (let i = 0; i < 6; i++) cuts.add(1 + Math.floor(random() * (body.length - 1)));
	return [...cuts].filter((cut) => cut > 0 && cut < body.length).sort((a, b) => a - b);
}

const OPTIONS = { apiKey: "test-key", maxRetries: 0, retryBaseDelayMs: 1 };
const HELLO = { messages: [{ role: "user" as const, content: "hi", timestamp: 1 }] };

let server: ReplayServer;
beforeAll(async () => {
	server = await startReplayServer();
});
afterAll(async () => {
	await server.close();
});

async function decode(
	stream: StreamFunction,
	api: TestApi,
	response: Parameters<ReplayServer["enqueue"]>[0],
) {
	server.enqueue(response);
	const { events, message } = await collectStream(stream(testModel(api, server.baseUrl), HELLO, OPTIONS));
	return { events, message: { ...message, timestamp: 0 } };
}

/** SPEC T13, L12: the loop takes the provider's events and pairs every tool call left in the reply. */
async function pairedByTheLoop(events: AssistantMessageEvent[], message: AssistantMessage): Promise<void> {
	const replay = {
		async *[Symbol.asyncIterator]() {
			yield* events;
		},
	} as unknown as AssistantMessageEventStream;
	const stream = agentLoop(
		[{ role: "user", content: "hi", timestamp: 1 }],
		{ messages: [], tools: [] },
		{ model: testModel("anthropic-messages", server.baseUrl), streamFn: () => replay, now: () => 0 },
	);
	for await (const _event of stream);
	const transcript = await stream.result();
	assertPaired(transcript);
	expect((transcript[1] as AssistantMessage).stopReason).toBe(message.stopReason);
}

function expectCleanError(events: AssistantMessageEvent[], message: AssistantMessage, where: string): void {
	expect(assertEventShape(events), where).toBeUndefined();
	expect(message.stopReason, where).toBe("error");
	expect(message.errorMessage, where).toBeTruthy();
	expect(message.errorKind ?? message.stopDetails?.type, `${where}: ${message.errorMessage}`).toBeTruthy();
	const ended = new Set(events.flatMap((e) => (e.type === "toolcall_end" ? [e.toolCall.id] : [])));
	for (const block of message.content)
		if (block.type === "toolCall") expect(ended.has(block.id), `${where}: unfinished call kept`).toBe(true);
}

/** Gemini and Chat Completions: a complete line before the cut already carried the finish reason. */
function endsAfterFinish(fixture: FixtureInfo, partial: Uint8Array): boolean {
	// A client at end of stream dispatches an event whose lines are complete even without the blank line.
	const text = new TextDecoder().decode(partial);
	const complete = text.slice(0, text.lastIndexOf("\n") + 1);
	if (fixture.api.startsWith("google-")) return /"finishReason"\s*:\s*"/.test(complete);
	if (fixture.api === "openai-chat" || fixture.api.startsWith("openai-compatible-"))
		return /"finish_reason"\s*:\s*"/.test(complete);
	return false;
}

const fixtures = allFixtures().filter((fixture) => providerOf(fixture) !== undefined);

describe("reliability: every recorded stream cut short, over loopback (SPEC E3, A4, L12, T13)", () => {
	it("covers the recordings of all four wire APIs", () => {
		expect(fixtures.length).toBeGreaterThan(60);
	});

	it.each(fixtures.map((fixture, i) => [fixture.file, fixture, i] as const))(
		"%s: a clean close or a TCP reset at any cut ends as a clean error or as the whole result",
		async (_name, fixture, index) => {
			const provider = providerOf(fixture);
			if (!provider) return;
			const body = responseBodies(fixture)[0] as Uint8Array;
			const whole = await decode(provider.stream, provider.api, { type: "sse", body, split: false });
			let pairedChecks = 0;
			for (const cut of cutPoints(body, index + 1)) {
				const partial = body.slice(0, cut);
				for (const mode of ["close", "reset"] as const) {
					const where = `${fixture.file} cut at ${cut}/${body.length} (${mode})`;
					const { events, message } = await decode(
						provider.stream,
						provider.api,
						mode === "close" ? { type: "sse", body: partial, split: false } : { type: "reset", partial },
					);
					// Only a cut after a complete stream may succeed, and then it is the whole stream's result…
					if (JSON.stringify(message) === JSON.stringify(whole.message)) continue;
					// …except where the wire has no reliable end marker (module comment): after a chunk that carries
					// the finish reason, the cut reads as a complete reply (without what came later, e.g. usage).
					if (message.stopReason !== "error" && endsAfterFinish(fixture, partial)) {
						expect(assertEventShape(events), where).toBeUndefined();
						expect(message.stopReason, where).not.toBe("aborted");
						continue;
					}
					expectCleanError(events, message, where);
					if (pairedChecks++ < 3) await pairedByTheLoop(events, message);
				}
			}
		},
		120_000,
	);
});
