/**
 * `capstan/durable`: the engine-neutral core of durable agent runs. An engine (DBOS, Restate, your own)
 * supplies a `DurableJournal` and a `DurableInbox`; `runDurableAgent` is the workflow body, replay-stable by
 * construction. `capstan/dbos` builds on it; docs/durable.md lists what a host must keep deterministic.
 */

export type { ApprovalDecision, ApprovalDecisions, PendingApproval } from "../tools/approval.js";
export type { InterruptedToolPolicy } from "../tools/types.js";
export { DurableClock } from "./clock.js";
export type { DurableInbox, DurableJournal, DurableTopic } from "./journal.js";
export { type CrashPoint, type MemoryAttempt, MemoryJournal } from "./memory-journal.js";
export {
	checkDurableInput,
	DURABLE_ABORT_REASON,
	type DurableAgent,
	DurableAttemptEndedError,
	type DurableEngine,
	type DurableEventPosition,
	DurableInputError,
	type DurableRunInput,
	type DurableRunResult,
	type DurableRunSettings,
	runDurableAgent,
} from "./run.js";
export {
	type DurableRunControl,
	type DurableStepOptions,
	DurableSteps,
	durableStepRunner,
	INTERRUPTED_TOOL_TEXT,
	type InterruptedToolDetails,
} from "./step-runner.js";
