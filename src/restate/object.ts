/**
 * A conversation as a Restate virtual object: one key per conversation, so Restate runs at most one agent run
 * per conversation at a time (a second `run` waits in the key's queue) — a single writer of the transcript.
 * The transcript lives in the object's state; a run is the durable core's `runDurableAgent` over `ctx.run`
 * steps and the conversation's inbox. When a worker dies, Restate retries the invocation on a live worker and
 * the core replays the journal: finished model calls and tools are not run again.
 */
import * as restate from "@restatedev/restate-sdk";
import { type AgentMessage, userMessage } from "../core/messages.js";
import type {
	DurableAgent,
	DurableEngine,
	DurableEventPosition,
	DurableRunResult,
	DurableRunSettings,
} from "../durable/run.js";
import { checkDurableInput, DurableInputError, runDurableAgent } from "../durable/run.js";
import type { Awaitable } from "../protocol/config.js";
import type { AgentEvent } from "../protocol/events.js";
import type { RunOutcome } from "../protocol/outcome.js";
import type { ApprovalDecisions, PendingApproval } from "../tools/approval.js";
import { type ConversationInbox, conversationInbox, type InboxEndInput } from "./inbox.js";
import { RestateAwaiter, restateInbox, restateJournal } from "./journal.js";
import { ensurePromiseWithResolvers } from "./polyfill.js";

/** The input of the conversation object's `run` handler (JSON). */
export interface RestateRunInput {
	/** The new prompt: a text (a user message stamped with the journaled time) or messages. Omit to continue. */
	prompt?: string | AgentMessage[];
	/** Per-run settings: thinking level, tool choice, deadline. */
	settings?: DurableRunSettings;
	/**
	 * Decisions on the calls the conversation's last run left awaiting approval (rule T16), by tool call id;
	 * only without a prompt. The run resumes that batch; undecided calls are requested again.
	 */
	approvals?: ApprovalDecisions;
}

/** What `run` returns (JSON): the messages the run added and how it ended. The transcript is in state. */
export interface RestateRunResult {
	/** Every message the run added to the transcript, the prompt included. */
	added: AgentMessage[];
	/** How the run ended (completed, aborted, deadline, error, or awaiting approval with its `pending` calls). */
	outcome: RunOutcome;
}

/** What the shared `status` handler reports: the run in progress, if any, and the transcript's length. */
export interface RestateConversationStatus {
	/** The Restate invocation id of the run in progress, or null. */
	running: string | null;
	/** How many messages the transcript holds (as of the last finished run). */
	messages: number;
}

/** Where a live event comes from, for `RestateAgentOptions.onEvent`. */
export interface RestateEventSource {
	/** The conversation (the object's key). */
	key: string;
	/** The run (Restate invocation id), the same on every attempt. */
	invocationId: string;
}

/** Options of {@link restateAgent}. */
export interface RestateAgentOptions {
	/**
	 * The virtual object's name, e.g. `"support"` (the inbox object is `<name>Inbox`). Every worker that
	 * registers it must register the same agent code.
	 */
	name: string;
	/** The agent: model, stream function, tools and hooks (code, identical in every worker). */
	agent: DurableAgent;
	/**
	 * Every event of the current attempt, in the worker running it, with its replay-stable position: a retried
	 * attempt repeats the positions it replays, so a consumer that keeps each (`seq`, `delta`) once sees each
	 * event once. Live only: Restate keeps no event log, so another process reads the transcript instead.
	 */
	onEvent?: (
		event: AgentEvent,
		position: DurableEventPosition,
		source: RestateEventSource,
	) => Awaitable<void>;
	/** Restate options of the conversation object: retry policy, inactivity and abort timeouts. */
	objectOptions?: RestateObjectOptions;
}

/**
 * Restate service options of the conversation object (the SDK's `ObjectOptions`, durations in ms). Kept to
 * plain numbers so capstan's declarations import no SDK types (the SDK's own fail a consumer's
 * `exactOptionalPropertyTypes` check).
 */
