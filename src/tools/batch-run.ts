/**
 * The state of a running tool batch (see batch.ts) and the one place a call settles: each call's phase, the
 * count of calls still open, and the start/end events that stay paired whoever settles a call first — the
 * tool, an abort or a steer.
 */
import type { ToolResultMessage } from "../core/messages.js";
import { toPlainJson } from "../core/plain-json.js";
import type { PendingApproval } from "./approval.js";
import type { ToolBatchInput, ToolBatchResult } from "./batch.js";
import type { CallPort } from "./call.js";
import { type CoercedToolResult, coerced } from "./coerce.js";
import type { SteeringWatch } from "./interrupt.js";
import { placeholderResult } from "./placeholders.js";
import type { PreparedCall } from "./prepare.js";
import type { PlaceholderReason, ToolCallStatus, ToolExecutionEvent } from "./types.js";

/**
 * Where a call stands. `waiting`, `parked`, `approving` and `starting` calls count as "not started" (no
 * `execute` yet).
 */
export type CallPhase =
	| { kind: "waiting" }
	/** rule T14: needs a person's approval; done for scheduling, but unsettled. */
	| { kind: "parked"; args: Record<string, unknown> }
	| { kind: "approving"; since: number }
	/**
	 * `tool_execution_start` is going out. A subscriber may abort or steer from it: the call then settles as
	 * not started, without a second start event, and `execute` is never called (rule A1, L4).
	 */
	| { kind: "starting"; since: number }
	| { kind: "executing"; since: number; interruptible: boolean }
	/** `execute` returned `result`; `afterToolCall` is running. */
	| { kind: "finishing"; since: number; result: CoercedToolResult }
	| { kind: "settled" };

/**
 * One call of a running batch, and a running call's view of the batch (`CallPort`). A class, not literals:
 * one object per call, built while the code is cold, where a literal with this many fields is a slow
 * runtime path and a port of closures would be one more object per call.
 */
export class CallState implements CallPort {
	phase: CallPhase = WAITING;
	/** Arguments shown in events (revised ones once `beforeToolCall` revised them). */
	eventArgs: Record<string, unknown>;
	readonly abort = new AbortController();
	/**
	 * Created when first read or fired: Node 20 builds an `AbortSignal` slowly (about 20 µs), and
	 * most tools never look at `ctx.steeringRequested`.
	 */
	steering: AbortController | undefined = undefined;
	/** Settled or parked: done for scheduling (rule T6) and for the batch's end. */
	done = false;
	/** Resolvers of the calls waiting for this one (rule T6); most calls have none, so no promise is made. */
	waiters: (() => void)[] | undefined = undefined;
	outcome: { message: ToolResultMessage; status: ToolCallStatus; durationMs: number } | undefined = undefined;

	constructor(
		readonly run: BatchRun,
		readonly prepared: PreparedCall,
	) {
		this.eventArgs = prepared.eventArgs;
	}

	/**
	 * The call's own abort signal (follows the run signal; fired by a steering interrupt). Read on demand:
	 * Node 20 builds a controller's signal on first read, and a call that never runs never needs it.
	 */
	get signal(): AbortSignal {
		return this.abort.signal;
	}

	/** The running call reads this after every await: once settled, whatever it reports is discarded. */
	get settled(): boolean {
		return this.phase.kind === "settled";
	}

	get steeringRequested(): AbortSignal {
		return steeringOf(this).signal;
	}

	revise(args: Record<string, unknown>, eventArgs: Record<string, unknown>): void {
		this.run.revised.set(this.prepared.call.id, args);
		// History records the revision even if steering or abort settles the call before it executes; its
		// events must show the same arguments (rule T4).
		this.eventArgs = eventArgs;
	}

	beginExecute(eventArgs: Record<string, unknown>, interruptible: boolean): boolean {
		const { run } = this;
		this.eventArgs = eventArgs;
		const since = sinceOf(this.phase, run);
		this.phase = { kind: "starting", since };
		emitStart(run, this);
		if (this.settled) return false;
		this.phase = { kind: "executing", since, interruptible };
		run.watch?.refresh();
		return true;
	}

	beginFinish(result: CoercedToolResult): void {
		this.phase = { kind: "finishing", since: sinceOf(this.phase, this.run), result };
	}

	update(partial: CoercedToolResult): void {
		const { call } = this.prepared;
		emit(this.run, {
			type: "tool_execution_update",
			toolCallId: call.id,
			toolName: call.name,
			args: this.eventArgs,
			partialResult: partial,
		});
	}

	settle(result: CoercedToolResult, status: ToolCallStatus): void {
		settleResult(this.run, this, result, status);
		// Rule T10: peek after each tool finishes.
		this.run.watch?.recheck();
	}
}

/** One running batch: its input, its calls and what it has learned so far. */
export interface BatchRun {
	input: ToolBatchInput;
	states: CallState[];
	/** Calls not done yet; the batch ends when this reaches 0. */
	remaining: number;
	/** Resolves the promise `runToolBatch` waits on. */
	finish(): void;
	revised: Map<string, Record<string, unknown>>;
	interrupted: boolean;
	watch?: SteeringWatch;
}

// Phases are replaced, never mutated, so the calls can share the ones without data.
const WAITING: CallPhase = { kind: "waiting" };
const SETTLED: CallPhase = { kind: "settled" };

function noop(): void {}

/** A batch's state before anything settles: every call waiting. */
export function createRun(input: ToolBatchInput, preparedCalls: readonly PreparedCall[]): BatchRun {
	const states: CallState[] = [];
	const run: BatchRun = {
		input,
		states,
		remaining: preparedCalls.length,
		finish: noop,
		revised: new Map(),
		interrupted: false,
	};
	// An indexed loop, not a `map` callback or `for…of` (a third of the bytecode): once per batch, as cold
	// code, where every byte is interpreted and then compiled during the run.
	for (let i = 0; i < preparedCalls.length; i++)
		states.push(new CallState(run, preparedCalls[i] as PreparedCall));
	return run;
}

