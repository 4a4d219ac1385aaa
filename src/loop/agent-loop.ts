import { EventStream } from "../core/event-stream.js";
import type { AgentMessage, ToolCall } from "../core/messages.js";
import { checkedThinkingLevel, type StreamFunction } from "../core/model.js";
import { runStepDirectly } from "../core/step-runner.js";
import type { AgentLoopConfig } from "../protocol/config.js";
import type { AgentContext, AgentEvent } from "../protocol/events.js";
import { createRunTelemetry } from "../telemetry/collector.js";
import { type ApprovalDecisions, isApprovalDecision } from "../tools/approval.js";
import { checkTools } from "../tools/definition-checks.js";
import { findDanglingBatch } from "./pairing.js";
import { runAgentLoop } from "./run.js";
import type { RunState } from "./run-state.js";
import { checkDeadline, createRunSignal, stopFacts } from "./signals.js";
import { WireLog } from "./wire-log.js";

/** The stream of one run: every event, then every message the run added, in context order. */
export type AgentEventStream = EventStream<AgentEvent, AgentMessage[]>;

/**
 * A run's configuration with its stream function chosen. The loop picks no default: that is the package
 * edge's job (`src/edge/`), so the loop imports no provider.
 */
export type LoopConfig = AgentLoopConfig & { streamFn: StreamFunction };

/** What `agentLoopContinue` may be given besides the context (rule T16). */
export interface ContinueOptions {
	/**
	 * Decisions on the tool calls a paused run left awaiting approval, by tool call id. Every id must be an
	 * unanswered call of the context's last assistant message; calls left undecided ask again.
	 */
	approvals?: ApprovalDecisions;
}

/** Start a run with new prompt messages (rule L1); `agentLoop` at the package edge documents the contract. */
export function startAgentLoop(
	prompts: AgentMessage[],
	context: AgentContext,
	config: LoopConfig,
	signal?: AbortSignal,
): AgentEventStream {
	checkPromptable(context.messages);
	return startRun(context, config, signal, prompts, undefined);
}

/**
 * Rule T17: throws when a prompt cannot follow `messages` (unanswered tool calls at the end). Exported for
 * hosts that check a run's input before they commit to it (the durable core).
 */
export function checkPromptable(messages: readonly AgentMessage[]): void {
	const dangling = findDanglingBatch(messages);
	// A prompt after unanswered calls would reach the provider as an unpaired call, which every provider
	// rejects; say what to do instead of letting the request fail.
	if (dangling) {
		throw new Error(
			`agentLoop: the context ends with tool calls that have no results (${idList(dangling.calls)}) — calls awaiting approval, or a batch cut off by a crash. Resume them first with agentLoopContinue(context, config, signal, { approvals }), then prompt.`,
		);
	}
}

/** Continue a run without a new prompt (rule L6, T16); `agentLoopContinue` at the package edge documents the contract. */
export function continueAgentLoop(
	context: AgentContext,
	config: LoopConfig,
	signal?: AbortSignal,
	options: ContinueOptions = {},
): AgentEventStream {
	const decisions = checkContinuable(context.messages, options.approvals);
	return startRun(context, config, signal, [], decisions ?? {});
}

/**
 * Rules L6, T16: throws when a run cannot continue from `messages` with `approvals` (an empty context, a
 * finished assistant reply, a decision on no unanswered call or of the wrong shape). Exported for hosts that
 * check a run's input before they commit to it (the durable core).
 */
export function checkContinuable(
	messages: readonly AgentMessage[],
	approvals: ApprovalDecisions | undefined,
): ApprovalDecisions | undefined {
	if (messages.length === 0)
		throw new Error("agentLoopContinue: the context is empty; there is nothing to continue from");
	const dangling = findDanglingBatch(messages);
	const last = messages[messages.length - 1] as { role?: unknown };
	if (last.role === "assistant" && !dangling) {
		throw new Error(
			"agentLoopContinue: the context ends with an assistant message that has no unanswered tool calls; add a user message (or use agentLoop with a prompt) to continue",
		);
	}
	// Rule T17: the results would land after that message, and every provider rejects a call whose result
	// does not follow it directly.
	if (dangling && messages.slice(messages.lastIndexOf(dangling.assistant)).some(isUserMessage)) {
		throw new Error(
			`agentLoopContinue: tool calls have no results (${idList(dangling.calls)}) but a user message follows them; a provider rejects results after it. Remove the messages after the calls, or answer the calls before adding a message.`,
		);
	}
	return checkedDecisions(approvals, dangling?.calls ?? []);
}