export interface RestateObjectOptions {
	/** How a failed attempt (a crashed worker) is retried. */
	retryPolicy?: {
		/** The first retry's delay (ms). */
		initialInterval?: number;
		/** The longest delay between retries (ms). */
		maxInterval?: number;
		/** How much each delay grows. */
		exponentiationFactor?: number;
		/** After this many attempts, `onMaxAttempts` applies. */
		maxAttempts?: number;
		/** Pause the invocation (resumable by an operator) or kill it. */
		onMaxAttempts?: "pause" | "kill";
	};
	/** With no progress for this long (ms), the server asks the attempt to suspend (server default 1 min). */
	inactivityTimeout?: number;
	/** After the inactivity timeout, how long (ms) before the server ends the attempt (default 10 min). */
	abortTimeout?: number;
	/** How long (ms) a finished run's journal is kept for inspection. */
	journalRetention?: number;
	/** How long (ms) a start's idempotency key is remembered. */
	idempotencyRetention?: number;
}

/**
 * A Restate service definition (the SDK's `VirtualObjectDefinition`), opaque here so capstan's declarations
 * import no SDK types. `serveRestateAgents` serves it; to bind it to an endpoint of your own, pass it to
 * `restate.endpoint().bind(definition as never)`.
 */
export interface RestateServiceDefinition {
	/** The service's Restate name. */
	readonly name: string;
}

/** The Restate definitions of one durable agent: serve both `services` on a worker. */
export interface RestateAgentDefinition {
	/** The conversation object's name (`run`, shared `transcript` and `status`). */
	name: string;
	/** The conversation's inbox object's name (`send`, `take`, shared `pending`). */
	inboxName: string;
	/** Both objects, for `serveRestateAgents` (or an endpoint of your own). */
	services: readonly RestateServiceDefinition[];
}

const TRANSCRIPT = "transcript";
const RUNNING = "running";
/** The calls the last run left awaiting approval (rule T15); empty or absent when it did not pause. */
const PENDING_APPROVALS = "pendingApprovals";
/**
 * What the last run that wrote its transcript tells the inbox when it ends (`end`: its unread steering),
 * written with the transcript. Should a kill stop that `end`, the run's watch (`closeRun`) or the next run's
 * `begin` tells the inbox instead, from this record: the steering and follow-ups the run used are in its
 * transcript, so only the unread steering goes back.
 */
const ENDED = "endedRun";

/**
 * Define a durable agent as Restate virtual objects: a conversation per key, its transcript in state, one
 * `ctx.run` per model call and tool execution, steering / follow-up / abort through the conversation's inbox.
 *
 * @example
 * ```ts
 * import { restateAgent, serveRestateAgents } from "capstan/restate";
 *
 * const support = restateAgent({ name: "support", agent: { model, tools, systemPrompt } });
 * const worker = await serveRestateAgents([support], { port: 9080 });
 * // register http://127.0.0.1:9080 with the Restate server once (registerRestateDeployment)
 * ```
 */
export function restateAgent(options: RestateAgentOptions): RestateAgentDefinition {
	ensurePromiseWithResolvers();
	if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.name))
		throw new Error(
			`restateAgent: name ${JSON.stringify(options.name)} must be letters, digits and underscores, not starting with a digit`,
		);
	const inbox = conversationInbox(options.name);
	const conversation = conversationObject(options, inbox);
	return { name: conversation.name, inboxName: inbox.name, services: [conversation, inbox] };
}

function conversationObject(options: RestateAgentOptions, inbox: ConversationInbox) {
	return restate.object({
		name: options.name,
		handlers: {
			run: (ctx: restate.ObjectContext, input: RestateRunInput | undefined) =>
				runConversation(ctx, options, inbox, input ?? {}),
			transcript: restate.handlers.object.shared(
				async (ctx: restate.ObjectSharedContext): Promise<AgentMessage[]> =>
					(await ctx.get<AgentMessage[]>(TRANSCRIPT)) ?? [],
			),
			pendingApprovals: restate.handlers.object.shared(
				async (ctx: restate.ObjectSharedContext): Promise<PendingApproval[]> =>
					(await ctx.get<PendingApproval[]>(PENDING_APPROVALS)) ?? [],
			),
			// A run failed for good (killed, cancelled, or a terminal error): the inbox's watch says so.
			closeRun: (ctx: restate.ObjectContext, invocationId: string) => closeRun(ctx, inbox, invocationId),
			status: restate.handlers.object.shared(
				async (ctx: restate.ObjectSharedContext): Promise<RestateConversationStatus> => ({
					running: (await ctx.get<string>(RUNNING)) ?? null,
					messages: ((await ctx.get<AgentMessage[]>(TRANSCRIPT)) ?? []).length,
				}),
			),
		},
		...(options.objectOptions ? { options: options.objectOptions as restate.ObjectOptions } : {}),
	});
}

