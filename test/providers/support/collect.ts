/**
 * Running one provider stream to its end the way a consumer would: every event in order, the final message
 * from `result()`, and the text as it streamed. Also the SPEC E2 shape check every stream must pass.
 */
import type { AssistantMessageEvent, AssistantMessageEventStream } from "../../../src/core/events.js";
import type { AssistantMessage } from "../../../src/core/messages.js";

/** Everything one streamed call produced. */
export interface Collected {
	events: AssistantMessageEvent[];
	message: AssistantMessage;
	/** Concatenated `text_delta`s. */
	streamedText: string;
}

/** Drain `stream`, then await its result; fails the test if iteration or `result()` throws. */
export async function collectStream(stream: AssistantMessageEventStream): Promise<Collected> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	const message = await stream.result();
	const streamedText = events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
	return { events, message, streamedText };
}

/** SPEC E2 shape: one `start` first, exactly one terminal event last. Returns what is wrong, if anything. */
export function assertEventShape(events: AssistantMessageEvent[]): string | undefined {
	if (events[0]?.type !== "start") return `first event is ${events[0]?.type}`;
	const terminals = events.filter((event) => event.type === "done" || event.type === "error");
	if (terminals.length !== 1) return `${terminals.length} terminal events`;
	const last = events[events.length - 1];
	if (last?.type !== "done" && last?.type !== "error") return `last event is ${last?.type}`;
	return undefined;
}
