/**
 * AI SDK mock models for the bridge tests: the AI SDK's own `MockLanguageModelV3` (ai 6) and
 * `MockLanguageModelV2` (ai 5), fed with real stream parts through the SDK's `simulateReadableStream`.
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { MockLanguageModelV2 } from "ai-v5/test";
import type { AssistantMessageEvent } from "../../src/core/events.js";

/** A V3 mock answering each call with the next list of parts. */
export function mockV3(...replies: LanguageModelV3StreamPart[][]): MockLanguageModelV3 {
	return new MockLanguageModelV3({
		provider: "mock.v3",
		modelId: "mock-model-v3",
		doStream: replies.map((chunks) => ({
			stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
		})),
	});
}

/** V2 stream parts as ai 5's own copy of `@ai-sdk/provider` types them (what an AI SDK 5 provider emits). */
export type V2Part =
	Awaited<ReturnType<MockLanguageModelV2["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

/** A V2 mock answering each call with the next list of parts. */
export function mockV2(...replies: V2Part[][]): MockLanguageModelV2 {
	return new MockLanguageModelV2({
		provider: "mock.v2",
		modelId: "mock-model-v2",
		doStream: replies.map((chunks) => ({
			stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
		})),
	});
}

/** V3 usage with every counter given. */
export function usageV3(input: number, cacheRead: number, output: number, reasoning = 0) {
	return {
		inputTokens: { total: input + cacheRead, noCache: input, cacheRead, cacheWrite: 0 },
		outputTokens: { total: output, text: output - reasoning, reasoning },
	};
}

/** A V3 finish part. */
export function finishV3(
	unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other",
	raw?: string,
) {
	return {
		type: "finish" as const,
		finishReason: { unified, raw },
		usage: usageV3(10, 0, 5),
	};
}

/** The event types of a stream, as a compact trace (STYLE 7). */
export function trace(events: readonly AssistantMessageEvent[]): string {
	return events.map((event) => event.type).join(" ");
}
