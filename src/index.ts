/**
 * capstan — a correct, fast agent loop. The stateless loop (`agentLoop`, `agentLoopContinue`), the stateful
 * `Agent` facade, the message model, the event protocol and the tool contract.
 */

export {
	Agent,
	AgentBusyError,
	type AgentHooks,
	type AgentOptions,
	type AgentState,
	NothingToContinueError,
} from "./agent/agent.js";
export { MessageQueue, type QueueMode } from "./agent/queue.js";
export {
	type AppendOnlyBuild,
	type AppendOnlyBuildInput,
	AppendOnlyContextManager,
	type AppendOnlyContextOptions,
	canonicalJson,
	cyrb53,
	type DigestHash,
	type MessageSync,
	type StablePrefix,
} from "./context/append-only.js";
export { defaultConvertToLlm, isRefusal } from "./context/convert.js";
export { abortReasonText } from "./core/abort.js";
export { EventStream } from "./core/event-stream.js";
export type { AssistantMessageEvent, AssistantMessageEventStream } from "./core/events.js";
export { closeInterruptedMessage } from "./core/interrupt.js";
export * from "./core/messages.js";
export type {
	CacheHints,
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
export { type AgentEventStream, agentLoop, agentLoopContinue } from "./loop/agent-loop.js";
export {
	decideAfterReply,
	MAX_PAUSED_TURN_CONTINUATIONS,
	type ReplyDecision,
	type ReplyFacts,
} from "./loop/decide.js";
export { type DanglingBatch, findDanglingBatch } from "./loop/pairing.js";
export { DeadlineExceededError } from "./loop/signals.js";
export { runStepDirectly, type Step, type StepRunner } from "./loop/step-runner.js";
export type * from "./loop/types.js";
export type * from "./telemetry/types.js";
export { STEERING_INTERRUPT_POLL_MS } from "./tools/batch.js";
export { placeholderResult, placeholderText } from "./tools/placeholders.js";
export * from "./tools/tool.js";
export type * from "./tools/types.js";