function isUserMessage(message: AgentMessage): boolean {
	return (message as { role?: unknown }).role === "user";
}

/** Rule T16: decisions arrive from outside (often parsed JSON); a wrong id or shape fails before the run. */
function checkedDecisions(
	approvals: ApprovalDecisions | undefined,
	calls: readonly ToolCall[],
): ApprovalDecisions | undefined {
	if (approvals === undefined) return undefined;
	if (typeof approvals !== "object" || approvals === null || Array.isArray(approvals))
		throw new TypeError("agentLoopContinue: `approvals` must be an object of decisions by tool call id");
	const open = new Set(calls.map((call) => call.id));
	for (const [id, decision] of Object.entries(approvals)) {
		if (!open.has(id)) {
			throw new Error(
				`agentLoopContinue: no unanswered tool call "${id}" in the context's last assistant message` +
					(open.size > 0 ? ` (awaiting: ${idList(calls)})` : " (nothing awaits approval)"),
			);
		}
		if (!isApprovalDecision(decision))
			throw new TypeError(
				`agentLoopContinue: the decision for "${id}" must be { approved: true } or { approved: false, reason?: string }`,
			);
	}
	return approvals;
}

function idList(calls: readonly ToolCall[]): string {
	return calls.map((call) => call.id).join(", ");
}

/** `decisions` undefined: a run with prompts; an object: a continued run, resuming any dangling batch first. */
function startRun(
	context: AgentContext,
	config: LoopConfig,
	signal: AbortSignal | undefined,
	prompts: AgentMessage[],
	decisions: ApprovalDecisions | undefined,
): AgentEventStream {
	// Rule T1: a tool no call could ever pass is a mistake in the host's code, refused before the run starts.
	checkTools(context.tools);
	checkDeadline(config.deadline, "agentLoop");
	const level = config.streamOptions?.thinkingLevel;
	if (level !== undefined) checkedThinkingLevel(level, "agentLoop: streamOptions.thinkingLevel");
	const events: AgentEventStream = new EventStream();
	const now = config.now ?? Date.now;
	const runSignal = createRunSignal(signal, config.deadline, now);
	// Rule X3: a collector only when the host opts in; created here, inside the caller's call, so a tracer sink
	// picks up the caller's active context.
	const telemetry = config.telemetry
		? createRunTelemetry(config.telemetry, {
				model: config.model,
				context,
				streamOptions: config.streamOptions,
				now,
				// Read only once the run is under way: `state` is set by then.
				...(config.deadline !== undefined ? { deadlinePassed: () => stopFacts(state).deadlinePassed } : {}),
			})
		: undefined;
	const runStep = config.runStep ?? runStepDirectly;
	const state: RunState = {
		config,
		streamFn: config.streamFn,
		runStep: telemetry ? telemetry.wrapStepRunner(runStep) : runStep,
		now,
		context,
		messages: context.messages.slice(),
		added: [],
		decisions,
		pending: prompts.slice(),
		events,
		signal: runSignal.signal,
		runSignal,
		open: { turn: false, message: undefined, toolExecutions: new Map() },
		modelCalls: 0,
		soft: { reminded: new Set(), satisfied: new Set(), forcing: undefined },
		pausedContinuations: 0,
		ending: undefined,
		replyGuard: undefined,
		telemetry,
		wireLog: new WireLog(),
	};
	queueMicrotask(() => {
		void runAgentLoop(state, decisions !== undefined).finally(runSignal.dispose);
	});
	return events;
}
