/**
 * SYNTHETIC Chat Completions streams for cases no real recording covers (the fixtures README lists none for
 * `content_filter`, and the Groq `event: error` / OpenRouter in-chunk error shapes are described but not
 * recorded). They follow the documented wire shapes.
 */

type Json = Record<string, unknown>;

/** One `data:` frame of a chat.completion.chunk with choice 0 carrying `delta`. */
export function chunk(delta: Json, finishReason: string | null = null, extra: Json = {}): string {
	const body = {
		id: "chatcmpl-synthetic",
		object: "chat.completion.chunk",
		created: 1,
		model: "m",
		choices: [{ index: 0, delta, finish_reason: finishReason }],
		...extra,
	};
	return `data: ${JSON.stringify(body)}\n\n`;
}

/** The final usage chunk (`choices: []`). */
export function usageChunk(prompt: number, completion: number): string {
	return `data: ${JSON.stringify({
		id: "chatcmpl-synthetic",
		object: "chat.completion.chunk",
		created: 1,
		model: "m",
		choices: [],
		usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
	})}\n\n`;
}

/** The `[DONE]` sentinel. */
export const DONE = "data: [DONE]\n\n";

/** A complete plain-text reply. */
export function textReply(text: string): string {
	return (
		chunk({ role: "assistant", content: "" }) +
		chunk({ content: text }) +
		chunk({}, "stop") +
		usageChunk(5, 2) +
		DONE
	);
}
