/**
 * Anthropic decode throughput (issue 3, "Measure"): MB/s of recorded SSE turned into events, ours (SSE reader +
 * decoder + builder + every event consumed) versus iterating `@anthropic-ai/sdk`'s raw event stream over the
 * same bytes. Both read from an in-memory `fetch`, so the network is not measured. Run: `npx tsx bench/anthropic-decode.ts`.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { Model } from "../src/core/model.js";
import { streamAnthropic } from "../src/providers/anthropic/index.js";
import { fixturesFor, responseBodies } from "../test/providers/support/fixtures.js";

const bodies = fixturesFor(["anthropic-messages", "anthropic-messages-compatible"]).flatMap(responseBodies);
const totalBytes = bodies.reduce((sum, body) => sum + body.byteLength, 0);

function memoryFetch(): typeof fetch {
	let next = 0;
	return (async () => {
		const body = bodies[next++ % bodies.length] as Uint8Array;
		return new Response(body as Uint8Array<ArrayBuffer>, {
			status: 200,
			headers: { "content-type": "text/event-stream" },
		});
	}) as typeof fetch;
}

const model: Model = {
	id: "claude-bench",
	api: "anthropic-messages",
	provider: "anthropic",
	baseUrl: "http://bench.invalid",
	reasoning: true,
	input: ["text"],
	contextWindow: 200_000,
	maxTokens: 8192,
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

async function ours(rounds: number): Promise<number> {
	const fetchFn = memoryFetch();
	const start = performance.now();
	for (let round = 0; round < rounds; round++) {
		for (let i = 0; i < bodies.length; i++) {
			const stream = streamAnthropic(model, { messages: [] }, { apiKey: "k", fetch: fetchFn });
			for await (const _event of stream) {
				// consume
			}
		}
	}
	return performance.now() - start;
}

async function sdk(rounds: number): Promise<number> {
	const client = new Anthropic({
		apiKey: "k",
		baseURL: "http://bench.invalid",
		fetch: memoryFetch(),
		maxRetries: 0,
	});
	const start = performance.now();
	for (let round = 0; round < rounds; round++) {
		for (let i = 0; i < bodies.length; i++) {
			const stream = await client.messages.create({ model: "m", max_tokens: 10, messages: [], stream: true });
			for await (const _event of stream) {
				// consume
			}
		}
	}
	return performance.now() - start;
}

/** Median MB/s of ours and of the SDK's raw event stream over every Anthropic recording. */
export async function anthropicDecodeThroughput(rounds = 20, samples = 5) {
	await ours(2);
	await sdk(2);
	const mbps = (ms: number) => (totalBytes * rounds) / 1e6 / (ms / 1000);
	const oursRuns: number[] = [];
	const sdkRuns: number[] = [];
	for (let s = 0; s < samples; s++) {
		oursRuns.push(mbps(await ours(rounds)));
		sdkRuns.push(mbps(await sdk(rounds)));
	}
	const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
	return { bytes: totalBytes, oursMBps: median(oursRuns), sdkMBps: median(sdkRuns) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const result = await anthropicDecodeThroughput();
	console.log(
		`Anthropic decode: ours ${result.oursMBps.toFixed(1)} MB/s, SDK raw events ${result.sdkMBps.toFixed(1)} MB/s (${(result.bytes / 1e6).toFixed(2)} MB of recordings) [target: ours ≥ SDK]`,
	);
}
