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

/** Events of one run, in the order pinned by rule L2–L4. */
export type AgentEvent =
	| { type: "agent_start" }
	| { type: "turn_start" }
	| { type: "message_start"; message: AgentMessage }
	| { type: "message_update"; message: AssistantMessage; assistantMessageEvent: AssistantMessageEvent }
	| {
			type: "message_end";
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
	| { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
	| {
			type: "agent_end";
			messages: AgentMessage[];
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
