import { createFannedAbort, type FannedAbort } from "../core/abort.js";
import type { AgentMessage, AssistantMessage, ImageContent, UserMessage } from "../core/messages.js";
import { checkedThinkingLevel, type Model, type StreamFunction, type ThinkingLevel } from "../core/model.js";
import { hasUserContent } from "../core/user-content.js";
import { agentLoop, agentLoopContinue } from "../edge/agent-loop.js";
import { providerReplyGuard, registryStream } from "../edge/defaults.js";
import type { AgentEventStream } from "../loop/agent-loop.js";
import { findDanglingBatch } from "../loop/pairing.js";
import { checkDeadline } from "../loop/signals.js";
import type { AgentLoopConfig } from "../protocol/config.js";
import type { AgentContext, AgentEvent } from "../protocol/events.js";
import type { ApprovalDecision, ApprovalDecisions, PendingApproval } from "../tools/approval.js";
import { checkTools } from "../tools/definition-checks.js";
import type { AgentTool } from "../tools/types.js";
import { RunDispatch, type RunHold, Subscribers } from "./dispatch.js";
import { checkQueueMode, MessageQueue, type QueueMode } from "./queue.js";
import { checkedDecisions, checkedPending, decidesEvery } from "./restore.js";

/** The Agent's observable state (rule Q1). Changed only by named methods and by the run's events. */
export interface AgentState {
	/** The system prompt; `""` when none was given. Changed by `setSystemPrompt`. */
	systemPrompt: string;
	/** The model of the next run. Changed by `setModel`. */
	model: Model;
	/** The reasoning level; default `"off"` (rule X5). Changed by `setThinkingLevel`. */
	thinkingLevel: ThinkingLevel;
	/** The tools offered to the model: the array given, kept rather than copied. Changed by `setTools`. */
	tools: AgentTool[];
	/**
	 * The transcript: a run's messages are appended to this array at their `message_end`. `replaceMessages` and
	 * `reset` put a new array here, so a reference kept from before still holds the old transcript.
	 */
	messages: AgentMessage[];
	/**
	 * True while a run holds the Agent: from the call that starts it until its `agent_end` reaches the state,
	 * or `reset()` (rule Q8). While it is true, `prompt()` and `continue()` are busy (rule Q3).
	 */
	isStreaming: boolean;
	/** The assistant message being streamed, as its latest snapshot (rule L5); `undefined` between replies. */
	streamMessage: AssistantMessage | undefined;
	/**
	 * Ids of tool calls executing right now: from their `tool_execution_start` to their `tool_execution_end`.
	 * One live set for the Agent's life (emptied when a run ends), not a snapshot: copy it to keep it.
	 */
	pendingToolCalls: ReadonlySet<string>;
	/**
	 * The error text of the last run, when its outcome was `error` (rule L12: a provider error, a hook or tool
	 * machinery that threw). Cleared when the next run starts and by `reset()`. An abort or a deadline leaves it
	 * unset: `agent_end.outcome` says how every run ended.
	 */
	error?: string;
	/**
	 * Rule T15: tool calls the last run left awaiting a person's decision (`approve` / `deny`). Plain JSON:
	 * save it with `messages` to resume in another process (`AgentOptions.pendingApprovals`).
	 */
	pendingApprovals: readonly PendingApproval[];
	/**
	 * Rule T16: the decisions `approve` / `deny` recorded so far on `pendingApprovals`, by tool call id, in the
	 * shape `agentLoopContinue` takes. The batch resumes once every pending call has one; until then, a host that
	 * asks a person about the pending calls asks only about those without one. A new object with every decision;
	 * empty again once the batch resumes, and whenever `pendingApprovals` is dropped. Plain JSON: save it with
	 * `pendingApprovals` and restore it through `AgentOptions.approvalDecisions`.
	 */
	approvalDecisions: ApprovalDecisions;
}

/** A run's hold on the Agent's state, as the Agent keeps it: the Agent alone clears `held`. */
interface StateHold extends RunHold {
	held: boolean;
}