/** The call is done (settled, or parked for approval): wake the calls waiting for it, and maybe the batch. */
export function markDone(run: BatchRun, state: CallState): void {
	if (state.done) return;
	state.done = true;
	const waiters = state.waiters;
	if (waiters) for (let i = 0; i < waiters.length; i++) (waiters[i] as () => void)();
	state.waiters = undefined;
	run.remaining--;
	if (run.remaining === 0) run.finish();
}

/** Resolves once `state` is done; a promise is made only for a call someone waits for (rule T6). */
export function whenDone(state: CallState): Promise<void> {
	if (state.done) return Promise.resolve();
	return new Promise<void>((resolve) => {
		state.waiters ??= [];
		state.waiters.push(resolve);
	});
}

/** The call's cooperative steering signal (rule T10), created on first use. */
export function steeringOf(state: CallState): AbortController {
	state.steering ??= new AbortController();
	return state.steering;
}

/** When the call's current phase began, or now when it has not started one. */
export function sinceOf(phase: CallPhase, run: BatchRun): number {
	return "since" in phase ? phase.since : run.input.now();
}

/** Settle a call with a synthetic placeholder result (rule A3, T11, X1, T16). */
export function settlePlaceholder(
	run: BatchRun,
	state: CallState,
	reason: PlaceholderReason,
	status: ToolCallStatus,
	requiredTool?: string,
	cause?: string,
): void {
	const started = state.phase.kind === "executing" || state.phase.kind === "finishing";
	const options = {
		started,
		...(cause !== undefined ? { cause } : {}),
		...(requiredTool ? { requiredTool } : {}),
	};
	settle(run, state, placeholderResult(state.prepared.call, reason, run.input.now(), options), status);
}

/** Settle a call with a (coerced) result. */
export function settleResult(
	run: BatchRun,
	state: CallState,
	result: CoercedToolResult,
	status: ToolCallStatus,
): void {
	const { id: toolCallId, name: toolName } = state.prepared.call;
	const { content, details, isError } = result;
	const timestamp = run.input.now();
	// Two literals, not a conditional spread (see `emitStart`).
	const message: ToolResultMessage =
		details !== undefined
			? { role: "toolResult", toolCallId, toolName, content, details, isError, timestamp }
			: { role: "toolResult", toolCallId, toolName, content, isError, timestamp };
	settle(run, state, message, status);
}

/**
 * The one place a call settles: the first settlement wins; start/end events stay paired (rule L4). The call
 * is settled before its events go out, so a subscriber that aborts or steers from them cannot settle it again.
 */
export function settle(
	run: BatchRun,
	state: CallState,
	message: ToolResultMessage,
	status: ToolCallStatus,
): void {
	const phase = state.phase;
	if (phase.kind === "settled") return;
	const durationMs = "since" in phase ? Math.max(0, message.timestamp - phase.since) : 0;
	state.phase = SETTLED;
	state.outcome = { message, status, durationMs };
	if (phase.kind === "waiting" || phase.kind === "parked" || phase.kind === "approving")
		emitStart(run, state);
	const { toolCallId, toolName, isError } = message;
	const result = coerced(message.content, message.details, isError);
	emit(run, { type: "tool_execution_end", toolCallId, toolName, result, isError, status });
	markDone(run, state);
}

/** `tool_execution_start` with the call's current event arguments (rule T4). */
export function emitStart(run: BatchRun, state: CallState): void {
	const { call, intent } = state.prepared;
	const { id: toolCallId, name: toolName } = call;
	const args = state.eventArgs;
	// Two literals, not a conditional spread: one per call, as cold code, and spreads are slow there.
	emit(
		run,
		intent !== undefined
			? { type: "tool_execution_start", toolCallId, toolName, args, intent }
			: { type: "tool_execution_start", toolCallId, toolName, args },
	);
}

/**
 * The loop's emitter reports subscriber errors itself (rule Q5); a throw reaching this far must still not
 * break the one-result-per-call bookkeeping, so it is contained here.
 */
export function emit(run: BatchRun, event: ToolExecutionEvent): void {
	try {
		run.input.emit(event);
	} catch {
		// Deliberately ignored, see above.
	}
}

/** The settled batch, in call order (rule T7, T13). */
export function collect(run: BatchRun): ToolBatchResult {
	// One loop filling the three arrays, no intermediate list and no callbacks: once per batch, cold.
	const results: ToolResultMessage[] = [];
	const statuses: ToolCallStatus[] = [];
	const durationsMs: number[] = [];
	const awaitingApproval: PendingApproval[] = [];
	const { states } = run;
	for (let i = 0; i < states.length; i++) {
		const state = states[i] as CallState;
		const { call } = state.prepared;
		const { outcome } = state;
		if (state.phase.kind === "parked") {
			// Plain JSON (rule T15): a Zod or Standard Schema transform may have validated the arguments into a
			// BigInt, a Date or a class instance, and a paused run's pending approvals are saved as JSON.
			const args = toPlainJson(state.phase.args) as Record<string, unknown>;
			awaitingApproval.push({ toolCallId: call.id, toolName: call.name, args });
		} else if (outcome) {
			results.push(outcome.message);
			statuses.push(outcome.status);
			durationsMs.push(outcome.durationMs);
		} else throw new Error(`tool call ${call.id} settled without an outcome`);
	}
	return {
		awaitingApproval,
		results,
		statuses,
		revisedArguments: run.revised,
		interrupted: run.interrupted,
		durationsMs,
	};
}
