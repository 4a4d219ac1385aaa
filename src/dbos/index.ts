/**
 * `capstan/dbos`: durable agent runs on DBOS and PostgreSQL. Workers `registerDbosAgent` and
 * `launchDbosWorker`; any process uses `DbosAgentRuns` to start, steer, abort and watch runs and to hand a
 * dead worker's runs to the live ones. The rules a host must follow are in docs/durable.md.
 */

export type {
	ApprovalDecision,
	ApprovalDecisions,
	DurableAgent,
	DurableEventPosition,
	DurableRunInput,
	DurableRunResult,
	DurableRunSettings,
	PendingApproval,
} from "../durable/index.js";
export { DurableInputError } from "../durable/index.js";
export { DbosAgentRuns, type DbosAgentRunsOptions, type DbosRunStatus, type RunMessage } from "./client.js";
export { DbosRunNotFoundError } from "./errors.js";
export type { DbosRunEvent, RunEventsOptions } from "./events.js";
export {
	type DbosAgentOptions,
	type DbosAgentWorkflow,
	type DbosWorker,
	type DbosWorkerOptions,
	DEFAULT_AGENT_QUEUE,
	launchDbosWorker,
	registerDbosAgent,
} from "./workflow.js";
