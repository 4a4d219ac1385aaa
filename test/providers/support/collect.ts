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
export function collectStream(stream: AssistantMessageEventStream): Promise<Collected> {
	return drain(stream, () => {});
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

/**
 * Start a stream with an abort signal, abort it with `reason` as soon as text streams (a user pressing stop
 * mid-reply, SPEC A1, A2), and collect it to the end.
 */
export async function collectAbortedAtText(
	start: (signal: AbortSignal) => AssistantMessageEventStream,
	reason: string,
): Promise<Collected> {
	const controller = new AbortController();
	return drain(start(controller.signal), (event) => {
		if (event.type === "text_delta") controller.abort(reason);
	});
}

async function drain(
	stream: AssistantMessageEventStream,
	onEvent: (event: AssistantMessageEvent) => void,
): Promise<Collected> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) {
		events.push(event);
		onEvent(event);
	}
	const message = await stream.result();
	const streamedText = events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
	return { events, message, streamedText };
}
