/**
 * The run protocol: what a run starts from (`AgentContext`), every event it emits (`AgentEvent`) and how it
 * ended (`RunOutcome`). Every part of capstan may depend on this folder; it depends only on core and the tool
 * contract.
 */
import type { AssistantMessageEvent } from "../core/events.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../core/messages.js";
import type { AgentTool, ToolExecutionEvent } from "../tools/types.js";
import type { RunOutcome } from "./outcome.js";
import type { RunCoverage, RunSummary } from "./telemetry.js";

/**
 * Events of one run, in the order pinned by rule L2–L4: `agent_start` first and `agent_end` last, exactly once
 * each; every `turn_start`, `message_start` and `tool_execution_start` closed by exactly one `turn_end`,
 * `message_end` and `tool_execution_end`, on every path, abort and error included. `message_start`/`message_end`
 * come for every message the run adds — prompts, steering and other injected messages, replies and tool
 * results — and only assistant replies have `message_update`s. Events are plain data owned by the run: a
 * message in an event is never changed after the event was sent (rule L5); do not change it either.
 */
export type AgentEvent =
	| { type: "agent_start" }
	| { type: "turn_start" }
	| { type: "message_start"; message: AgentMessage }
	| {
			type: "message_update";
			/** The reply so far: a snapshot that keeps showing the message as it was at this event (rule L5). */
			message: AssistantMessage;
			/** The provider event behind the update (rule E2): which block changed, and the delta. */
			assistantMessageEvent: AssistantMessageEvent;
	  }
	| {
			type: "message_end";
			/** The message as committed to the transcript (unless `discarded`). */
			message: AgentMessage;
			/** The message was closed but not added to the transcript (a reply discarded by the Harmony guard, rule X4). */
			discarded?: true;
	  }
	| ToolExecutionEvent
	/**
	 * Rule T15: a tool call of the batch needs a person's approval and waits for a later run. Emitted once
	 * per call, after the batch's results and before `turn_end`; the run then ends `awaiting_approval`.
	 */
	| { type: "approval_requested"; toolCallId: string; toolName: string; args: Record<string, unknown> }
	| {
			type: "turn_end";
			/**
			 * The turn's reply. When `beforeToolCall` revised arguments (rule T4), a copy with the revised calls
			 * that replaces the reply committed at `message_end` in the transcript.
			 */
			message: AssistantMessage;
			/** The turn's tool results, in the order of the calls in the reply (rule T7); `[]` without calls. */
			toolResults: ToolResultMessage[];
	  }
	| {
			type: "agent_end";
			/** Every message the run added, in the order they entered the context (what `result()` resolves to). */
			messages: AgentMessage[];
			/** How the run ended (rule L12). */
			outcome: RunOutcome;
			/** Run totals, present when telemetry is on (rule X3). */
			summary?: RunSummary;
			/** Tools offered / invoked / never used, models and providers used; present when telemetry is on (rule X3). */
			coverage?: RunCoverage;
	  };

/** The agent-level context a run starts from. The caller's `messages` array is never mutated (rule L1). */
export interface AgentContext {
	/** The system prompt, read before every model call. */
	systemPrompt?: string;
	/** The transcript the run starts from; the run works on a copy. */
	messages: AgentMessage[];
	/** The tools the model may call; their specs are built for every model call (rule C5). */
	tools?: AgentTool[];
}
