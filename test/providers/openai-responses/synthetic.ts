/** Hand-written Responses stream pieces for the provider's SYNTHETIC tests. */
import { frameEvents } from "../support/fixtures.js";

/** SSE body from events (named, as api.openai.com sends them). SYNTHETIC streams only. */
export function sse(...events: Record<string, unknown>[]): string {
	return frameEvents("openai-responses", events);
}

/** SYNTHETIC stream piece. */
export const created = {
	type: "response.created",
	response: { id: "resp_syn", status: "in_progress", output: [] },
};
/** SYNTHETIC stream piece. */
export const messageAdded = {
	type: "response.output_item.added",
	output_index: 0,
	item: { id: "msg_syn", type: "message", role: "assistant", status: "in_progress", content: [] },
};
/** SYNTHETIC stream piece. */
export const partAdded = {
	type: "response.content_part.added",
	output_index: 0,
	content_index: 0,
	part: { type: "output_text", text: "", annotations: [] },
};
/** SYNTHETIC stream piece. */
export const delta = (text: string) => ({
	type: "response.output_text.delta",
	output_index: 0,
	content_index: 0,
	delta: text,
});
/** SYNTHETIC stream piece. */
export const usage = {
	input_tokens: 10,
	input_tokens_details: { cached_tokens: 4 },
	output_tokens: 5,
	output_tokens_details: { reasoning_tokens: 2 },
	total_tokens: 15,
};

/** SYNTHETIC: a complete reply of one text part. */
export function textReply(text: string): string {
	return sse(created, messageAdded, partAdded, delta(text), {
		type: "response.completed",
		response: { id: "resp_syn", status: "completed", output: [], usage },
	});
}
