/**
 * A run as a pure function of its inputs and its journal: the transcript, the prompts and the settings are
 * inputs; model replies, tool results, the clock and the queues are journaled. Any engine that replays a
 * workflow function from its inputs with recorded step results gets the same path (see docs/durable.md).
 */

import { errorText } from "../core/abort.js";
import type { AgentMessage } from "../core/messages.js";
import type { Model, StreamFunction, ThinkingLevel, ToolChoice } from "../core/model.js";
import { agentLoop, agentLoopContinue } from "../edge/agent-loop.js";
import { checkContinuable, checkPromptable } from "../loop/agent-loop.js";
import { findDanglingBatch } from "../loop/pairing.js";
import { DeadlineExceededError } from "../loop/signals.js";
import type { AgentLoopConfig, Awaitable } from "../protocol/config.js";
import type { AgentEvent } from "../protocol/events.js";
import type { RunOutcome } from "../protocol/outcome.js";
import type { ApprovalDecisions } from "../tools/approval.js";
import type { AgentTool, InterruptedToolPolicy } from "../tools/types.js";
import { DurableClock } from "./clock.js";
import type { DurableInbox, DurableJournal, DurableTopic } from "./journal.js";
import { DurableSteps } from "./step-runner.js";

/**
 * Loop settings a durable run cannot take from the host, because the core owns them to keep replay stable:
 * the step runner and clock (journaled), the queues (the engine's inbox), the deadline (journaled abort).
 */
type CoreOwnedSettings =
	| "model"
	| "streamFn"
	| "runStep"
	| "now"
	| "deadline"
	| "getSteeringMessages"
	| "hasSteeringMessages"
	| "onSteeringQueued"
	| "getFollowUpMessages"
	| "getAsideMessages"
	| "getThinkingLevel"
	| "toolChoice"
	| "interruptMode";

/**
 * The code half of a durable agent, registered identically in every worker: model, stream function, tools and
 * hooks are code, not data, so a workflow's input only names the agent. Hooks in `config` must be
 * deterministic (docs/durable.md): a replay calls them again and must get the same answers.
 */
export interface DurableAgent {
	/** The model every call uses. */
	model: Model;
	/** Default: the provider registry's `stream` (as in `agentLoop`). */
	streamFn?: StreamFunction;
	/** The system prompt. */
	systemPrompt?: string;
	/** The tools; their `idempotent` and `onInterrupted` decide what a replay does after a crash. */
	tools?: AgentTool[];
	/** Default `onInterrupted` for tools that declare none (default `"report"`). */
	onInterrupted?: InterruptedToolPolicy;
	/** Other loop hooks (context transforms, tool hooks, telemetry, …). */
	config?: Omit<AgentLoopConfig, CoreOwnedSettings>;
}

/** Per-run settings, part of the workflow's input (JSON). */
export interface DurableRunSettings {
	/** The reasoning level of every model call (rule X5). */
	thinkingLevel?: ThinkingLevel;
	/** The tool choice of every model call. */
	toolChoice?: ToolChoice;
	/** Epoch ms after which the run stops (rule A7), enforced by the journaled clock and journaled aborts. */
	deadline?: number;
}

/**
 * The input of one durable run (JSON): the transcript so far, the new prompts, the settings, and decisions on
 * a paused batch. Everything that decides the run's path is here, so a replay takes the same path.
 */
export interface DurableRunInput {
	/** The conversation before this run. Default empty. */
	messages?: AgentMessage[];
	/** New prompt messages; empty continues the transcript (`agentLoopContinue`). */
	prompts: AgentMessage[];
	/** Per-run settings. */
	settings?: DurableRunSettings;
	/**
	 * Decisions on the calls a paused run left awaiting approval (rule T16), by tool call id: `messages` is
	 * that run's `result.messages`, `prompts` is empty, and the run resumes the batch through
	 * `agentLoopContinue`'s `approvals`. Undecided calls are requested again.
	 */
	approvals?: ApprovalDecisions;
}

