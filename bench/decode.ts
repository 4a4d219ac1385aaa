/**
 * Decode throughput per wire API (issue 3, "Measure"): MB/s of recorded SSE turned into events — ours (SSE
 * reader + decoder + builder, every event consumed) versus iterating the vendor SDK's raw event stream over the
 * same bytes. Both read from an in-memory `fetch`, so the network is not measured. Every recording of the API
 * (and its dialects) is served, one HTTP response per request. Run one: `npx tsx bench/decode.ts`.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import type { Model, StreamFunction } from "../src/core/model.js";
import { streamAnthropic } from "../src/providers/anthropic/index.js";
import { streamGoogle } from "../src/providers/google/index.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions/index.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses/index.js";
import { GEMINI_FOLDERS } from "../test/providers/google/facts.js";
import { CHAT_FOLDERS } from "../test/providers/openai-completions/facts.js";
import { RESPONSES_FOLDERS } from "../test/providers/openai-responses/facts.js";
import { fixturesFor, responseBodies } from "../test/providers/support/fixtures.js";
import { median } from "./core.js";

/** One API under measurement. `sdkRequest` issues one streaming request through the vendor SDK. */
interface DecodeSubject {
	label: string;
	folders: readonly string[];
	/** Recordings left out of both sides (e.g. one the SDK cannot read at all). */
	skip?: (file: string) => boolean;
	model: Model;
	stream: StreamFunction;
	sdk(fetchFn: typeof fetch): { request(): Promise<AsyncIterable<unknown>>; close?(): void };
}

const openAIClient = (fetchFn: typeof fetch) =>
	new OpenAI({ apiKey: "k", baseURL: "http://bench.invalid/v1", fetch: fetchFn, maxRetries: 0 });

const noCost = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 };
const benchModel = (api: string, provider: string, baseUrl: string): Model => ({
	id: "bench-model",
	api,
	provider,
	baseUrl,
	reasoning: true,
	input: ["text"],
	contextWindow: 200_000,
	maxTokens: 8192,
	cost: noCost,
});

const SUBJECTS: DecodeSubject[] = [
	{
		label: "Anthropic Messages",
		folders: ["anthropic-messages", "anthropic-messages-compatible"],
		model: benchModel("anthropic-messages", "anthropic", "http://bench.invalid"),
		stream: streamAnthropic,
		sdk: (fetchFn) => {
			const client = new Anthropic({
				apiKey: "k",
				baseURL: "http://bench.invalid",
				fetch: fetchFn,
				maxRetries: 0,
			});
			return {
				request: () => client.messages.create({ model: "m", max_tokens: 10, messages: [], stream: true }),
			};
		},
	},
	{
		label: "OpenAI Chat Completions",
		folders: CHAT_FOLDERS,
		// llama.cpp's in-stream error events make the SDK throw (and ours retry); left out of both sides.
		skip: (file) => file.includes("error-event"),
		model: benchModel("openai-completions", "openai", "http://bench.invalid/v1"),
		stream: streamOpenAICompletions,
		sdk: (fetchFn) => {
			const client = openAIClient(fetchFn);
			return { request: () => client.chat.completions.create({ model: "m", messages: [], stream: true }) };
		},
	},
	{
		label: "OpenAI Responses",
		folders: RESPONSES_FOLDERS,
		model: benchModel("openai-responses", "openai", "http://bench.invalid/v1"),
		stream: streamOpenAIResponses,
		sdk: (fetchFn) => {
			const client = openAIClient(fetchFn);
			return { request: () => client.responses.create({ model: "m", input: "hi", stream: true }) };
		},
	},
	{
		label: "Google Gemini",
		folders: GEMINI_FOLDERS,
		// The hand-assembled mid-stream error body makes the SDK throw; it is left out of both sides.
		skip: (file) => file.includes("error-mid-stream"),
		model: benchModel("google-generative-ai", "google", "http://bench.invalid/v1beta"),
		stream: streamGoogle,
		sdk: (fetchFn) => {
			// @google/genai takes no `fetch` option: the global one is swapped while it runs.
			const original = globalThis.fetch;
			globalThis.fetch = fetchFn;
			const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: "http://bench.invalid" } });
			return {
				request: () => ai.models.generateContentStream({ model: "m", contents: "hi" }),
				close: () => {
					globalThis.fetch = original;
				},
			};
		},
	},
];

function memoryFetch(bodies: readonly Uint8Array[]): typeof fetch {
	let next = 0;
	return (async () => {
		const body = bodies[next++ % bodies.length] as Uint8Array<ArrayBuffer>;
		return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
	}) as typeof fetch;
}

async function drain(events: AsyncIterable<unknown>): Promise<void> {
	for await (const _event of events) {
		// consume every event
	}
}

async function timeOurs(
	subject: DecodeSubject,
	bodies: readonly Uint8Array[],
	rounds: number,
): Promise<number> {
	const fetchFn = memoryFetch(bodies);
	const start = performance.now();
	for (let i = 0; i < rounds * bodies.length; i++) {
		await drain(subject.stream(subject.model, { messages: [] }, { apiKey: "k", fetch: fetchFn }));
	}
	return performance.now() - start;
}

async function timeSdk(
	subject: DecodeSubject,
	bodies: readonly Uint8Array[],
	rounds: number,
): Promise<number> {
	const client = subject.sdk(memoryFetch(bodies));
	try {
		const start = performance.now();
		for (let i = 0; i < rounds * bodies.length; i++) await drain(await client.request());
		return performance.now() - start;
	} finally {
		client.close?.();
	}
}

/** Median MB/s of ours and of the vendor SDK's raw stream, for one API. */
export async function decodeThroughput(subject: DecodeSubject, rounds = 10, samples = 5) {
	const bodies = fixturesFor(subject.folders)
		.filter((fixture) => !subject.skip?.(fixture.file))
		.flatMap(responseBodies);
	const bytes = bodies.reduce((sum, body) => sum + body.byteLength, 0);
	await timeOurs(subject, bodies, 1);
	await timeSdk(subject, bodies, 1);
	const mbps = (ms: number) => (bytes * rounds) / 1e6 / (ms / 1000);
	const ours: number[] = [];
	const sdk: number[] = [];
	for (let s = 0; s < samples; s++) {
		ours.push(mbps(await timeOurs(subject, bodies, rounds)));
		sdk.push(mbps(await timeSdk(subject, bodies, rounds)));
	}
	return { label: subject.label, bytes, oursMBps: median(ours), sdkMBps: median(sdk) };
}

/** Every API, one line each. */
export async function allDecodeThroughputs(print: (line: string) => void): Promise<void> {
	for (const subject of SUBJECTS) {
		const r = await decodeThroughput(subject);
		print(
			`decode ${r.label}: ours ${r.oursMBps.toFixed(1)} MB/s, SDK raw stream ${r.sdkMBps.toFixed(1)} MB/s = ${(r.oursMBps / r.sdkMBps).toFixed(2)}× (${(r.bytes / 1e6).toFixed(2)} MB of recordings) [target: ours ≥ SDK]`,
		);
	}
}

if (import.meta.url === `file://${process.argv[1]}`) await allDecodeThroughputs(console.log);