/**
 * Loop hooks and settings an Agent passes through, unchanged, to every run (see `AgentLoopConfig`): the same
 * `deadline`, `streamOptions` and `contextManager` for each. The Agent supplies the rest itself: the model,
 * thinking level and queues from its state, the stream function from `AgentOptions.streamFn`.
 */
export type AgentHooks = Omit<
	AgentLoopConfig,
	| "model"
	| "streamFn"
	| "getThinkingLevel"
	| "getSteeringMessages"
	| "hasSteeringMessages"
	| "onSteeringQueued"
	| "getFollowUpMessages"
	| "getAsideMessages"
>;

/**
 * Construction options of an Agent: its starting state, plus the loop hooks and settings every run gets
 * (`AgentHooks`). The constructor throws for `pendingApprovals` that do not fit `messages`, and a `TypeError`
 * for `approvalDecisions` that do not decide those calls, a tool no call could pass (see `setTools`), a value
 * that is not a thinking level, or a `deadline` that is not a number.
 */
export interface AgentOptions extends AgentHooks {
	/** The model to call. */
	model: Model;
	/** The system prompt. Default: none (`""`). */
	systemPrompt?: string;
	/**
	 * The reasoning level. Default: `streamOptions.thinkingLevel`, else `"off"` (rule X5). The constructor throws
	 * a `TypeError` for a value that is not a level.
	 */
	thinkingLevel?: ThinkingLevel;
	/** The tools the model may call. Default: none. Kept as given, not copied (see `setTools`). */
	tools?: AgentTool[];
	/**
	 * A transcript to start from, such as a loaded session. The array is copied, not kept; the messages in it
	 * are shared, not cloned.
	 */
	messages?: AgentMessage[];
	/**
	 * How replies are streamed; default: the provider registry. `undefined` is accepted explicitly so
	 * `streamFn: live ? undefined : scripted.stream` compiles under `exactOptionalPropertyTypes`.
	 */
	streamFn?: StreamFunction | undefined;
	/** How the steering queue hands out messages (rule Q2). Default: `"one-at-a-time"`. */
	steeringMode?: QueueMode;
	/** How the follow-up queue hands out messages (rule Q2). Default: `"one-at-a-time"`. */
	followUpMode?: QueueMode;
	/**
	 * Rule T16: approvals a saved paused run left pending (its `state.pendingApprovals`), restored with its
	 * `messages`. Each must be an unanswered tool call of the last assistant message in `messages`; otherwise
	 * the constructor throws.
	 */
	pendingApprovals?: readonly PendingApproval[];
	/**
	 * Rule T16: the decisions already recorded on the restored `pendingApprovals` (the saved
	 * `state.approvalDecisions`), so the restored Agent asks only about the calls still undecided. Each key must
	 * be the `toolCallId` of one of `pendingApprovals`, each value `{ approved: true }` or
	 * `{ approved: false, reason?: string }`; otherwise the constructor throws a `TypeError`. Decisions that
	 * cover every pending call start nothing by themselves: `continue()` resumes the batch with them.
	 */
	approvalDecisions?: ApprovalDecisions;
	/** Where subscriber errors are reported (rule Q5). Default: `console.error`. */
	onSubscriberError?: (error: unknown, event: AgentEvent) => void;
}

/**
 * Thrown by `prompt()`/`continue()` while a run is active (rule Q3), and by `approve()`, `deny()` and
 * `replaceMessages()`, which need the Agent idle too. Not from a subscriber of the run's `agent_end`: there the
 * run has already ended, and the call starts the next one (rule Q8).
 */
export class AgentBusyError extends Error {
	/** Always `"AgentBusyError"`. */
	override readonly name = "AgentBusyError";
	constructor(method: string) {
		super(
			method === "prompt" || method === "continue"
				? `Agent is busy: ${method}() cannot start while a run is active. Use steer() or followUp() to queue a message.`
				: `Agent is busy: ${method}() cannot be called while a run is active. Await waitForIdle(), or abort() the run, first.`,
		);
	}
}