/**
 * The result of a durable run (JSON): the whole transcript, what the run added, how it ended. A run paused
 * for approval (rule T15) ends `{ type: "awaiting_approval", pending }`: resume it with a new run whose
 * input is `{ messages: result.messages, prompts: [], approvals }`.
 */
export interface DurableRunResult {
	/** The whole transcript: the input messages, then what the run added. */
	messages: AgentMessage[];
	/** What the run added (`agent_end.messages`). */
	added: AgentMessage[];
	/** How the run ended (`agent_end.outcome`; `pending` approvals when it paused). */
	outcome: RunOutcome;
}

/**
 * A durable run's input that no attempt can run: a prompt over unanswered tool calls (rule T17), nothing to
 * continue from (rule L6), decisions on calls that are not awaiting approval or of the wrong shape (rule
 * T16). Engines treat it as final rather than retrying: every replay would fail the same way.
 */
export class DurableInputError extends Error {
	/** Always `"DurableInputError"`. */
	override readonly name = "DurableInputError";
}

/**
 * Check a durable run's input before committing to it (`runDurableAgent` does so first; an engine may call
 * it earlier, before it writes any state). Throws a `DurableInputError` that says what is wrong.
 */
export function checkDurableInput(input: DurableRunInput): void {
	const messages = input.messages ?? [];
	try {
		if (!Array.isArray(input.prompts)) throw new Error("`prompts` must be an array of agent messages");
		if (input.prompts.length === 0) {
			// Decisions after the batch was answered (a repeated resume) deserve a clearer word than the
			// loop's "nothing to continue from".
			if (input.approvals && Object.keys(input.approvals).length > 0 && !findDanglingBatch(messages))
				throw new Error(
					`no call awaits approval (decisions on ${Object.keys(input.approvals).join(", ")}): was the batch resumed already?`,
				);
			checkContinuable(messages, input.approvals);
		} else if (input.approvals !== undefined)
			throw new Error("decisions resume a paused batch: send `approvals` with no `prompts`");
		else checkPromptable(messages);
	} catch (error) {
		throw new DurableInputError(`durable run input: ${errorText(error)}`);
	}
}

/**
 * Where an event sits in the run's replay-stable numbering: `seq` counts every event but streaming updates
 * (`message_update`, `tool_execution_update`), which a replay does not repeat; an update carries the `seq` of
 * the event before it and `delta` 1, 2, …. An engine that stores events under (`seq`, `delta`) and ignores
 * duplicates shows a reader each event once across a takeover.
 */
export interface DurableEventPosition {
	/** The index of the event among the run's non-update events (an update: of the one before it). */
	seq: number;
	/** 0 for a non-update event; 1, 2, … for the updates after it. */
	delta: number;
}

/** What an engine hands `runDurableAgent`. */
export interface DurableEngine {
	/** Where steps are recorded. */
	journal: DurableJournal;
	/** Where steering, follow-ups and aborts arrive. */
	inbox: DurableInbox;
	/**
	 * Receives every event of the attempt, in order, with its replay-stable position. If it throws, the run
	 * starts no further step, waits for the steps running, and rejects with that error (journaling nothing
	 * about it, so the engine's retry replays the finished steps and goes on).
	 */
	onEvent?: (event: AgentEvent, position: DurableEventPosition) => Awaitable<void>;
	/** The wall clock whose readings are journaled (the start, each step's end). Default `Date.now`. */
	clock?: () => number;
	/**
	 * Fires when the engine has ended this attempt while the run may still be working (Restate: the
	 * invocation was cancelled, or the attempt's connection closed), its reason the engine's error. The run
	 * then fails with that error, untouched (host rule 8), and aborts the model call and tools still running
	 * at once: the loop's signal, and so each one's, fires with a {@link DurableAttemptEndedError}. Nothing
	 * they return is journaled, so each is left as a crash leaves it (no result; a retry re-runs it or applies
	 * its `onInterrupted` rule). The body still rejects only once they have settled.
	 */
	attemptEnded?: AbortSignal;
}

/**
 * The abort reason the loop's signal (so the running model call's and tools') carries when the engine ended
 * the attempt (`DurableEngine.attemptEnded`); `cause` is the engine's error, the one the run fails with.
 */
