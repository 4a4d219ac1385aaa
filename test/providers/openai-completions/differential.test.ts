/**
 * Differential check against the vendor's own accumulator: `openai` 6.x `client.chat.completions.stream(...)`
 * → `finalChatCompletion()`, pointed (baseURL) at the same loopback server replaying the same bytes as ours.
 * Text, reasoning, tool calls (id, name, parsed arguments) and usage must agree. Where they do not, the
 * recording decides — conformance.test.ts pins ours to the recording — and the case is listed below as a known
 * SDK fault: the fault is applied to our (recording-exact) view and the SDK must then match it exactly, so the
 * listed fault is the ONLY disagreement. Our side is never loosened to match the SDK.
 */
import OpenAI from "openai";
import type { ChatCompletion } from "openai/resources/chat/completions/completions";
import { beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../../src/core/messages.js";
import type { TokenCounts } from "../../../src/providers/base/usage.js";
import { normalizeUsage } from "../../../src/providers/openai-completions/index.js";
import { callsOf, textOf, thinkingOf } from "../support/content.js";
import { fixturesFor, recordedEvents, responseBodies } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";
import { CHAT_FOLDERS, chatFacts } from "./facts.js";
import { collect, testModel } from "./helpers.js";

type Json = Record<string, unknown>;

/** What both sides are compared on. */
interface View {
	text: string;
	reasoning: string;
	toolCalls: { id: string; name: string; arguments: unknown }[];
	usage: TokenCounts | null;
}

/** The deltas (choice 0) of a recorded body. */
function deltasOf(body: Uint8Array): Json[] {
	return recordedEvents(body)
		.filter((event) => event.data !== "[DONE]")
		.flatMap((event) => ((JSON.parse(event.data) as Json).choices as Json[] | undefined) ?? [])
		.map((choice) => (choice.delta ?? {}) as Json);
}

/** SDK faults seen on these recordings, each as "what the SDK shows instead of the recording's truth". */
const SDK_FAULTS = {
	/** Unknown delta fields are `Object.assign`ed, so only the last chunk's `reasoning_content`/`reasoning` survives. */
	reasoningKeptFromLastChunkOnly: (ours: View, body: Uint8Array): View => {
		let last: unknown = null;
		for (const delta of deltasOf(body)) {
			if ("reasoning_content" in delta) last = delta.reasoning_content;
			if ("reasoning" in delta) last = delta.reasoning;
		}
		return { ...ours, reasoning: typeof last === "string" ? last : "" };
	},
	/** A later chunk with `"usage": null` (Azure/OpenAI moderation chunk) overwrites the real usage. */
	usageErasedByLaterNull: (ours: View): View => ({ ...ours, usage: null }),
	/** A tool call sent without `index` (Mistral) is dropped. */
	toolCallWithoutIndexDropped: (ours: View): View => ({ ...ours, toolCalls: [] }),
	/** Array `content` (Mistral magistral) is string-concatenated: "[object Object]"; its thinking is lost. */
	arrayContentStringified: (ours: View, body: Uint8Array): View => {
		let text = "";
		for (const delta of deltasOf(body)) if (delta.content != null) text += String(delta.content);
		return { ...ours, text, reasoning: "" };
	},
};

/** Fixture file → the SDK faults seen there. */
const KNOWN_SDK_FAULTS: Record<string, ((ours: View, body: Uint8Array) => View)[]> = {
	"openai-compatible-xai/xai-tool-call.chunks.txt": [SDK_FAULTS.reasoningKeptFromLastChunkOnly],
	"openai-compatible-deepseek/deepseek-reasoning.chunks.txt": [SDK_FAULTS.reasoningKeptFromLastChunkOnly],
	"openai-compatible-deepseek/deepseek-tool-call.chunks.txt": [SDK_FAULTS.reasoningKeptFromLastChunkOnly],
	"openai-compatible-openrouter/test_openrouter_streaming_reasoning.sse": [
		SDK_FAULTS.reasoningKeptFromLastChunkOnly,
	],
	"openai-chat/test_openai_moderation_stream.sse": [SDK_FAULTS.usageErasedByLaterNull],
	"openai-compatible-mistral/mistral-tool-call.chunks.txt": [SDK_FAULTS.toolCallWithoutIndexDropped],
	"openai-compatible-mistral/test_mistral_model_thinking_part_iter.sse": [SDK_FAULTS.arrayContentStringified],
};

/** Fixtures on which the SDK's accumulator throws instead of returning a completion. */
const KNOWN_SDK_CRASHES: Record<string, RegExp> = {
	// The only tool call starts at `index` 1; the SDK indexes `tool_calls[1]` of a one-element array.
	"openai-compatible-anthropic/anthropic-fallback-tool-call.sse": /Cannot read properties of undefined/,
};

const server = serverForFile();
let client: OpenAI;
beforeAll(() => {
	client = new OpenAI({ apiKey: "test-key", baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
});

function ourView(message: AssistantMessage): View {
	const { input, output, cacheRead, cacheWrite, reasoning } = message.usage;
	const usage: TokenCounts = { input, output, cacheRead, cacheWrite };
	if (reasoning !== undefined) usage.reasoning = reasoning;
	return { text: textOf(message), reasoning: thinkingOf(message), toolCalls: callsOf(message), usage };
}

function sdkView(completion: ChatCompletion): View {
	const message = completion.choices[0]?.message as (ChatCompletion.Choice["message"] & Json) | undefined;
	const str = (value: unknown): string => (typeof value === "string" ? value : "");
	return {
		text: str(message?.content) + str(message?.refusal),
		reasoning: str(message?.reasoning_content) || str(message?.reasoning),
		toolCalls: (message?.tool_calls ?? []).flatMap((call) =>
			call.type === "function"
				? [{ id: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments || "{}") }]
				: [],
		),
		usage: completion.usage ? normalizeUsage(completion.usage) : null,
	};
}

const fixtures = fixturesFor(CHAT_FOLDERS);

describe("differential: ours vs openai 6.x ChatCompletionStream.finalChatCompletion()", () => {
	for (const fixture of fixtures) {
		it(fixture.file, async () => {
			const [body] = responseBodies(fixture);
			if (!body) throw new Error("no body");
			server.enqueue({ type: "sse", body, split: { seed: 5, pieces: 24 } });
			const { message } = await collect(testModel(`${server.baseUrl}/v1`), { maxRetries: 0 });
			// Ours equals the recording (the full check is in conformance.test.ts).
			const facts = chatFacts(body);
			// A recording without usage: ours reads zero tokens, the SDK `null`; the same fact.
			const ours = facts.usage ? ourView(message) : { ...ourView(message), usage: null };
			expect({ text: ours.text, reasoning: ours.reasoning, toolCalls: ours.toolCalls }).toEqual({
				text: facts.text,
				reasoning: facts.thinking,
				toolCalls: facts.toolCalls,
			});

			server.enqueue({ type: "sse", body, split: { seed: 5, pieces: 24 } });
			const sdk = client.chat.completions
				.stream({
					model: "m",
					messages: [{ role: "user", content: "hi" }],
					stream_options: { include_usage: true },
				})
				.finalChatCompletion();
			// An in-stream error event (llama.cpp): both sides end in that error, ours with the text before it kept.
			if (facts.error) {
				expect(message.errorMessage).toBe(facts.error.message);
				await expect(sdk).rejects.toThrow(String(facts.error.message));
				return;
			}
			const crash = KNOWN_SDK_CRASHES[fixture.file];
			if (crash) {
				await expect(sdk).rejects.toThrow(crash);
				return;
			}
			const expected = (KNOWN_SDK_FAULTS[fixture.file] ?? []).reduce(
				(view, fault) => fault(view, body),
				ours,
			);
			expect(sdkView(await sdk)).toEqual(expected);
		});
	}
});