/**
 * Thrown by `prompt()` / `continue()` while tool calls await approval (rule T17): decide them first with
 * `approve(id)` / `deny(id, reason)`. `pending` lists them.
 */
export class ApprovalPendingError extends Error {
	/** Always `"ApprovalPendingError"`. */
	override readonly name = "ApprovalPendingError";
	/** The tool calls of the paused batch (`state.pendingApprovals`), decided or not. */
	readonly pending: readonly PendingApproval[];
	/**
	 * @param decided the decisions recorded so far (`state.approvalDecisions`): the message names only the calls
	 *   still undecided, and says to resume with `continue()` when none is.
	 */
	constructor(method: string, pending: readonly PendingApproval[], decided: ApprovalDecisions = {}) {
		const open = pending.filter((p) => !Object.hasOwn(decided, p.toolCallId));
		const list = open.map((p) => `${p.toolName} (${p.toolCallId})`).join(", ");
		super(
			open.length === 0
				? `${method}() cannot start: the ${pending.length} paused tool call(s) are decided but not resumed; call continue() to resume them first.`
				: `${method}() cannot start: ${open.length} tool call(s) await approval: ${list}. Decide each with approve(id) or deny(id, reason) first.`,
		);
		this.pending = pending;
	}
}

/** Thrown by `continue()` when there is nothing to continue from and nothing queued (rule Q4). */
export class NothingToContinueError extends Error {
	/** Always `"NothingToContinueError"`. */
	override readonly name = "NothingToContinueError";
}

/**
 * The stateful facade over the stateless loop (rule Q1): it owns the state and the queues, starts runs and
 * folds their events into its state. One direction: config/context in → events out → state updated.
 * Rule ids (`rule Q1`) are those of `docs/behaviour.md`, shipped in the package.
 */
export class Agent {
	private readonly _state: AgentState;
	private readonly hooks: AgentHooks;
	private readonly streamFn: StreamFunction | undefined;
	private readonly onSubscriberError: (error: unknown, event: AgentEvent) => void;
	private readonly listeners = new Subscribers((error, event) => this.onSubscriberError(error, event));
	private readonly steering: MessageQueue;
	private readonly followUps: MessageQueue;
	private readonly asides = new MessageQueue("all");
	private readonly running = new Set<string>();
	private abortController: FannedAbort | undefined;
	/** The active run's context: the loop reads its system prompt before every model call. */
	private runContext: AgentContext | undefined;
	/** The hold of the run that owns the state: given back at its `agent_end`, or taken back by `reset()`. */
	private hold: StateHold | undefined;
	/** Runs accepted whose last event has not been delivered yet (at most one of them holds the state). */
	private inFlight = 0;
	/** Resolves once every run accepted so far has delivered its last event. */
	private settled: Promise<void> = Promise.resolve();
	private idle: Promise<void> = Promise.resolve();
	private becomeIdle: (() => void) | undefined;

	/**
	 * An idle Agent: only `options.model` is required; nothing runs until `prompt()` or `continue()`. Without
	 * `streamFn`, each model call goes through the provider registry, which needs the model's key (its
	 * environment variable, `getApiKey` or `streamOptions.apiKey`) by the first call, not here.
	 *
	 * Throws at once for a setup no run could use: tools that are not an array of tools with distinct names
	 * providers accept and object parameters (rule T1), a `deadline` that is not a number (rule A7), a thinking
	 * level that is not a level (rule X5), restored `pendingApprovals` or `approvalDecisions` that do not match
	 * `messages` (rule T16).
	 */
	constructor(options: AgentOptions) {
		const {
			model,
			systemPrompt,
			thinkingLevel,
			tools,
			messages,
			streamFn,
			steeringMode,
			followUpMode,
			onSubscriberError,
			pendingApprovals,
			approvalDecisions,
			...hooks
		} = options;
		checkTools(tools);
		checkDeadline(hooks.deadline, "new Agent");
		const transcript = messages ? messages.slice() : [];
		const pending = pendingApprovals ? checkedPending(pendingApprovals, transcript) : [];
		this._state = {
			systemPrompt: systemPrompt ?? "",
			model,
			// A level given only in `streamOptions` is where the Agent starts: its own level replaces that one.
			thinkingLevel: checkedThinkingLevel(
				thinkingLevel ?? hooks.streamOptions?.thinkingLevel ?? "off",
				"new Agent",
			),
			tools: tools ?? [],
			messages: transcript,
			isStreaming: false,
			streamMessage: undefined,
			pendingToolCalls: this.running,
			pendingApprovals: pending,
			approvalDecisions: checkedDecisions(approvalDecisions, pending),
		};
		this.hooks = hooks;
		this.streamFn = streamFn;
		this.steering = new MessageQueue(checkQueueMode(steeringMode, "new Agent: steeringMode"));
		this.followUps = new MessageQueue(checkQueueMode(followUpMode, "new Agent: followUpMode"));
		this.onSubscriberError =
			onSubscriberError ?? ((error) => console.error("capstan: subscriber error", error));
	}