export class DurableAttemptEndedError extends Error {
	/** Always `"DurableAttemptEndedError"`. */
	override readonly name = "DurableAttemptEndedError";
	/** @param cause - the engine's error that ended the attempt (e.g. Restate's `CancelledError`). */
	constructor(cause: unknown) {
		super(`The durable engine ended this attempt of the run: ${errorText(cause)}`, { cause });
	}
}

/** The message `runDurableAgent` aborts with when the inbox carries an abort request without a reason. */
export const DURABLE_ABORT_REASON = "aborted by request";

/**
 * Run an agent durably: call it as the body of an engine's workflow. On a replay the engine calls it again
 * with the same input and journal; finished steps return their records, so nothing finished runs twice.
 * It rejects, after the steps still running have settled, with the first error `onEvent` or the engine
 * itself (a journal or inbox call) threw, untouched: the attempt failed and the engine's retry replays it.
 */
export async function runDurableAgent(
	agent: DurableAgent,
	input: DurableRunInput,
	engine: DurableEngine,
): Promise<DurableRunResult> {
	checkDurableInput(input);
	const settings = input.settings ?? {};
	const messages = input.messages ?? [];
	const wallClock = engine.clock ?? Date.now;
	const start = await engine.journal.run("clock:start", async () => wallClock());
	const clock = new DurableClock(start);
	const controller = new AbortController();
	const control =
		settings.deadline === undefined ? { controller } : { controller, deadline: settings.deadline };
	// Once the body has failed (an event consumer threw, the engine failed), the loop must not go on behind
	// it: no new step, no inbox read, no further event delivered.
	let failed: { error: unknown } | undefined;
	const fail = (error: unknown): void => {
		failed ??= { error };
	};
	const tools = agent.tools ?? [];
	const steps = new DurableSteps(engine.journal, {
		tools,
		clock,
		control,
		wallClock,
		onEngineFailure: fail,
		...(agent.onInterrupted ? { onInterrupted: agent.onInterrupted } : {}),
		...(engine.attemptEnded ? { attemptEnded: engine.attemptEnded } : {}),
	});
	const inbox = new BoundaryInbox(engineInbox(engine.inbox, fail), controller, clock, settings.deadline);
	const config: AgentLoopConfig = {
		...agent.config,
		model: agent.model,
		...(agent.streamFn ? { streamFn: agent.streamFn } : {}),
		runStep: (step, fn) => (failed ? Promise.reject(failed.error) : steps.runStep(step, fn)),
		now: () => clock.now(),
		getSteeringMessages: () => (failed ? Promise.reject(failed.error) : inbox.steering()),
		getFollowUpMessages: () => (failed ? Promise.reject(failed.error) : inbox.take("followUp")),
		...(settings.thinkingLevel ? { getThinkingLevel: () => settings.thinkingLevel } : {}),
		...(settings.toolChoice ? { toolChoice: settings.toolChoice } : {}),
	};
	inbox.checkDeadline();
	const context = {
		messages,
		tools,
		...(agent.systemPrompt !== undefined ? { systemPrompt: agent.systemPrompt } : {}),
	};
	const stream =
		input.prompts.length > 0
			? agentLoop(input.prompts, context, config, controller.signal)
			: agentLoopContinue(
					context,
					config,
					controller.signal,
					input.approvals ? { approvals: input.approvals } : undefined,
				);
	let outcome: RunOutcome = { type: "completed" };
	const stopOnAttemptEnd = onAttemptEnded(engine.attemptEnded, (error) => {
		// Failed first: the loop's reaction to the abort (aborted results, its agent_end) is not delivered.
		fail(error);
		controller.abort(new DurableAttemptEndedError(error));
	});
	try {
		try {
			outcome = await forwardEvents(stream, engine.onEvent, () => failed !== undefined);
		} catch (error) {
			fail(error);
		}
		if (failed) {
			// An event consumer failed (the engine's event log, the host's `onEvent`), or the engine itself did
			// (a journal write or an inbox read threw, or it ended the attempt): the body fails with that error,
			// untouched, after the loop wound down and the steps already running settled. What the loop made of
			// the failure (an error tool result, an error reply) is neither delivered nor returned, and no abort
			// is journaled (the engine's end aborts the running steps, whose records are then not written): the
			// engine's retry replays the finished steps and goes on from there.
			await stream.result().catch(() => {});
			await steps.idle();
			throw failed.error;
		}
		const added = await stream.result();
		await steps.idle();
		// A step still running when the loop ended may have met the engine failure last, or the engine may
		// have ended the attempt while the run waited for it.
		if (steps.engineFailure) throw steps.engineFailure.error;
		if (engine.attemptEnded?.aborted) throw engine.attemptEnded.reason;
		return { messages: [...messages, ...added], added, outcome };
	} finally {
		stopOnAttemptEnd();
	}
}

