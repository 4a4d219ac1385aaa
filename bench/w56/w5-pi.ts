/**
 * W5, pi-ai: its provider stream functions. They take no `fetch` option (each builds the vendor SDK client
 * it wraps), so the memory fetch is installed as the global one for the call.
 */
import { type Api, getModel, type Model } from "@mariozechner/pi-ai";
import { streamAnthropic } from "@mariozechner/pi-ai/anthropic";
import { streamGoogle } from "@mariozechner/pi-ai/google";
import { streamOpenAICompletions } from "@mariozechner/pi-ai/openai-completions";
import { streamOpenAIResponses } from "@mariozechner/pi-ai/openai-responses";
import type { WireApi } from "./corpus.js";
import { type Decode, installGlobalFetch } from "./memory-fetch.js";

type AnyStream = (
	model: Model<Api>,
	context: { messages: { role: "user"; content: string; timestamp: number }[] },
	options: { apiKey: string },
) => AsyncIterable<{ type: string; delta?: string; error?: { errorMessage?: string } }>;

function subject(api: WireApi): { model: Model<Api>; stream: AnyStream } {
	const as = <M>(model: M, baseUrl: string) => ({ ...model, baseUrl }) as unknown as Model<Api>;
	if (api === "anthropic")
		return {
			model: as(getModel("anthropic", "claude-sonnet-4-5"), "http://bench.invalid"),
			stream: streamAnthropic as unknown as AnyStream,
		};
	if (api === "openai-chat")
		return {
			model: as(
				{ ...getModel("openai", "gpt-4o-mini"), api: "openai-completions" },
				"http://bench.invalid/v1",
			),
			stream: streamOpenAICompletions as unknown as AnyStream,
		};
	if (api === "openai-responses")
		return {
			model: as(getModel("openai", "gpt-4o-mini"), "http://bench.invalid/v1"),
			stream: streamOpenAIResponses as unknown as AnyStream,
		};
	return {
		model: as(getModel("google", "gemini-2.5-flash"), "http://bench.invalid/v1beta"),
		stream: streamGoogle as unknown as AnyStream,
	};
}

/** Decode one request through pi-ai's provider for `api`. */
export function piDecoder(api: WireApi): Decode {
	const { model, stream } = subject(api);
	return async (fetchFn) => {
		const restore = installGlobalFetch(fetchFn);
		try {
			let chars = 0;
			const events = stream(
				model,
				{ messages: [{ role: "user", content: "hi", timestamp: 0 }] },
				{ apiKey: "bench-key" },
			);
			for await (const event of events) {
				if (event.type === "text_delta") chars += event.delta?.length ?? 0;
				if (event.type === "error") throw new Error(`pi-ai ${api}: ${event.error?.errorMessage}`);
			}
			return chars;
		} finally {
			restore();
		}
	};
}
