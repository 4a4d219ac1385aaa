/**
 * OpenAI Responses decode throughput (issue 3, "Measure"): MB/s of recorded SSE turned into events, ours (SSE
 * reader + decoder + builder + every event consumed) versus iterating the `openai` SDK's raw event stream
 * (`responses.create({stream: true})`) over the same bytes. Both read from an in-memory `fetch`, so the
 * network is not measured. Every Responses recording (and dialect) is used, one HTTP response at a time.
 * Run: `npx tsx bench/openai-responses-decode.ts`.
 */
import OpenAI from "openai";
import type { Model } from "../src/core/model.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses/index.js";
import { fixturesFor, responseBodies } from "../test/providers/support/fixtures.js";

const bodies = fixturesFor([
	"openai-responses",
	"openai-responses-compatible-openrouter",
	"openai-responses-compatible-lmstudio",
	"openai-responses-compatible-xai",
	"openai-responses-compatible-deepseek",
]).flatMap(responseBodies);
const totalBytes = bodies.reduce((sum, body) => sum + body.byteLength, 0);

function memoryFetch(): typeof fetch {
	let next = 0;
	return (async () => {
		const body = bodies[next++ % bodies.length] as Uint8Array<ArrayBuffer>;
		return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
	}) as typeof fetch;
}

const model: Model = {
	id: "gpt-bench",
	api: "openai-responses",
	provider: "openai",
	baseUrl: "http://bench.invalid/v1",
	reasoning: true,
	input: ["text"],
	contextWindow: 400_000,
	maxTokens: 8192,
	cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
};

async function ours(rounds: number): Promise<number> {
	const fetchFn = memoryFetch();
	const start = performance.now();
	for (let round = 0; round < rounds; round++) {
		for (let i = 0; i < bodies.length; i++) {
			const stream = streamOpenAIResponses(model, { messages: [] }, { apiKey: "k", fetch: fetchFn });
			for await (const _event of stream) {
				// consume
			}
		}
	}
	return performance.now() - start;
}

async function sdk(rounds: number): Promise<number> {
	const client = new OpenAI({
		apiKey: "k",
		baseURL: "http://bench.invalid/v1",
		fetch: memoryFetch(),
		maxRetries: 0,
	});
	const start = performance.now();
	for (let round = 0; round < rounds; round++) {
		for (let i = 0; i < bodies.length; i++) {
			const stream = await client.responses.create({ model: "m", input: "hi", stream: true });
			for await (const _event of stream) {
				// consume
			}
		}
	}
	return performance.now() - start;
}

/** Median MB/s of ours and of the SDK's raw event stream over the Responses recordings. */
export async function openAIResponsesDecodeThroughput(rounds = 10, samples = 5) {
	await ours(1);
	await sdk(1);
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
	const result = await openAIResponsesDecodeThroughput();
	console.log(
		`Responses decode: ours ${result.oursMBps.toFixed(1)} MB/s, SDK raw events ${result.sdkMBps.toFixed(1)} MB/s (${(result.bytes / 1e6).toFixed(2)} MB of recordings) [target: ours ≥ SDK]`,
	);
}
