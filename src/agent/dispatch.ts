import type { EventSink } from "../core/event-stream.js";
import { type AgentMessage, type AssistantMessage, toolCallsOf } from "../core/messages.js";
import type { AgentEvent } from "../protocol/events.js";
import type { AgentState } from "./agent.js";

/** An `Agent`'s subscribers. */
export type Listener = (event: AgentEvent) => void;

/** The constructor of every `async` function. */
const AsyncFunction = (async () => {}).constructor;

/**
 * The subscriber list, copied on write: delivering an event walks a plain array (no iterator per event), and
 * a subscriber that subscribes or unsubscribes while an event is being delivered changes the list for the
 * events after it — except that one unsubscribed mid-delivery is not called again, even for this event.
 */
export class Subscribers {
	/** The current list: replaced on every change, never mutated (a field, not a getter: read per event). */
	list: readonly Listener[] = [];
	/** The one wrapper of each `async` listener, so subscribing it twice is still one subscription. */
	private readonly wrappers = new WeakMap<Listener, Listener>();

	constructor(private readonly onError: (error: unknown, event: AgentEvent) => void) {}

	add(listener: Listener): void {
		const delivered = this.delivered(listener);
		if (!this.list.includes(delivered)) this.list = [...this.list, delivered];
	}

	delete(listener: Listener): void {
		const delivered = this.wrappers.get(listener) ?? listener;
		this.list = this.list.filter((l) => l !== delivered);
	}

	/**
	 * Rule Q5: an `async` listener fails by rejecting, which the call that delivers the event cannot catch; left
	 * alone, the rejection goes unhandled, which ends a Node process. Wrapped here, once, when it subscribes,
	 * so delivering to a plain listener costs nothing more.
	 */
	private delivered(listener: Listener): Listener {
		if (!(listener instanceof AsyncFunction)) return listener;
		let wrapper = this.wrappers.get(listener);
		if (!wrapper) {
			wrapper = (event) => {
				(listener(event) as unknown as Promise<void>).catch((error: unknown) => {
					try {
						this.onError(error, event);
					} catch {
						// A failing error reporter must not raise an unhandled rejection either.
					}
				});
			};
			this.wrappers.set(listener, wrapper);
		}
		return wrapper;
	}
}

/**
 * A run's hold on the `Agent`'s state (rule Q1): its events fold into the state only while it holds it.
 * `reset()` takes the state from a run it cuts short, so nothing of that run — its closing messages, its
 * error, a pause for approval — reaches the fresh state, while its subscribers still see it wind down.
 */
export interface RunHold {
	readonly held: boolean;
	/**
	 * The run's `agent_end` gives the state back, before its subscribers see it: a call they make starts the
	 * next run once this one has delivered its last event (rule Q8).
	 */
	release(): void;
}

/**
 * One run's events folded into the `Agent`'s state, while the run holds it, then handed to its subscribers
 * (they see the updated state). An `EventSink` object rather than a closure per run: every run calls the same
 * `handleEvent`, so the engine keeps its optimized delivery path from one run to the next instead of
 * discarding it when a run's closure dies.
 */
export class RunDispatch implements EventSink<AgentEvent> {
	constructor(
		private readonly state: AgentState,
		private readonly running: Set<string>,
		private readonly subscribers: Subscribers,
		private readonly onSubscriberError: (error: unknown, event: AgentEvent) => void,
		private readonly hold: RunHold,
	) {}

	handleEvent(event: AgentEvent): void {
		// The per-delta event first and alone; the others fold into the state in `fold`.
		if (event.type === "message_update") {
			if (this.hold.held && (event.message as { role?: unknown }).role === "assistant")
				this.state.streamMessage = event.message as AssistantMessage;
		} else if (this.hold.held) this.fold(event);
		const subscribers = this.subscribers;
		const list = subscribers.list;
		for (let i = 0; i < list.length; i++) {
			const listener = list[i] as Listener;
			// Unsubscribed by an earlier subscriber of this very event: not called again.
			if (subscribers.list !== list && !subscribers.list.includes(listener)) continue;
			try {
				listener(event);
			} catch (error) {
				try {
					this.onSubscriberError(error, event);
				} catch {
					// A failing error reporter must not break the run either (rule Q5).
				}
			}
		}
	}

	private fold(event: AgentEvent): void {
		const state = this.state;
		switch (event.type) {
			case "message_start":
				if ((event.message as { role?: unknown }).role === "assistant")
					state.streamMessage = event.message as AssistantMessage;
				break;
			case "message_end":
				state.streamMessage = undefined;
				if (!event.discarded) state.messages.push(event.message);
				break;
			case "tool_execution_start":
				this.running.add(event.toolCallId);
				break;
			case "tool_execution_end":
				this.running.delete(event.toolCallId);
				break;
			case "turn_end":
				replaceRevisedReply(state.messages, event.message);
				break;
			case "agent_end":
				if (event.outcome.type === "error") state.error = event.outcome.error;
				if (event.outcome.type === "awaiting_approval") state.pendingApprovals = event.outcome.pending;
				this.hold.release();
				break;
		}
	}
}

/**
 * Rule T4: a turn whose tool arguments were revised ends with a new reply object. The reply it replaces is
 * the last assistant message in the state, recognised by carrying the same tool call ids.
 */
function replaceRevisedReply(messages: AgentMessage[], reply: AssistantMessage): void {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as AssistantMessage;
		if (message.role !== "assistant") continue;
		if (message !== reply && sameToolCallIds(message, reply)) messages[i] = reply;
		return;
	}
}

function sameToolCallIds(a: AssistantMessage, b: AssistantMessage): boolean {
	const ids = (m: AssistantMessage) =>
		toolCallsOf(m)
			.map((c) => c.id)
			.join("\u0000");
	return toolCallsOf(a).length > 0 && ids(a) === ids(b);
}
