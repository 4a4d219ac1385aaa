import { buildProviderCall } from "../context/build.js";
import { abortReasonText } from "../core/abort.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../core/messages.js";
import { toolCallsOf } from "../core/messages.js";
import { runToolBatch } from "../tools/batch.js";
import { placeholderResult } from "../tools/placeholders.js";
import type { PlaceholderReason } from "../tools/types.js";
import { decideAfterReply, nextPausedCount } from "./decide.js";
import { commitMessage, emit, replaceMessage } from "./emit.js";
import type { DanglingBatch } from "./pairing.js";
import type { RunState } from "./run-state.js";
import { deadlinePassed, isDeadlineAbort, steeringProbe } from "./signals.js";
import { streamAssistantReply } from "./stream-reply.js";

/** What the inner loop does after a turn (SPEC L7). */
export type TurnNext = "continue" | "idle" | "end";

/**
 * One turn (SPEC L8): prepare the provider call (C1) → gate (X6) → `turn_start` → inject Pending → stream
 * the reply → decide by stop reason (S) → run tools or write placeholders → `turn_end` → `onTurnEnd`.
 * Preparing before `turn_start` changes no observable order and lets the X6 gate stop the run without
 * leaving a turn open.
 */
export async function runTurn(state: RunState): Promise<TurnNext> {
	const { config } = state;
	const call = await buildProviderCall(state, state.pending, hardToolChoice(state));

	if (config.beforeModelCall) {
		const gate = await config.beforeModelCall({
			model: config.model,
			context: call.context,
			options: call.options,
			messages: state.messages,
		});
		if (gate?.stop) {
			state.outcome = { type: "completed", stoppedBy: gate.reason ?? "beforeModelCall" };
			return "end";
		}
	}

	emit(state, { type: "turn_start" });
	const pending = state.pending;
	state.pending = [];
	for (const message of pending) commitMessage(state, message);

	const reply = await streamAssistantReply(state, call);
	const calls = toolCallsOf(reply);
	const decision = decideAfterReply({
		stopReason: reply.stopReason,
		stopDetails: reply.stopDetails,
		hasToolCalls: calls.length > 0,
		pausedContinuations: state.pausedContinuations,
		deadlinePassed: deadlinePassed(state),
	});
	state.pausedContinuations = nextPausedCount(decision, calls.length > 0, state.pausedContinuations);

	let message = reply;
	let toolResults: ToolResultMessage[] = [];
	let next: TurnNext;
	switch (decision.type) {
		case "runTools": {
			({ message, toolResults } = await runBatch(state, reply));
			next = state.signal.aborted ? "end" : "continue";
			break;
		}
		case "placeholders": {
			const cause =
				decision.reason === "error" ? (reply.errorMessage ?? "unknown error") : reply.errorMessage;
			toolResults = writePlaceholders(state, calls, decision.reason, cause);
			next = decision.next;
			break;
		}
		case "continuePaused":
			next = "continue";
			break;
		case "turnComplete":
			next = "idle";
			break;
		case "endRun":
			next = "end";
			break;
	}
	if (next === "end") state.outcome ??= outcomeOfEndedTurn(state, message);

	emit(state, { type: "turn_end", message, toolResults });
	await config.onTurnEnd?.({ message, toolResults });
	return next;
}

/**
 * SPEC L6/T13: a transcript that ends in an assistant message whose tool calls have no results (a run that
 * crashed between the reply and the results) first gets that batch run — only the unanswered calls.
 */
export async function runResumedBatch(state: RunState, dangling: DanglingBatch): Promise<TurnNext> {
	emit(state, { type: "turn_start" });
	const { message, toolResults } = await runBatch(
		state,
		dangling.assistant,
		new Set(dangling.calls.map((c) => c.id)),
	);
	const next: TurnNext = state.signal.aborted ? "end" : "continue";
	emit(state, { type: "turn_end", message, toolResults });
	await state.config.onTurnEnd?.({ message, toolResults });
	return next;
}

async function runBatch(
	state: RunState,
	reply: AssistantMessage,
	only?: ReadonlySet<string>,
): Promise<{ message: AssistantMessage; toolResults: ToolResultMessage[] }> {
	const { config } = state;
	const batchMessage = only
		? { ...reply, content: reply.content.filter((b) => b.type !== "toolCall" || only.has(b.id)) }
		: reply;
	const batch = await runToolBatch({
		assistantMessage: batchMessage,
		tools: state.context.tools ?? [],
		messages: state.messages,
		signal: state.signal,
		abortPlaceholder: () =>
			isDeadlineAbort(state)
				? { reason: "deadline", cause: "deadline exceeded" }
				: { reason: "aborted", cause: abortReasonText(state.signal.reason) },
		steering: config.interruptMode === "wait" ? undefined : steeringProbe(state),
		beforeToolCall: config.beforeToolCall,
		afterToolCall: config.afterToolCall,
		runStep: state.runStep,
		emit: (event) => emit(state, event),
		now: state.now,
		intentTracing: config.intentTracing === true,
	});
	let message = reply;
	if (batch.revisedArguments.size > 0) {
		// SPEC T4: history, events and execution agree on the revised arguments. The committed reply is
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
	for (const result of batch.results) commitMessage(state, result);
	return { message, toolResults: batch.results };
}

/** Pair every call of a reply that cannot run (SPEC A3, S2, S4, T13). */
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

function outcomeOfEndedTurn(state: RunState, message: AssistantMessage) {
	if (isDeadlineAbort(state) || (message.stopReason !== "error" && deadlinePassed(state))) {
		return { type: "deadline" as const };
	}
	if (message.stopReason === "aborted" || state.signal.aborted) {
		return { type: "aborted" as const, reason: message.errorMessage ?? abortReasonText(state.signal.reason) };
	}
	return { type: "error" as const, error: message.errorMessage ?? "the model call failed" };
}

/** The static hard tool choice; soft requirements (SPEC X1) are resolved by the requirement gate. */
function hardToolChoice(state: RunState) {
	const choice = state.config.getToolChoice?.();
	if (choice === undefined || (typeof choice === "object" && "soft" in choice)) return undefined;
	return choice;
}
