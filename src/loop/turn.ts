import type { AgentMessage, AssistantMessage, ToolCall, ToolResultMessage } from "../core/messages.js";
import { toolCallsOf } from "../core/messages.js";
import type { SoftToolRequirement } from "../protocol/config.js";
import type { PendingApproval } from "../tools/approval.js";
import { runToolBatch, type ToolBatchInput } from "../tools/batch.js";
import { placeholderResult } from "../tools/placeholders.js";
import type { PlaceholderReason } from "../tools/types.js";
import { decideAfterReply, nextPausedCount } from "./decide.js";
import { commitMessage, emit, replaceMessage } from "./emit.js";
import { recordEnding, replyEnding } from "./outcome.js";
import type { DanglingBatch } from "./pairing.js";
import { buildProviderCall, nothingToAnswer, type ProviderCall } from "./provider-call.js";
import type { RunState } from "./run-state.js";
import { signalFacts, steeringProbe, stopFacts, untilAborted } from "./signals.js";
import {
	applySoftJudgement,
	judgeSoftTurn,
	markReminded,
	planSoftGate,
	type SoftVerdict,
} from "./soft-requirement.js";
import { streamAssistantReply } from "./stream-reply.js";

/** What the inner loop does after a turn (rule L7). */
export type TurnNext = "continue" | "idle" | "end";

/**
 * One turn (rule L8): soft-requirement gate (X1) → prepare the provider call (C1) → `beforeModelCall` (X6) →
 * `turn_start` → inject Pending → stream the reply → decide by stop reason (S) → run tools or write
 * placeholders → `turn_end` → `onTurnEnd`. Preparing before `turn_start` changes no observable order and lets
 * the X6 gate stop the run without leaving a turn open. `owed`: the previous turn asked for this one (tools,
 * rule S3, X1), so the model is called whatever Pending holds.
 */
export async function runTurn(state: RunState, owed: boolean): Promise<TurnNext> {
	const { config } = state;
	const plan = planSoftGate(config.getToolChoice?.(), config.toolChoice, state.soft);
	if (plan.remind.length > 0) {
		state.pending = [...state.pending, ...plan.remind];
		markReminded(plan, state.soft);
	}
	const built = buildProviderCall(state, state.pending, plan.toolChoice);
	const call = built instanceof Promise ? await built : built;
	if (!owed && nothingToAnswer(call.context.messages, state.messages)) return settleWithoutCall(state);
	if (config.beforeModelCall && (await stoppedByGate(state, call))) return "end";

	emit(state, { type: "turn_start" });
	const pending = state.pending;
	state.pending = [];
	for (let i = 0; i < pending.length; i++) commitMessage(state, pending[i] as AgentMessage);

	const reply = await streamAssistantReply(state, call);
	const { message, toolResults, next } = await settleReply(state, reply, plan.requirement);
	if (next === "end") recordEnding(state, replyEnding(message, stopFacts(state)));

	emit(state, { type: "turn_end", message, toolResults });
	// An unset hook (or one that returns nothing) costs no tick.
	const ended = config.onTurnEnd?.({ message, toolResults });
	if (ended !== undefined) await untilAborted(state, ended);
	return next;
}

/**
 * Rule C2: no model call when there is nothing to answer (see `nothingToAnswer`). Pending is committed outside
 * any turn, as after the X6 gate (rule I3), and the loop goes idle: a queued follow-up is still taken.
 */
function settleWithoutCall(state: RunState): TurnNext {
	const pending = state.pending;
	state.pending = [];
	for (let i = 0; i < pending.length; i++) commitMessage(state, pending[i] as AgentMessage);
	return "idle";
}

/** rule X6: `{stop: true}` ends the run before the call; Pending is still committed by the run's end. */
async function stoppedByGate(state: RunState, call: ProviderCall): Promise<boolean> {
	const { config } = state;
	if (!config.beforeModelCall) return false;
	const gate = await untilAborted(
		state,
		config.beforeModelCall({
			model: config.model,
			context: call.context,
			options: call.options,
			messages: state.messages,
		}),
	);
	if (!gate?.stop) return false;
	recordEnding(state, { type: "gate", reason: gate.reason });
	return true;
}

interface SettledTurn {
	message: AssistantMessage;
	toolResults: ToolResultMessage[];
	next: TurnNext;
}

/** Apply the stop-reason decision (section S of docs/behaviour.md) and, when a soft requirement is active, its verdict (rule X1). */
async function settleReply(
	state: RunState,
	reply: AssistantMessage,
	requirement: SoftToolRequirement | undefined,
): Promise<SettledTurn> {
	const calls = toolCallsOf(reply);
	const decision = decideAfterReply({
		stopReason: reply.stopReason,
		stopDetails: reply.stopDetails,
		hasToolCalls: calls.length > 0,
		pausedContinuations: state.pausedContinuations,
		deadlinePassed: stopFacts(state).deadlinePassed,
	});
	state.pausedContinuations = nextPausedCount(decision, calls.length > 0, state.pausedContinuations);

	// A paused reply without calls (rule S3) is not the model's answer: its continuation is, so only that is
	// judged. One that used up the continuations ends the run as S3 says, not with a forced call.
	const paused = reply.stopDetails?.type === "pause_turn";
	const judged =
		requirement && (decision.type === "runTools" || (decision.type === "turnComplete" && !paused));
	let verdict: SoftVerdict | undefined;
	if (judged) {
		const judgement = judgeSoftTurn(requirement, calls, state.soft);
		applySoftJudgement(state.soft, judgement);
		verdict = judgement.verdict;
	}
	if (requirement && verdict && verdict.type !== "complied") {
		const skipped = new Map(
			verdict.skip.map((c) => [
				c.id,
				{ reason: "soft_requirement" as const, requiredTool: requirement.toolName },
			]),
		);
		const { message, toolResults } =
			calls.length > 0
				? await runBatch(state, reply, { preSkipped: skipped })
				: { message: reply, toolResults: [] };
		if (verdict.type === "fail") {
			recordEnding(state, { type: "softRequirementFailed", error: verdict.error });
			return { message, toolResults, next: "end" };
		}
		return { message, toolResults, next: "continue" };
	}

	switch (decision.type) {
		case "runTools": {
			const { message, toolResults, paused } = await runBatch(state, reply);
			return { message, toolResults, next: state.runSignal.aborted || paused ? "end" : "continue" };
		}
		case "placeholders": {
			const cause =
				decision.reason === "error" ? (reply.errorMessage ?? "unknown error") : reply.errorMessage;
			return {
				message: reply,
				toolResults: writePlaceholders(state, calls, decision.reason, cause),
				next: decision.next,
			};
		}
		case "continuePaused":
			return { message: reply, toolResults: [], next: "continue" };
		case "turnComplete":
			return { message: reply, toolResults: [], next: "idle" };
		case "endRun":
			return { message: reply, toolResults: [], next: "end" };
	}
}

