/**
 * capstan — a correct, fast agent loop. The stateless loop (`agentLoop`, `agentLoopContinue`), the stateful
 * `Agent` facade, the message model, the run protocol (events, outcome, configuration, reply guards,
 * telemetry records), the tool contract and the append-only context manager.
 *
 * This entry loads no provider: without a `streamFn`, runs import the provider registry on their first model
 * call. Providers, the model catalog and the scaffolding for writing a provider are in `capstan/providers`
 * and the per-API entries; `capstan/testing` has the scripted model.
 *
 * The rule ids these docs cite (`rule L1`, `rule T17`, …) are those of the behaviour contract,
 * `docs/behaviour.md`, which ships in the package (`node_modules/capstan/docs/behaviour.md`; each rule has an
 * anchor of its id in lower case, `#t17`).
 *
 * @packageDocumentation
 */

export {
	Agent,
	AgentBusyError,
	type AgentHooks,
	type AgentOptions,
	type AgentState,
	ApprovalPendingError,
	NothingToContinueError,
} from "./agent/agent.js";
export type { QueueMode } from "./agent/queue.js";
export {
	type AppendOnlyBuild,
	type AppendOnlyBuildInput,
	AppendOnlyContextManager,
	type AppendOnlyContextOptions,
	CACHE_LOOKBACK_BLOCKS,
	type DigestHash,
	type MessageSync,
	type StablePrefix,
} from "./context/append-only.js";
export { defaultConvertToLlm, isRefusal } from "./context/convert.js";
export { type EventSink, EventStream } from "./core/event-stream.js";
export type { AssistantMessageEvent, AssistantMessageEventStream } from "./core/events.js";
export * from "./core/messages.js";
export type {
	CacheHints,
	CallOptions,
	Context,
	JsonSchema,
	KnownApi,
	Model,
	ModelCompat,
	ModelCost,
	RetryInfo,
	StreamFunction,
	StreamOptions,
	ThinkingLevel,
	ToolChoice,
	ToolSpec,
} from "./core/model.js";
export { runStepDirectly, type Step, type StepRunner } from "./core/step-runner.js";
export { agentLoop, agentLoopContinue } from "./edge/agent-loop.js";
export type { AgentEventStream, ContinueOptions } from "./loop/agent-loop.js";
export { DeadlineExceededError } from "./loop/signals.js";
export type * from "./protocol/config.js";
export type * from "./protocol/events.js";
export type * from "./protocol/outcome.js";
export type { ReplyGuard, ReplyGuardResolver, ReplyVerdict } from "./protocol/reply-guard.js";
export type * from "./protocol/telemetry.js";
export type { ApprovalDecision, ApprovalDecisions, PendingApproval } from "./tools/approval.js";
export * from "./tools/tool.js";
export type * from "./tools/types.js";
