/**
 * W5, the vendor SDKs' raw stream iteration — the reference: `@anthropic-ai/sdk` `messages.create({stream:
 * true})`, `openai` chat and responses `create({stream: true})`, `@google/genai` `generateContentStream`
 * (which takes no `fetch` option: the memory fetch is installed globally for the call).
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { eventText, type WireApi } from "./corpus.js";
import { type Decode, installGlobalFetch } from "./memory-fetch.js";

async function count(api: WireApi, events: AsyncIterable<unknown>): Promise<number> {
	let chars = 0;
	for await (const event of events) chars += eventText(api, event).length;
	return chars;
}

/** Decode one request through the vendor SDK of `api`. */
export function vendorDecoder(api: WireApi): Decode {
	if (api === "anthropic")
		return async (fetchFn) => {
			const client = new Anthropic({
				apiKey: "bench-key",
				baseURL: "http://bench.invalid",
				fetch: fetchFn,
				maxRetries: 0,
			});
			return count(
				api,
				await client.messages.create({ model: "m", max_tokens: 10, messages: [], stream: true }),
			);
		};
	if (api === "google-gemini")
		return async (fetchFn) => {
			const restore = installGlobalFetch(fetchFn);
			try {
				const ai = new GoogleGenAI({ apiKey: "bench-key", httpOptions: { baseUrl: "http://bench.invalid" } });
				// The SDK yields GenerateContentResponse objects with the wire fields: counted like the raw JSON.
				return count(api, await ai.models.generateContentStream({ model: "m", contents: "hi" }));
			} finally {
				restore();
			}
		};
	return async (fetchFn) => {
		const client = new OpenAI({
			apiKey: "bench-key",
			baseURL: "http://bench.invalid/v1",
			fetch: fetchFn,
			maxRetries: 0,
		});
		const events =
			api === "openai-chat"
				? await client.chat.completions.create({ model: "m", messages: [], stream: true })
				: await client.responses.create({ model: "m", input: "hi", stream: true });
		return count(api, events);
	};
}
