import type { EventStream } from "../core/event-stream.js";
import type { AgentMessage } from "../core/messages.js";
import type { StreamFunction } from "../core/model.js";
import type { StepRunner } from "../core/step-runner.js";
import type { AgentLoopConfig } from "../protocol/config.js";
import type { AgentContext, AgentEvent } from "../protocol/events.js";
import type { ReplyGuard } from "../protocol/reply-guard.js";
import type { RunTelemetry } from "../telemetry/collector.js";
import type { ApprovalDecisions } from "../tools/approval.js";
import type { RunEnding } from "./outcome.js";
import type { RunSignal } from "./signals.js";
import type { SoftRequirementState } from "./soft-requirement.js";
import type { WireLog } from "./wire-log.js";

/** The open/closed bookkeeping that lets a failing run close exactly what it opened (rule L4, L12). */
export interface OpenScopes {
	turn: boolean;
	/** The message between its `message_start` and `message_end`, if any. */
	message: AgentMessage | undefined;
	/** Tool calls between `tool_execution_start` and `tool_execution_end`. */
	toolExecutions: Map<string, string>;
}

/** All mutable state of one run, in one typed object. */
export interface RunState {
	readonly config: AgentLoopConfig;
	readonly streamFn: StreamFunction;
	readonly runStep: StepRunner;
	readonly now: () => number;
	readonly context: AgentContext;
	/** The full transcript: the caller's messages (copied, never mutated) plus what the run added. */
	readonly messages: AgentMessage[];
	/** What the run added, in context order: `result()` and `agent_end.messages`. */
	readonly added: AgentMessage[];
	/** rule T16: a person's decisions on the paused batch this run resumes, by tool call id. */
	readonly decisions: ApprovalDecisions | undefined;
	/** Messages waiting to be injected before the next model call. */
	pending: AgentMessage[];
	readonly events: EventStream<AgentEvent, AgentMessage[]>;
	/** Fires on external abort or deadline; handed to providers and tools. */
	readonly signal: AbortSignal;
	/** The same signal's state as plain fields: what the loop reads (see `RunSignal`). */
	readonly runSignal: RunSignal;
	readonly open: OpenScopes;
	modelCalls: number;
	/** rule X1 gate memory: reminders injected, current escalation. */
	readonly soft: SoftRequirementState;
	pausedContinuations: number;
	/** Why the run ends, once something ended it (`recordEnding`); the outcome is decided from it at `agent_end`. */
	ending: RunEnding | undefined;
	/** The reply guard chosen for the run's model, once resolved (before the first model call). */
	replyGuard: { guard: ReplyGuard | undefined } | undefined;
	/** rule X3: the run's collector, only when `config.telemetry` is set (off: no object, no per-event work). */
	readonly telemetry: RunTelemetry | undefined;
	/** rule C2: the incremental default conversion of `messages`, used when no conversion hook is set. */
	readonly wireLog: WireLog;
}