/**
 * One run. Every Restate command below is issued in the same order on every attempt (state writes only
 * before and after the loop or on a cancel, inbox calls only at the loop's turn boundaries), which Restate's
 * replay requires.
 */
async function runConversation(
	ctx: restate.ObjectContext,
	options: RestateAgentOptions,
	inbox: ConversationInbox,
	input: RestateRunInput,
): Promise<RestateRunResult> {
	const invocationId: string = ctx.request().id;
	const messages = (await ctx.get<AgentMessage[]>(TRANSCRIPT)) ?? [];
	const previous = (await ctx.get<InboxEndInput>(ENDED)) ?? undefined;
	const prompts = await promptMessages(ctx, input.prompt);
	const runInput = {
		messages,
		prompts,
		...(input.settings ? { settings: input.settings } : {}),
		...(input.approvals !== undefined ? { approvals: input.approvals } : {}),
	};
	refuseImpossibleRun(ctx.key, runInput);
	const awaiter = new RestateAwaiter();
	const stopOnClose = endOnConnectionClose(ctx, awaiter);
	const runInbox = restateInbox(ctx, inbox, invocationId, awaiter);
	let result: DurableRunResult;
	try {
		await ctx.objectClient(inbox, ctx.key).begin({ invocationId, ...(previous ? { previous } : {}) });
		// Only now, once the inbox watches the run (`begin` sent the watch): Restate's kill stops the calls and
		// one-way calls the run has not seen finish, so a kill before `begin` had returned would leave `running`
		// naming a run nothing watches, until the next run. A watch `begin` sent survives it.
		ctx.set(RUNNING, invocationId);
		result = await runDurableAgent(options.agent, runInput, {
			journal: restateJournal(ctx, awaiter),
			inbox: runInbox,
			// A cancel (or the attempt's end) aborts the model call and tools still running, at once.
			attemptEnded: awaiter.ended,
			...eventsOf(options.onEvent, { key: ctx.key, invocationId }),
		});
		// Cancelled (or suspended) mid-run: a journal entry or inbox call that met it made `runDurableAgent`
		// reject with Restate's error, untouched (an engine failure). Should the attempt have ended with none of
		// the run's waits seeing it, it still ends with that error and without a transcript, as a cancel promises.
		awaiter.throwIfOver();
	} catch (error) {
		if (error instanceof restate.CancelledError) closeCancelledRun(ctx, inbox, invocationId);
		throw error;
	} finally {
		stopOnClose();
	}
	// The transcript first, then the inbox: once told, it forgets what the run took, so a kill landing between
	// the two (Restate's admin API, say while the run waits for a worker) lost the steering and follow-ups the
	// run had used. Now they are in the transcript, and `ENDED` says so to whoever tells the inbox instead.
	const ended: InboxEndInput = { invocationId, unreadSteering: runInbox.unreadSteering() };
	ctx.set(TRANSCRIPT, result.messages);
	if (result.outcome.type === "awaiting_approval") ctx.set(PENDING_APPROVALS, result.outcome.pending);
	else ctx.clear(PENDING_APPROVALS);
	ctx.set(ENDED, ended);
	ctx.clear(RUNNING);
	await endInbox(ctx, inbox, ended);
	return { added: result.added, outcome: result.outcome };
}

/**
 * The server can end an attempt without a word to the handler: its abort timeout (rule 2), a lost
 * connection, its own restart. The SDK then fires the request's `attemptCompletedSignal`, but no wait of the
 * run settles, so a tool still running would go on, unseen, while a retry runs the invocation again. Ending
 * the awaiter aborts it (and fails every wait of the attempt), as a cancel does. Returns the unsubscribe.
 */
function endOnConnectionClose(ctx: restate.ObjectContext, awaiter: RestateAwaiter): () => void {
	const signal = ctx.request().attemptCompletedSignal;
	const end = () =>
		awaiter.end(new Error(`capstan/restate: the Restate server ended this attempt of ${ctx.key}'s run`));
	if (signal.aborted) end();
	else signal.addEventListener("abort", end, { once: true });
	return () => signal.removeEventListener("abort", end);
}

/** The engine's `onEvent`, when the host gave one: the host's, told which conversation and run it is. */
function eventsOf(
	onEvent: RestateAgentOptions["onEvent"],
	source: RestateEventSource,
): Pick<DurableEngine, "onEvent"> {
	return onEvent ? { onEvent: (event, position) => onEvent(event, position, source) } : {};
}

