import type { EventStream } from "./event-stream.js";
import type { AssistantMessage, ToolCall } from "./messages.js";

/**
 * Rule E2: the events of one streamed assistant reply. Every event carries `partial`, a snapshot of the
 * message so far (rule L5: structurally shared, never mutated after it was emitted).
 */
export type AssistantMessageEvent =
	| { type: "start"; partial: AssistantMessage }
	| { type: "text_start"; contentIndex: number; partial: AssistantMessage }
	| { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
	| { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
	| { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
	| { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
	| { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
	| { type: "toolcall_start"; contentIndex: number; id: string; name: string; partial: AssistantMessage }
	| {
			type: "toolcall_delta";
			contentIndex: number;
			delta: string;
			/** Best-effort partial arguments parsed so far (rule E4). */
			arguments: Record<string, unknown>;
			partial: AssistantMessage;
	  }
	| { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
	| { type: "done"; reason: "stop" | "toolUse" | "length"; message: AssistantMessage }
	| { type: "error"; reason: "error" | "aborted"; error: AssistantMessage };

/** The stream a provider returns: events, then the final assistant message as its result. */
export type AssistantMessageEventStream = EventStream<AssistantMessageEvent, AssistantMessage>;
