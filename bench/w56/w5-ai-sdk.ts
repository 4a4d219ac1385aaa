/**
 * W5, the AI SDK: each provider's `LanguageModelV3.doStream` (the provider path `streamText` sits on), with
 * the memory fetch passed as the provider's `fetch` option; every stream part is read.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import type { WireApi } from "./corpus.js";
import type { Decode } from "./memory-fetch.js";

function languageModel(api: WireApi, fetchFn: typeof fetch) {
	const apiKey = "bench-key";
	if (api === "anthropic")
		return createAnthropic({ apiKey, baseURL: "http://bench.invalid/v1", fetch: fetchFn })(
			"claude-sonnet-4-5",
		);
	if (api === "google-gemini")
		return createGoogleGenerativeAI({ apiKey, baseURL: "http://bench.invalid/v1beta", fetch: fetchFn })(
			"gemini-2.5-flash",
		);
	const openai = createOpenAI({ apiKey, baseURL: "http://bench.invalid/v1", fetch: fetchFn });
	return api === "openai-chat" ? openai.chat("gpt-4o-mini") : openai.responses("gpt-4o-mini");
}

/** Decode one request through the AI SDK provider for `api`. */
export function aiSdkDecoder(api: WireApi): Decode {
	return async (fetchFn) => {
		const { stream } = await languageModel(api, fetchFn).doStream({
			prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
		});
		let chars = 0;
		const reader = stream.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			if (value.type === "text-delta") chars += value.delta.length;
			if (value.type === "error") throw new Error(`AI SDK ${api}: ${String(value.error)}`);
		}
		return chars;
	};
}