	/**
	 * The current state: the Agent's own object, live, not a snapshot, so read it again after an `await`.
	 * Read-only: change it through the methods (rule Q1).
	 */
	get state(): Readonly<AgentState> {
		return this._state;
	}

	/**
	 * Listen to every event of every run; returns the function that unsubscribes. A listener is called in the
	 * call that emitted the event, after `state` has taken it in (rule Q6), and is not awaited. Subscribing the
	 * same function twice is one subscription. Listener errors — thrown, or rejected by an `async` listener — are
	 * caught and reported (rule Q5). At `agent_end` the run no longer holds the Agent: a listener may start the next
	 * run there, and every listener still sees this `agent_end` before that run's `agent_start` (rule Q8).
	 */
	subscribe(listener: (event: AgentEvent) => void): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	/**
	 * Start a run with a prompt and wait for it to end. `input` is a text (sent as one user message with
	 * `images`, if any), a message, or several messages that form the prompt together.
	 *
	 * Rejects before anything runs: with `AgentBusyError` while a run is active (rule Q3), with
	 * `ApprovalPendingError` while tool calls await `approve` / `deny` (rule T17), with a `TypeError` for a user
	 * message with nothing in it (blank text and no image, rule Q7) or an empty array, or for `images` given with a message rather
	 * than a text (they would have nowhere to go), and with an `Error` when `state.messages`
	 * ends with tool calls that have no results (a transcript saved mid-batch, rule T17: `continue()` runs them
	 * first). Called from a subscriber of `agent_end`, or while a run `reset()` cut short winds down, it is
	 * accepted and the run starts once the ending run has delivered its last event (rule Q8). Failures once the
	 * run has started do not throw: they end the run as data (`state.error`, `agent_end.outcome`).
	 */
	async prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
		if (images?.length && typeof input !== "string")
			throw new TypeError(
				"Agent.prompt: images are attached only to a text prompt; put them in the message's content instead",
			);
		const prompts = Array.isArray(input)
			? input
			: [typeof input === "string" ? this.userMessage(input, images) : input];
		if (prompts.length === 0)
			throw new TypeError("Agent.prompt: no messages to send; continue() goes on without a new one");
		for (const prompt of prompts) refuseBlank(prompt, "prompt");
		if (this._state.isStreaming) throw new AgentBusyError("prompt");
		this.refuseWhileAwaiting("prompt");
		await this.run((context, config, signal) => agentLoop(prompts, context, config, signal));
	}

	/**
	 * Continue without a new prompt (rule Q4): resume a batch left without results; otherwise a queued
	 * steer, else a queued follow-up (else a queued aside) becomes the next input; otherwise continue from a
	 * transcript ending in a user or tool result message. With approvals pending and every one of them decided
	 * in `state.approvalDecisions` (restored through `AgentOptions.approvalDecisions`), it resumes the paused
	 * batch with those decisions (rule T16).
	 *
	 * Rejects with `NothingToContinueError` when nothing is queued and the transcript is empty or ends with a
	 * complete assistant reply — never while a message is queued. Rejects, queued messages or not, with
	 * `AgentBusyError` during a run (rule Q3), with `ApprovalPendingError` while a pending tool call has no
	 * decision (rule T17: the queued message waits for the resumed run), and with an `Error` when a user message follows
	 * unanswered tool calls (rule T17). Accepted while a run ends, like {@link Agent.prompt} (rule Q8).
	 */
	async continue(): Promise<void> {
		if (this._state.isStreaming) throw new AgentBusyError("continue");
		const pending = this._state.pendingApprovals;
		if (pending.length > 0) {
			const approvals = this._state.approvalDecisions;
			if (!decidesEvery(pending, approvals)) throw new ApprovalPendingError("continue", pending, approvals);
			// Only decisions restored through AgentOptions (or kept by a resume that failed to start) get here:
			// the last approve()/deny() resumes by itself.
			await this.resume(pending, approvals);
			return;
		}
		const messages = this._state.messages;
		const resumable = findDanglingBatch(messages) !== undefined;
		if (!resumable) {
			const queue = [this.steering, this.followUps, this.asides].find((q) => q.size > 0);
			const queued = queue ? queue.dequeue() : [];
			if (queued.length > 0) {
				await this.run((context, config, signal) => agentLoop(queued, context, config, signal));
				return;
			}
			const last = messages[messages.length - 1] as { role?: unknown } | undefined;
			if (last === undefined || last.role === "assistant") {
				throw new NothingToContinueError(
					last === undefined
						? "Nothing to continue from: the transcript is empty and no message is queued."
						: "Nothing to continue from: the last message is a complete assistant reply and no message is queued. Use prompt() or followUp().",
				);
			}
		}
		await this.run((context, config, signal) => agentLoopContinue(context, config, signal));
	}

	/**
	 * Approve a tool call awaiting approval (rule T16): one of `state.pendingApprovals`. Once every pending call
	 * is decided, the batch resumes as a new run and the promise resolves when that run ends; before that it
	 * resolves at once; `state.approvalDecisions` shows the decisions so far. Deciding the same id again
	 * replaces the earlier decision. Rejects with an `Error` for an
	 * id that is not pending, and with `AgentBusyError` during a run. From a subscriber of the paused run's
	 * `agent_end` it is accepted: the resumed run starts once that event reached every subscriber (rule Q8).
	 */
	approve(toolCallId: string): Promise<void> {
		return this.decide(toolCallId, { approved: true }, "approve");
	}

	/**
	 * Deny a tool call awaiting approval (rule T16): it is not executed, and the model reads a result saying
	 * the user denied it, with `reason`. Resumes like {@link Agent.approve}.
	 */
	deny(toolCallId: string, reason?: string): Promise<void> {
		const decision: ApprovalDecision =
			reason === undefined ? { approved: false } : { approved: false, reason };
		return this.decide(toolCallId, decision, "deny");
	}

	/**
	 * Queue a steering message (rule Q2); a string becomes a user message. During a run it is injected after
	 * the current batch's results, before the next model call (rule T12), and with `interruptMode: "immediate"`
	 * (the default) it cuts the batch short: calls not started are skipped, running `interruptible` tools are
	 * aborted (rule T10). With no run active it stays queued for the next run, which takes it after its first
	 * reply; `continue()` takes it as its input (rule Q4). Throws a `TypeError` for a user message with nothing in
	 * it (blank text and no image, rule Q7).
	 */
	steer(message: string | AgentMessage): void {
		this.steering.enqueue(refuseBlank(this.asMessage(message), "steer"));
	}

	/**
	 * Queue a follow-up: one more turn after the agent would otherwise stop (rule L9); a string becomes a user
	 * message. With no run active it stays queued: the next run takes it when it would stop, `continue()` as its
	 * input when no steer is queued (rule Q4). Throws a `TypeError` for a user message with nothing in it (blank
	 * text and no image, rule Q7).
	 */
	followUp(message: string | AgentMessage): void {
		this.followUps.enqueue(refuseBlank(this.asMessage(message), "followUp"));
	}

	/**
	 * Queue a passive notice, such as a background job that finished (rule L10): it never interrupts a tool;
	 * it joins a run at a turn boundary where the run goes on anyway, or revives it when it would stop, before
	 * follow-ups. Every queued aside is taken at once. A custom message reaches the model only through a
	 * `convertToLlm` that keeps it (rule C2). Throws a `TypeError` for a user message with nothing in it (blank
	 * text and no image, rule Q7).
	 */
	aside(message: AgentMessage): void {
		this.asides.enqueue(refuseBlank(message, "aside"));
	}

	/**
	 * The queued steering messages, oldest first (rule Q2): a read-only view of the queue's current array, not a
	 * copy, so copy it to keep it.
	 */
	peekSteeringQueue(): readonly AgentMessage[] {
		return this.steering.peek();
	}

	/** The queued follow-ups, oldest first: a read-only view like {@link Agent.peekSteeringQueue}. */
	peekFollowUpQueue(): readonly AgentMessage[] {
		return this.followUps.peek();
	}

	/** Drop every queued steering, follow-up and aside message. */
	clearQueues(): void {
		this.steering.clear();
		this.followUps.clear();
		this.asides.clear();
	}

	/**
	 * Abort the active run (rule A1): it ends with outcome `aborted`; `prompt()` resolves, it does not reject.
	 * `reason` becomes the text of the outcome and of the aborted reply (rule A5: a non-empty string as it is,
	 * an `Error`'s message, otherwise "Request was aborted"). The queues are left as they are (rule A6). With no
	 * run active but approvals pending, the paused run ends as aborted (rule T17): a short run pairs every call
	 * not denied with the abort placeholder (decisions already made for denials stay); `waitForIdle()` waits for
	 * it. With neither, it does nothing.
	 */
	abort(reason?: unknown): void {
		if (this.abortController) {
			this.abortController.abort(reason);
			return;
		}
		if (this._state.pendingApprovals.length === 0) return;
		const approvals = this._state.approvalDecisions;
		this.dropPendingApprovals();
		const ending = this.run((context, config, signal) =>
			agentLoopContinue(context, config, signal, { approvals }),
		);
		// run() has created its controller synchronously (TypeScript still narrows the field to undefined from
		// the check above); aborting before the loop starts means no call runs.
		(this.abortController as FannedAbort | undefined)?.abort(reason);
		ending.catch((error: unknown) => this.onSubscriberError(error, { type: "agent_start" }));
	}

	/**
	 * Resolves when no run is active or accepted to start: a run a subscriber starts from `agent_end` extends
	 * the wait (rule Q8).
	 */
	waitForIdle(): Promise<void> {
		return this.idle;
	}

	/**
	 * Abort any run, then clear the transcript, the queues, the error and pending approvals; the system prompt,
	 * model, thinking level, tools, queue modes and subscribers stay. The state is clear at once, and
	 * nothing of the aborted run reaches it while that run winds down: not its closing messages, not its error,
	 * not a pause for approval, not the end of its `isStreaming` (its subscribers still see its closing
	 * events). The returned promise resolves when it has wound down. The next `prompt()` need not wait for
	 * that: it is accepted at once and starts after the aborted run's last event (rule Q8).
	 */
	reset(): Promise<void> {
		this.abort("Agent was reset");
		if (this.hold) this.giveBack(this.hold);
		this._state.messages = [];
		this._state.error = undefined;
		this.dropPendingApprovals();
		this.clearQueues();
		return this.settled;
	}

	/** Set the system prompt used from the next model call. */
	setSystemPrompt(systemPrompt: string): void {
		this._state.systemPrompt = systemPrompt;
		if (this.runContext) this.runContext.systemPrompt = systemPrompt;
	}

	/** Set the model used from the next run. */
	setModel(model: Model): void {
		this._state.model = model;
	}

	/**
	 * Set the thinking level; applies to the next model call, also mid-run (rule X5). Throws a `TypeError`,
	 * keeping the level it had, for a value that is not a level: a provider would get a budget or an effort it
	 * rejects on every call.
	 */
	setThinkingLevel(level: ThinkingLevel): void {
		this._state.thinkingLevel = checkedThinkingLevel(level, "Agent.setThinkingLevel");
	}

	/**
	 * Set the tools offered from the next run. The array is kept as given, not copied. Throws a `TypeError`,
	 * keeping the tools it had, for a tool whose parameters' root is plainly not an object (`type: "string"`, a
	 * `type` list without `"object"`): a call's arguments are always a JSON object (rule T1). Each run checks
	 * its tools again as it starts.
	 */
	setTools(tools: AgentTool[]): void {
		checkTools(tools);
		this._state.tools = tools;
	}

	/**
	 * Replace the transcript (e.g. a loaded session). The array is copied; the messages in it are shared. Throws
	 * `AgentBusyError` during a run. Pending approvals are dropped: a loaded transcript's unanswered calls run,
	 * or ask again, on `continue()` (rule L6, T17).
	 */
	replaceMessages(messages: AgentMessage[]): void {
		if (this._state.isStreaming) throw new AgentBusyError("replaceMessages");
		this._state.messages = messages.slice();
		this.dropPendingApprovals();
	}

	/**
	 * Set the steering and follow-up dequeue modes (rule Q2), from the next dequeue; an omitted one stays.
	 * Throws a `TypeError`, changing neither, for a value that is not a mode.
	 */
	setQueueModes(modes: { steering?: QueueMode; followUp?: QueueMode }): void {
		const steering = checkQueueMode(modes.steering, "Agent.setQueueModes: steering");
		const followUp = checkQueueMode(modes.followUp, "Agent.setQueueModes: followUp");
		if (steering) this.steering.mode = steering;
		if (followUp) this.followUps.mode = followUp;
	}

	private dropPendingApprovals(): void {
		this._state.pendingApprovals = [];
		this._state.approvalDecisions = {};
	}

	private refuseWhileAwaiting(method: string): void {
		const pending = this._state.pendingApprovals;
		if (pending.length > 0) throw new ApprovalPendingError(method, pending, this._state.approvalDecisions);
	}

	private async decide(toolCallId: string, decision: ApprovalDecision, method: string): Promise<void> {
		if (this._state.isStreaming) throw new AgentBusyError(method);
		const pending = this._state.pendingApprovals;
		if (!pending.some((p) => p.toolCallId === toolCallId)) {
			const open = pending.map((p) => p.toolCallId).join(", ");
			throw new Error(
				`${method}(${JSON.stringify(toolCallId)}): no tool call with this id awaits approval` +
					(open ? ` (awaiting: ${open})` : " (nothing awaits approval)"),
			);
		}
		// A computed key defines an own property, even for "__proto__".
		const approvals: ApprovalDecisions = { ...this._state.approvalDecisions, [toolCallId]: decision };
		this._state.approvalDecisions = approvals;
		if (decidesEvery(pending, approvals)) await this.resume(pending, approvals);
	}

	/** Resume the paused batch with a decision for every pending call, as a new run (rule T16). */
	private async resume(pending: readonly PendingApproval[], approvals: ApprovalDecisions): Promise<void> {
		this.dropPendingApprovals();
		try {
			await this.run((context, config, signal) => agentLoopContinue(context, config, signal, { approvals }));
		} catch (error) {
			// The run never started (the loop refused the context): nothing was decided, nothing may be lost.
			if (!this._state.isStreaming && this._state.pendingApprovals.length === 0) {
				this._state.pendingApprovals = pending;
				this._state.approvalDecisions = approvals;
			}
			throw error;
		}
	}

	/**
	 * Accept a run and drive it to its last event. The state is taken at once (`isStreaming`, the abort
	 * controller, the context `setSystemPrompt` writes to); the loop starts at once too, unless an earlier run
	 * that gave the state back is still delivering its last events (rule Q8): then it starts after them, so no
	 * subscriber sees this run begin before that one ended.
	 */
	private async run(
		start: (context: AgentContext, config: AgentLoopConfig, signal: AbortSignal) => AgentEventStream,
	): Promise<void> {
		const controller = createFannedAbort();
		const context: AgentContext = {
			systemPrompt: this._state.systemPrompt,
			messages: this._state.messages,
			tools: this._state.tools,
		};
		const config = this.loopConfig();
		const begin = () => start(context, config, controller.signal);
		const previous = this.inFlight > 0 ? this.settled : undefined;
		// Started before the state is taken: a context the loop refuses throws with the state unchanged.
		const stream = previous === undefined ? begin() : undefined;
		const hold = this.take(context, controller);
		let finished!: () => void;
		this.settled = new Promise((resolve) => (finished = resolve));
		try {
			if (previous !== undefined) await previous;
			const events = stream ?? begin();
			if (hold.held) this._state.error = undefined;
			// Drained, not iterated: each event reaches subscribers in the call that emitted it, so a subscriber's
			// steer() or abort() acts before the loop takes its next step, and no event waits in a queue.
			await events.drain(
				new RunDispatch(this._state, this.running, this.listeners, this.onSubscriberError, hold),
			);
		} finally {
			this.giveBack(hold);
			finished();
			if (--this.inFlight === 0) {
				this.becomeIdle?.();
				this.becomeIdle = undefined;
			}
		}
	}

	/** The state passes to a run accepted now: the Agent is busy until it gives the state back. */
	private take(context: AgentContext, controller: FannedAbort): StateHold {
		const hold: StateHold = { held: true, release: () => this.giveBack(hold) };
		this.hold = hold;
		this.abortController = controller;
		this.runContext = context;
		this._state.isStreaming = true;
		if (this.inFlight++ === 0) this.idle = new Promise((resolve) => (this.becomeIdle = resolve));
		return hold;
	}

	/** The run's part of the state is cleared, once: from here on the Agent accepts the next call (rule Q8). */
	private giveBack(hold: StateHold): void {
		if (!hold.held) return;
		hold.held = false;
		this.hold = undefined;
		this.abortController = undefined;
		this.runContext = undefined;
		this._state.isStreaming = false;
		this._state.streamMessage = undefined;
		this.running.clear();
	}

	private loopConfig(): AgentLoopConfig {
		const config: AgentLoopConfig = {
			...this.hooks,
			model: this._state.model,
			getThinkingLevel: () => this._state.thinkingLevel,
			getSteeringMessages: () => this.steering.dequeue(),
			hasSteeringMessages: () => this.steering.size > 0,
			onSteeringQueued: (listener) => this.steering.onQueued(listener),
			getFollowUpMessages: () => this.followUps.dequeue(),
			getAsideMessages: () => this.asides.dequeue(),
		};
		// The package edge's defaults, filled here: `agentLoop` would otherwise copy this fresh object to add them.
		config.streamFn = this.streamFn ?? registryStream;
		config.replyGuard ??= providerReplyGuard;
		return config;
	}

	private userMessage(text: string, images?: ImageContent[]): UserMessage {
		const now = this.hooks.now ?? Date.now;
		return {
			role: "user",
			content: images?.length ? [{ type: "text", text }, ...images] : text,
			timestamp: now(),
		};
	}

	private asMessage(message: string | AgentMessage): AgentMessage {
		return typeof message === "string" ? this.userMessage(message) : message;
	}
}

/**
 * Rule Q7: a user message must say something. A blank one cannot be sent as it is, and a provider that left it
 * out would end the request with the assistant's reply (a prefill: the model continues it instead of
 * answering). Other roles pass: custom messages are the converter's to keep or drop (rule C2).
 */
function refuseBlank(message: AgentMessage, method: string): AgentMessage {
	const { role, content } = message as { role?: unknown; content?: unknown };
	if (role === "user" && (typeof content === "string" || Array.isArray(content)) && !hasUserContent(content))
		throw new TypeError(
			`Agent.${method}: the message has nothing in it (blank text and no image), and a model cannot answer an empty turn; pass some text or an image${method === "prompt" ? ", or use continue() to go on without a new message" : ""}`,
		);
	return message;
}