/** Call `ended` with the signal's reason when it fires (at once if it has); returns the unsubscribe. */
function onAttemptEnded(signal: AbortSignal | undefined, ended: (error: unknown) => void): () => void {
	if (!signal) return () => {};
	const listener = () => ended(signal.reason);
	if (signal.aborted) {
		listener();
		return () => {};
	}
	signal.addEventListener("abort", listener, { once: true });
	return () => signal.removeEventListener("abort", listener);
}

/** The engine's inbox, with a failed read (an engine failure) reported before the loop closes it as data. */
function engineInbox(inbox: DurableInbox, fail: (error: unknown) => void): DurableInbox {
	return {
		take: async (topic) => {
			try {
				return await inbox.take(topic);
			} catch (error) {
				fail(error);
				throw error;
			}
		},
	};
}

/** Deliver each event with its position until the stream ends or `stopped()` (the body failed). */
async function forwardEvents(
	stream: AsyncIterable<AgentEvent>,
	onEvent: DurableEngine["onEvent"],
	stopped: () => boolean,
): Promise<RunOutcome> {
	let outcome: RunOutcome = { type: "completed" };
	let seq = -1;
	let delta = 0;
	for await (const event of stream) {
		if (stopped()) break;
		if (event.type === "message_update" || event.type === "tool_execution_update") delta++;
		else {
			seq++;
			delta = 0;
		}
		if (event.type === "agent_end") outcome = event.outcome;
		await onEvent?.(event, { seq, delta });
	}
	return outcome;
}

/**
 * The loop's queues over the engine's inbox, read only at turn boundaries (deterministic points; there is
 * no mid-batch peek, so steering never interrupts a running tool in a durable run). Each boundary first
 * reads the abort topic and the journaled clock against the deadline, so both take effect at the same
 * boundary on every replay.
 */
class BoundaryInbox {
	constructor(
		private readonly inbox: DurableInbox,
		private readonly controller: AbortController,
		private readonly clock: DurableClock,
		private readonly deadline: number | undefined,
	) {}

	async steering(): Promise<AgentMessage[]> {
		const aborts = await this.inbox.take("abort");
		if (aborts.length > 0 && !this.controller.signal.aborted) this.controller.abort(abortReason(aborts[0]));
		this.checkDeadline();
		if (this.controller.signal.aborted) return [];
		return this.take("steer");
	}

	async take(topic: DurableTopic): Promise<AgentMessage[]> {
		return (await this.inbox.take(topic)).filter(isAgentMessage);
	}

	checkDeadline(): void {
		if (this.deadline === undefined || this.controller.signal.aborted) return;
		if (this.clock.now() >= this.deadline) this.controller.abort(new DeadlineExceededError());
	}
}

function abortReason(request: unknown): string {
	const reason = (request as { reason?: unknown } | null)?.reason;
	return typeof reason === "string" && reason.trim() !== "" ? reason : DURABLE_ABORT_REASON;
}

/** Messages come from other processes as JSON: anything without a role is not a message and is dropped. */
function isAgentMessage(value: unknown): value is AgentMessage {
	return (
		typeof value === "object" && value !== null && typeof (value as { role?: unknown }).role === "string"
	);
}
