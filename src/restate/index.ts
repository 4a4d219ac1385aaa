/**
 * `capstan/restate`: durable agent runs on Restate (through `@restatedev/restate-sdk`, an optional peer
 * dependency of this entry only). A conversation is a virtual object — one writer per conversation, its
 * transcript in the object's state — and every model call and tool execution is a `ctx.run` step, so a run
 * survives a crashed worker or server without repeating finished work. See docs/durable.md.
 */
export type { ApprovalDecision, ApprovalDecisions, PendingApproval } from "../tools/approval.js";
export {
	RestateAgentClient,
	type RestateAgentClientOptions,
	RestateRequestError,
	type StartedRun,
} from "./client.js";
export {
	type RestateAgentDefinition,
	type RestateAgentOptions,
	type RestateConversationStatus,
	type RestateEventSource,
	type RestateObjectOptions,
	type RestateRunInput,
	type RestateRunResult,
	type RestateServiceDefinition,
	restateAgent,
} from "./object.js";
export { ensurePromiseWithResolvers } from "./polyfill.js";
export {
	type RegisterDeploymentOptions,
	type RestateWorker,
	registerRestateDeployment,
	type ServeRestateAgentsOptions,
	serveRestateAgents,
} from "./serve.js";
export {
	type AbortRequest,
	INBOX_TOPICS,
	type InboxPending,
	type InboxSendInput,
	inboxName,
} from "./topics.js";
