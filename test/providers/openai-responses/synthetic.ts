/** Hand-written Responses streams and a per-test loopback server for the provider's SYNTHETIC tests. */
import { afterEach } from "vitest";
import { type ReplayServer, type ScriptedResponse, startReplayServer } from "../support/replay-server.js";

let server: ReplayServer | undefined;

/** Close the test's server after each test; call once at the top of a test file. */
export function closeServerAfterEach(): void {
	afterEach(async () => {
		await server?.close();
		server = undefined;
	});
}

/** Start this test's server with a script. */
export async function serve(...script: ScriptedResponse[]): Promise<ReplayServer> {
	server = await startReplayServer(script);
	return server;
}

/** SSE body from events (named, as api.openai.com sends them). SYNTHETIC streams only. */
export function sse(...events: Record<string, unknown>[]): string {
	return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
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
