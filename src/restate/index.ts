/**
 * `capstan/restate`: durable agent runs on Restate (through `@restatedev/restate-sdk`, an optional peer
 * dependency of this entry only). A conversation is a virtual object — one writer per conversation, its
 * transcript in the object's state — and every model call and tool execution is a `ctx.run` step, so a run
 * survives a crashed worker or server without repeating finished work. See docs/durable.md.
 */
export {
	RestateAgentClient,
	type RestateAgentClientOptions,
	RestateRequestError,
	type StartedRun,
} from "./client.js";
export {
	type AbortRequest,
	type ConversationInbox,
	conversationInbox,
	INBOX_TOPICS,
	type InboxPending,
	type InboxSendInput,
	inboxName,
} from "./inbox.js";
export { RestateAwaiter, restateInbox, restateJournal } from "./journal.js";
export {
	type RestateAgentDefinition,
	type RestateAgentOptions,
	type RestateConversationStatus,
	type RestateEventSource,
	type RestateRunInput,
	type RestateRunResult,
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
