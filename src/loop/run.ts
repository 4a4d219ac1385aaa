import { errorText } from "../core/abort.js";
import { closeInterruptedMessage } from "../core/interrupt.js";
import type { AssistantMessage, ToolResultMessage } from "../core/messages.js";
import { dequeueAtTurnBoundary, drainAtStop } from "./boundaries.js";
import { appendMessage, commitMessage, emit } from "./emit.js";
import { decideOutcome, recordEnding } from "./outcome.js";
import { findDanglingBatch } from "./pairing.js";
import type { RunState } from "./run-state.js";
import { HookAbandonedError, signalFacts, stopFacts, untilAborted } from "./signals.js";
import { emptyAssistant } from "./stream-reply.js";
import { runResumedBatch, runTurn, writePlaceholders } from "./turn.js";

/**
 * The run (rule L7): an inner loop of turns while the model asks for tools or Pending is non-empty, and an
 * outer loop that revives it with late steering, asides and follow-ups. Never throws: any failure inside is
 * closed as data (rule L12), and `agent_end` is always the last event, exactly once (rule L4).
 */
export async function runAgentLoop(state: RunState, resume: boolean): Promise<void> {
	emit(state, { type: "agent_start" });
	try {
		if (resume) {
			const dangling = findDanglingBatch(state.messages);
			if (dangling) {
				if ((await runResumedBatch(state, dangling)) === "end") return;
				// Rule T12 holds for a resumed batch too: a steer queued meanwhile (while a run was paused for
				// approval, rule T16) is injected before the next model call.
				const dequeued = dequeueAtTurnBoundary(state, true);
				if (dequeued) await dequeued;
			}
		}
		await runOuterLoop(state);
	} catch (error) {
		// An abandoned hook leaves nothing open (hooks run between turns); anything else is rule L12.
		if (!(error instanceof HookAbandonedError && nothingOpen(state))) closeAfterFailure(state, error);
	} finally {
		finishRun(state);
	}
}

async function runOuterLoop(state: RunState): Promise<void> {
	// Whether the previous turn asked for the next (rule C2: a turn the model did not ask for may find nothing
	// for it to answer and make no call).
	let owed = false;
	for (;;) {
		for (;;) {
			if (stopBeforeTurn(state)) return;
			const next = await runTurn(state, owed);
			if (next === "end") return;
			owed = next === "continue";
			const dequeued = dequeueAtTurnBoundary(state, next === "continue");
			if (dequeued) await dequeued;
			if (next === "idle" && state.pending.length === 0) break;
		}
		// An unset hook (or one that returns nothing) costs no tick.
		const yielded = state.config.onBeforeYield?.();
		if (yielded !== undefined) await untilAborted(state, yielded);
		if (stopBeforeTurn(state)) return;
		const drained = drainAtStop(state);
		if (!(drained instanceof Promise ? await drained : drained)) return;
	}
}

function nothingOpen(state: RunState): boolean {
	return !state.open.turn && state.open.message === undefined && state.open.toolExecutions.size === 0;
}

/** rule L8: the deadline (and abort) check that opens every loop step. */
function stopBeforeTurn(state: RunState): boolean {
	const stop = stopFacts(state);
	if (!stop.deadlinePassed && !stop.aborted) return false;
	recordEnding(state, { type: "stoppedBeforeTurn", stop });
	return true;
}

/**
 * Rule L12: something threw inside the loop. Close what is open, pair dangling tool calls (A3), commit an
 * assistant message with `stopReason: "error"` and the thrown text, close the turn.
 */
function closeAfterFailure(state: RunState, error: unknown): void {
	const text = errorText(error);
	const { open } = state;
	for (const [toolCallId, toolName] of open.toolExecutions) {
		const result = {
			content: [{ type: "text" as const, text: `Tool execution failed: ${text}` }],
			isError: true,
		};
		emit(state, { type: "tool_execution_end", toolCallId, toolName, result, isError: true, status: "error" });
	}
	let failed: AssistantMessage | undefined;
	if (open.message !== undefined) {
		const message = open.message;
		if ((message as { role?: unknown }).role === "assistant") {
			failed = closeInterruptedMessage(message as AssistantMessage, new Set(), "error", text, "internal");
			emit(state, { type: "message_end", message: failed });
			appendMessage(state, failed);
		} else {
			emit(state, { type: "message_end", message });
		}
	}
	if (!open.turn) emit(state, { type: "turn_start" });
	flushPending(state);
	const toolResults = pairDanglingToolCalls(state, text);
	if (!failed) {
		failed = { ...emptyAssistant(state), errorMessage: text, errorKind: "internal" };
		commitMessage(state, failed);
	}
	emit(state, { type: "turn_end", message: failed, toolResults });
	recordEnding(state, { type: "failure", error: text });
}

/** rule A3/T13: every tool call of the last assistant message gets a result, whatever happened. */
function pairDanglingToolCalls(state: RunState, cause: string): ToolResultMessage[] {
	const dangling = findDanglingBatch(state.messages);
	if (!dangling) return [];
	return writePlaceholders(state, dangling.calls, "error", cause);
}

/** Inputs already dequeued are never lost (rule I3, X6): they are committed even when no turn follows. */
function flushPending(state: RunState): void {
	const pending = state.pending;
	state.pending = [];
	for (const message of pending) commitMessage(state, message);
}

function finishRun(state: RunState): void {
	try {
		flushPending(state);
		if (!state.ending) recordEnding(state, { type: "finished", stop: signalFacts(state) });
	} finally {
		emit(state, {
			type: "agent_end",
			messages: state.added,
			outcome: state.ending ? decideOutcome(state.ending) : { type: "completed" },
			...state.telemetry?.report(), // rule X3: summary and coverage
		});
		state.events.end(state.added);
	}
}
