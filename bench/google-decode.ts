/**
 * Gemini decode throughput (issue 3, "Measure"): MB/s of recorded SSE turned into events, ours (SSE reader +
 * decoder + builder + every event consumed) versus iterating `@google/genai`'s raw chunk stream
 * (`models.generateContentStream`) over the same bytes. Both read from an in-memory `fetch` (the SDK takes
 * no `fetch` option, so the global one is swapped while it runs). Every Gemini and Vertex recording is used.
 * Run: `npx tsx bench/google-decode.ts`.
 */
import { GoogleGenAI } from "@google/genai";
import type { Model } from "../src/core/model.js";
import { streamGoogle } from "../src/providers/google/index.js";
import { fixturesFor, responseBodies } from "../test/providers/support/fixtures.js";

// The mid-stream error capture makes the SDK throw; it is left out of both sides.
const bodies = fixturesFor(["google-gemini", "google-vertex"])
	.filter((fixture) => !fixture.file.includes("error-mid-stream"))
	.flatMap(responseBodies);
const totalBytes = bodies.reduce((sum, body) => sum + body.byteLength, 0);

function memoryFetch(): typeof fetch {
	let next = 0;
	return (async () => {
		const body = bodies[next++ % bodies.length] as Uint8Array<ArrayBuffer>;
		return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
	}) as typeof fetch;
}

const model: Model = {
	id: "gemini-bench",
	api: "google-generative-ai",
	provider: "google",
	baseUrl: "http://bench.invalid/v1beta",
	reasoning: true,
	input: ["text"],
	contextWindow: 1_000_000,
	maxTokens: 8192,
	cost: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0 },
};

async function ours(rounds: number): Promise<number> {
	const fetchFn = memoryFetch();
	const start = performance.now();
	for (let round = 0; round < rounds; round++) {
		for (let i = 0; i < bodies.length; i++) {
			const stream = streamGoogle(model, { messages: [] }, { apiKey: "k", fetch: fetchFn });
			for await (const _event of stream) {
				// consume
			}
		}
	}
	return performance.now() - start;
}

async function sdk(rounds: number): Promise<number> {
	const original = globalThis.fetch;
	globalThis.fetch = memoryFetch();
	try {
		const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: "http://bench.invalid" } });
		const start = performance.now();
		for (let round = 0; round < rounds; round++) {
			for (let i = 0; i < bodies.length; i++) {
				const stream = await ai.models.generateContentStream({ model: "m", contents: "hi" });
				for await (const _chunk of stream) {
					// consume
				}
			}
		}
		return performance.now() - start;
	} finally {
		globalThis.fetch = original;
	}
}

/** Median MB/s of ours and of the SDK's raw chunk stream over the Gemini recordings. */
export async function googleDecodeThroughput(rounds = 20, samples = 5) {
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
	const result = await googleDecodeThroughput();
	console.log(
		`Gemini decode: ours ${result.oursMBps.toFixed(1)} MB/s, SDK raw chunks ${result.sdkMBps.toFixed(1)} MB/s (${(result.bytes / 1e6).toFixed(2)} MB of recordings) [target: ours ≥ SDK]`,
	);
}
