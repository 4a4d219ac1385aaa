import { claimDelivery, releaseDelivery, releaseFailedDelivery } from "../core/event-stream.js";
import type { AgentMessage, AssistantMessage } from "../core/messages.js";
import type { AgentEvent } from "../protocol/events.js";
import type { RunState } from "./run-state.js";

/**
 * Push one event and keep the open-scope bookkeeping in step with it, so a failure anywhere can close
 * exactly the turns, messages and tool executions that are open (rule L4, L12).
 */
export function emit(state: RunState, event: AgentEvent): void {
	// The per-delta event first and alone: a `message_update` opens and closes nothing.
	if (event.type !== "message_update") trackOpenScopes(state.open, event);
	state.telemetry?.observe(event); // rule X3: the collector sees every event before subscribers do
	state.events.push(event);
}

/**
 * `emit` for the `message_update` of a streaming delta, nearly every event of a run, in a function of its own:
 * V8's code for it then sees only that one kind of event (see `ReplyDrain.handleEvent`), and its call into the
 * run's drain (the `Agent`'s, when there is one) is its own (see `claimDelivery`).
 */
export function emitDeltaUpdate(
	state: RunState,
	event: Extract<AgentEvent, { type: "message_update" }>,
): void {
	state.telemetry?.observe(event); // rule X3, as in `emit`
	const events = state.events;
	const sink = claimDelivery(events);
	if (sink === undefined) {
		events.push(event);
		return;
	}
	try {
		sink.handleEvent(event);
	} catch (error) {
		releaseFailedDelivery(events, error);
		return;
	}
	releaseDelivery(events);
}

function trackOpenScopes(open: RunState["open"], event: AgentEvent): void {
	switch (event.type) {
		case "turn_start":
			open.turn = true;
			break;
		case "turn_end":
			open.turn = false;
			break;
		case "message_start":
			open.message = event.message;
			break;
		case "message_end":
			open.message = undefined;
			break;
		case "tool_execution_start":
			open.toolExecutions.set(event.toolCallId, event.toolName);
			break;
		case "tool_execution_end":
			open.toolExecutions.delete(event.toolCallId);
			break;
	}
}

/** Append a message to the transcript and to what the run added. */
export function appendMessage(state: RunState, message: AgentMessage): void {
	state.messages.push(message);
	state.added.push(message);
}

/** Emit `message_start`/`message_end` for a complete message and append it (rule L2, L3). */
export function commitMessage(state: RunState, message: AgentMessage): void {
	emit(state, { type: "message_start", message });
	emit(state, { type: "message_end", message });
	appendMessage(state, message);
}

/** Replace a reply already in the transcript (rule T4 write-back of revised tool arguments). */
export function replaceMessage(state: RunState, previous: AssistantMessage, next: AssistantMessage): void {
	const index = state.messages.lastIndexOf(previous);
	if (index >= 0) state.messages[index] = next;
	const addedIndex = state.added.lastIndexOf(previous);
	if (addedIndex >= 0) state.added[addedIndex] = next;
	state.wireLog.replace(previous, next);
}