/**
 * Tell the inbox the run ended (its active run, the steering it took but never read). The loop is over by
 * now and `onEvent` has had its `agent_end`, so a cancel that meets this call, the run's last await, is too
 * late: the run completes as its events said, its transcript written and its outcome returned; the inbox
 * gets its `end` again one-way, since the cancel may have stopped the first (`end` acts once per run).
 */
async function endInbox(
	ctx: restate.ObjectContext,
	inbox: ConversationInbox,
	end: InboxEndInput,
): Promise<void> {
	try {
		await ctx.objectClient(inbox, ctx.key).end(end);
	} catch (error) {
		if (!(error instanceof restate.CancelledError)) throw error;
		ctx.objectSendClient(inbox, ctx.key).end(end);
	}
}

/**
 * Run `invocationId` failed for good (its watch saw it end with 409, killed or cancelled, or another terminal
 * error), and whatever it left undone is done here, once. If it wrote its transcript (`ENDED` names it: a kill
 * landed after that, before the inbox had its `end`), the inbox gets that `end`: the steering and follow-ups
 * the run used are in the transcript, its unread steering goes back. Otherwise the transcript is as before the
 * run: `running` stops naming it, and the inbox gives back everything the run took (`end` with `cancelled`).
 * The inbox's `end` acts once per run, and not once the next run has begun (which then gave back what the run
 * took, told the same by `ENDED`).
 */
async function closeRun(
	ctx: restate.ObjectContext,
	inbox: ConversationInbox,
	invocationId: string,
): Promise<void> {
	// First, whichever branch follows: a kill between the run's own `ENDED` write and its `RUNNING` clear
	// (Restate journals them as separate entries) would otherwise leave `running` naming it.
	if ((await ctx.get<string>(RUNNING)) === invocationId) ctx.clear(RUNNING);
	const ended = await ctx.get<InboxEndInput>(ENDED);
	if (ended?.invocationId === invocationId) {
		ctx.objectSendClient(inbox, ctx.key).end(ended);
		return;
	}
	ctx.objectSendClient(inbox, ctx.key).end({ invocationId, cancelled: true });
}

/**
 * A cancelled run leaves the transcript as it was, but not the marks of a run in progress: the `running`
 * state and the inbox's active run would name it until the next run, so `status` would report it running and
 * an `abort` would be queued for it instead of refused. Nor does it lose what it took from the inbox: the
 * steering and follow-ups it read are in no transcript, so the inbox puts every one back at the front of its
 * queue for the next run (it knows what it handed out, including by a call the cancel overtook). Commands
 * after a caught cancel are Restate's own pattern for undoing a cancelled handler's work (its sagas guide),
 * journaled like any other. The inbox's `end` goes one-way: a cancelled run awaits nothing more.
 */
function closeCancelledRun(ctx: restate.ObjectContext, inbox: ConversationInbox, invocationId: string): void {
	ctx.clear(RUNNING);
	ctx.objectSendClient(inbox, ctx.key).end({ invocationId, cancelled: true });
}

/**
 * Input no attempt can run — nothing to continue from (rule L6), a prompt over calls awaiting approval (rule
 * T17), decisions on no pending call (rule T16) — fails here, before any state is written, as a terminal
 * error: the loop's own refusal would be thrown again on every retry.
 */
function refuseImpossibleRun(key: string, input: Parameters<typeof checkDurableInput>[0]): void {
	try {
		checkDurableInput(input);
	} catch (error) {
		if (!(error instanceof DurableInputError)) throw error;
		throw new restate.TerminalError(`${key}: ${error.message}`, { errorCode: 400 });
	}
}

/** The prompt as messages; a text becomes a user message stamped with Restate's journaled clock. */
async function promptMessages(
	ctx: restate.ObjectContext,
	prompt: RestateRunInput["prompt"],
): Promise<AgentMessage[]> {
	if (prompt === undefined) return [];
	if (typeof prompt === "string") return [userMessage(prompt, await ctx.date.now())];
	if (
		Array.isArray(prompt) &&
		prompt.every((message) => typeof (message as { role?: unknown })?.role === "string")
	)
		return prompt;
	// 400 and terminal: a malformed input fails the same way on every retry, so it is not retried.
	throw new restate.TerminalError(
		`${ctx.key}: "prompt" must be a text or an array of agent messages (each with a "role")`,
		{ errorCode: 400 },
	);
}