/**
 * Rule L6/T13: a transcript that ends in an assistant message whose tool calls have no results (a run that
 * crashed between the reply and the results) first gets that batch run — only the unanswered calls.
 */
export async function runResumedBatch(state: RunState, dangling: DanglingBatch): Promise<TurnNext> {
	emit(state, { type: "turn_start" });
	const only = new Set(dangling.calls.map((c) => c.id));
	const { message, toolResults, paused } = await runBatch(state, dangling.assistant, {
		only,
		...(state.decisions ? { decisions: state.decisions } : {}),
	});
	const next: TurnNext = state.runSignal.aborted || paused ? "end" : "continue";
	emit(state, { type: "turn_end", message, toolResults });
	await untilAborted(state, state.config.onTurnEnd?.({ message, toolResults }));
	return next;
}

interface BatchOptions {
	/** Run only these calls (a resumed batch, rule L6). */
	only?: ReadonlySet<string>;
	/** Calls that must not run (rule X1). */
	preSkipped?: ToolBatchInput["preSkipped"];
	/** rule T16: decisions on the calls of a paused batch. */
	decisions?: ToolBatchInput["decisions"];
}

interface BatchOutcome {
	message: AssistantMessage;
	toolResults: ToolResultMessage[];
	/** rule T15: calls were parked for approval; the run ends after this turn. */
	paused: boolean;
}

async function runBatch(
	state: RunState,
	reply: AssistantMessage,
	{ only, preSkipped, decisions }: BatchOptions = {},
): Promise<BatchOutcome> {
	const { config } = state;
	const batchMessage = only
		? { ...reply, content: reply.content.filter((b) => b.type !== "toolCall" || only.has(b.id)) }
		: reply;
	const batch = await runToolBatch({
		assistantMessage: batchMessage,
		tools: state.context.tools ?? [],
		messages: state.messages,
		signal: state.signal,
		abortPlaceholder: () => {
			const stop = signalFacts(state);
			return stop.deadlineAbort
				? { reason: "deadline", cause: "deadline exceeded" }
				: { reason: "aborted", cause: stop.abortReason };
		},
		steering: config.interruptMode === "wait" ? undefined : steeringProbe(state),
		beforeToolCall: config.beforeToolCall,
		afterToolCall: config.afterToolCall,
		runStep: state.runStep,
		emit: (event) => emit(state, event),
		now: state.now,
		intentTracing: config.intentTracing === true,
		// Keys always present (a literal, not conditional spreads): every batch input shares one hidden class.
		preSkipped,
		decisions,
	});
	let message = reply;
	if (batch.revisedArguments.size > 0) {
		// Rule T4: history, events and execution agree on the revised arguments. The committed reply is
		// never mutated (subscribers hold it); the transcript gets a structurally shared copy instead.
		message = {
			...reply,
			content: reply.content.map((block) => {
				const revised = block.type === "toolCall" ? batch.revisedArguments.get(block.id) : undefined;
				return revised && block.type === "toolCall" ? { ...block, arguments: revised } : block;
			}),
		};
		replaceMessage(state, reply, message);
	}
	// Indexed loops, not `for…of` (a third of the bytecode): these run once per turn, mostly as cold code.
	const { results } = batch;
	for (let i = 0; i < results.length; i++) commitMessage(state, results[i] as ToolResultMessage);
	const paused = requestApprovals(state, batch.awaitingApproval);
	return { message, toolResults: batch.results, paused };
}

/**
 * Rule T15: parked calls become approval requests — one event each, after the batch's results — and the run
 * ends with them as its pending approvals. Their calls stay unanswered in the transcript until a decision.
 */
function requestApprovals(state: RunState, pending: PendingApproval[]): boolean {
	if (pending.length === 0) return false;
	for (const { toolCallId, toolName, args } of pending)
		emit(state, { type: "approval_requested", toolCallId, toolName, args });
	recordEnding(state, { type: "awaitingApproval", pending });
	return true;
}

/** Pair every call of a reply that cannot run (rule A3, S2, S4, T13). */
export function writePlaceholders(
	state: RunState,
	calls: readonly ToolCall[],
	reason: PlaceholderReason,
	cause: string | undefined,
): ToolResultMessage[] {
	const results = calls.map((call) => placeholderResult(call, reason, state.now(), { cause }));
	for (const result of results) commitMessage(state, result);
	return results;
}
