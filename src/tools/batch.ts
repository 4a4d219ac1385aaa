/**
 * The tool batch: every tool call of one assistant message, run with rule T6 scheduling and all-settled
 * semantics (T7), interrupted by steering (T10) or abort (A1, A7, I4), and paired with exactly one result each
 * (T13). Each call is a small state machine (`CallPhase`); the first settlement of a call wins and anything the
 * call reports afterwards (a late result, an update) is discarded, so a tool that ignores its abort signal
 * never keeps the batch waiting.
 *
 * Choices where the behaviour contract is silent:
 * - Unrunnable calls (pre-skipped, unknown tool, unparseable or invalid arguments) settle first, in call order,
 *   before anything runs; they take no part in scheduling.
 * - A call's concurrency class is resolved from its validated arguments; `beforeToolCall` then runs inside the
 *   call's slot (after the calls it waits for), so a hook sees the effects of earlier exclusive calls, and a
 *   slow approval delays only the calls that depend on it.
 * - `tool_execution_start` is emitted when `execute` is about to run, with the final (possibly revised)
 *   arguments, so events agree with history (rule T4). A call that never reaches `execute` gets its start
 *   right before its end.
 * - A call that needs approval (rule T14) is parked: it takes no part in scheduling, emits no execution
 *   events, and comes back as `awaitingApproval` unless an abort or a steer settles it first, as it would any
 *   call that has not started. A denied call (rule T16) settles first with the unrunnable ones.
 * - Statuses: a steering skip of a call that had not started is `skipped`; an interruptible tool abandoned
 *   while executing is `interrupted` (rule T10: it did start, and a steer is not a user abort). Both carry
 *   the `interrupted` placeholder (rule T11), whose text says which of the two happened.
 */
import { abortReasonText, errorText, subscribeAbort } from "../core/abort.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../core/messages.js";
import type { StepRunner } from "../core/step-runner.js";
import type { ApprovalDecisions, PendingApproval } from "./approval.js";
import {
	type BatchRun,
	type CallState,
	collect,
	createRun,
	markDone,
	settlePlaceholder,
	settleResult,
	steeringOf,
	whenDone,
} from "./batch-run.js";
import { errorResult, runCall } from "./call.js";
import type { CoercedToolResult } from "./coerce.js";
import { type SteeringProbe, SteeringWatch } from "./interrupt.js";
import { prepareAll } from "./prepare.js";
import { type ScheduleClass, scheduleToolBatch } from "./scheduler.js";
import type {
	AfterToolCallHook,
	AgentTool,
	BeforeToolCallHook,
	PlaceholderReason,
	ToolCallStatus,
	ToolExecutionEvent,
} from "./types.js";

export { STEERING_INTERRUPT_POLL_MS, type SteeringProbe } from "./interrupt.js";

/** Everything one batch needs; the loop builds it after the assistant message is committed. */
export interface ToolBatchInput {
	/** The calls are `toolCallsOf(assistantMessage)`, in message order. */
	assistantMessage: AssistantMessage;
	tools: readonly AgentTool[];
	/** The transcript at batch start (for hooks and `ToolExecutionContext`). */
	messages: readonly AgentMessage[];
	/** The run's signal: external abort or deadline. */
	signal: AbortSignal;
	/** What to write for calls cut off when `signal` has fired. */
	abortPlaceholder(): { reason: "aborted" | "deadline"; cause: string };
	/** Absent in `interruptMode: "wait"`: then steering never interrupts the batch. */
	steering?: SteeringProbe;
	/** rule X1: calls not to run, by call id. */
	preSkipped?: ReadonlyMap<string, { reason: PlaceholderReason; requiredTool?: string }>;
	/** rule T16: a person's decisions on calls of a paused batch, by call id. */
	decisions?: ApprovalDecisions;
	/** rule T4: runs in the call's slot, right before `execute`. */
	beforeToolCall?: BeforeToolCallHook;
	/** rule T5: runs after `execute` (also for thrown errors); its patch is coerced again. */
	afterToolCall?: AfterToolCallHook;
	/** Every `execute` runs inside `runStep({kind: "tool", id: call.id, name: call.name}, …)` (rule L13). */
	runStep: StepRunner;
	/** Receives `tool_execution_start` / `_update` / `_end`. */
	emit(event: ToolExecutionEvent): void;
	/** The injectable clock (rule L13): result timestamps and durations. */
	now(): number;
	/** rule C5: strip `i` from arguments and report it on `tool_execution_start.intent`. */
	intentTracing: boolean;
}

/**
 * The settled batch. Every array is in the order of the calls in the assistant message (rule T7, T13), and
 * holds the calls that settled: every call but the ones in `awaitingApproval`.
 */
export interface ToolBatchResult {
	/** Exactly one result per settled call. */
	results: ToolResultMessage[];
	statuses: ToolCallStatus[];
	/** rule T4: arguments revised by `beforeToolCall`, by call id; the loop writes them into the message. */
	revisedArguments: ReadonlyMap<string, Record<string, unknown>>;
	/** True when steering skipped or interrupted at least one call. */
	interrupted: boolean;
	/** Per call, from the start of its turn in the schedule to its settlement (0 for calls that never started). */
	durationsMs: number[];
	/** rule T14: calls parked for approval that nothing settled, in call order; they have no result yet. */
	awaitingApproval: PendingApproval[];
}

/**
 * Run the tool calls of one assistant message (rule T2–T13, A1, A7, I4). Never rejects: every failure is a
 * result. Resolves as soon as every call is settled — immediately after the run signal fires, whatever the
 * tools do with their own signals.
 */
export async function runToolBatch(input: ToolBatchInput): Promise<ToolBatchResult> {
	const prepared = prepareAll(input);
	// Only an asynchronous validator costs a tick: with synchronous ones the batch starts as it always did.
	const run = createRun(input, Array.isArray(prepared) ? prepared : await prepared);
	// One promise for the whole batch, not one per call: the last call to finish resolves it.
	const finished = new Promise<void>((resolve) => {
		run.finish = resolve;
	});
	if (run.remaining === 0) run.finish();
	let unsubscribe = (): void => {};
	try {
		settleUnrunnable(run);
		if (input.signal.aborted) abortRemaining(run);
		else {
			unsubscribe = subscribeAbort(input.signal, () => abortRemaining(run));
			startWatch(run);
			scheduleRunnable(run);
		}
		await finished;
	} finally {
		unsubscribe();
		run.watch?.stop();
	}
	return collect(run);
}

/**
 * Pre-skipped calls (rule X1), rejected calls (rule T2, T3) and denied calls (rule T16) settle at once, in
 * call order; calls that need approval are parked (rule T14).
 */
function settleUnrunnable(run: BatchRun): void {
	const { states } = run;
	for (let i = 0; i < states.length; i++) {
		const state = states[i] as CallState;
		const plan = state.prepared.plan;
		if (plan.kind === "skip") settlePlaceholder(run, state, plan.reason, "skipped", plan.requiredTool);
		else if (plan.kind === "reject") settleResult(run, state, errorResult(plan.text), "error");
		else if (plan.kind === "deny") settlePlaceholder(run, state, "denied", "blocked", undefined, plan.reason);
		else if (plan.kind === "park") {
			state.phase = { kind: "parked", args: plan.args };
			markDone(run, state);
		}
	}
}

/** rule T6: start each runnable call once the calls it waits for have settled. */
function scheduleRunnable(run: BatchRun): void {
	const { states } = run;
	// Plain loops, no callbacks: this runs once per batch, mostly as cold code.
	const classes: ScheduleClass[] = [];
	for (let i = 0; i < states.length; i++) {
		const state = states[i] as CallState;
		const plan = state.prepared.plan;
		classes.push(plan.kind === "run" && state.phase.kind === "waiting" ? plan.concurrency : "none");
	}
	const waits = scheduleToolBatch(classes);
	for (let index = 0; index < states.length; index++) {
		const state = states[index] as CallState;
		const dependencies = waits[index] as number[];
		if (classes[index] === "none") continue;
		// A call that waits for nothing starts now, synchronously: its `execute` runs before the next call is
		// even looked at, instead of every call first queueing behind a tick of its own.
		if (dependencies.length === 0) startCall(run, state);
		else startAfter(run, state, dependencies);
	}
}

/** Start the call once every call it waits for is done (rule T6). */
function startAfter(run: BatchRun, state: CallState, dependencies: readonly number[]): void {
	const { states } = run;
	void Promise.all(dependencies.map((wait) => whenDone(states[wait] as CallState))).then(() =>
		startCall(run, state),
	);
}

function startCall(run: BatchRun, state: CallState): void {
	const plan = state.prepared.plan;
	// Abort or steering may have settled the call while it waited.
	if (state.phase.kind !== "waiting" || plan.kind !== "run") return;
	state.phase = { kind: "approving", since: run.input.now() };
	runCall(state.prepared, plan, run.input, state).catch((error: unknown) => {
		// runCall reports every failure through the port; this only guards the one-result-per-call invariant.
		settleResult(
			run,
			state,
			errorResult(`Internal error while running the tool: ${errorText(error)}`),
			"error",
		);
	});
}

/**
 * Rule A1, A7, I4: the run signal fired; every unsettled call settles now, started or not. A call whose tool
 * already returned (only `afterToolCall` is pending) keeps its real result — the side effect happened, and a
 * placeholder saying it did not would invite a blind retry; every other call gets the placeholder.
 */
function abortRemaining(run: BatchRun): void {
	const { reason, cause } = abortPlaceholderOf(run.input);
	for (const state of run.states) {
		const phase = state.phase;
		if (phase.kind === "settled") continue;
		if (phase.kind === "finishing") settleResult(run, state, cutShort(phase.result, cause), "error");
		else settlePlaceholder(run, state, reason, "aborted", undefined, cause);
		state.abort.abort(run.input.signal.reason);
	}
}

/** The tool's own result, marked like a failed `afterToolCall` (rule T5): the hook never finished. */
function cutShort(result: CoercedToolResult, cause: string): CoercedToolResult {
	const note = `The tool ran, but the afterToolCall hook did not finish: ${cause}`;
	return { ...result, content: [...result.content, { type: "text", text: note }], isError: true };
}

/** The loop's placeholder choice; should it throw, the batch must still settle (rule I4). */
function abortPlaceholderOf(input: ToolBatchInput): { reason: "aborted" | "deadline"; cause: string } {
	try {
		return input.abortPlaceholder();
	} catch {
		return { reason: "aborted", cause: abortReasonText(input.signal.reason) };
	}
}

function startWatch(run: BatchRun): void {
	const probe = run.input.steering;
	if (!probe) return;
	// Poll while any tool executes, not only interruptible ones: the cooperative `steeringRequested` signal is
	// only worth something if non-interruptible tools see it while they still run.
	const anyExecuting = (): boolean => run.states.some((state) => state.phase.kind === "executing");
	run.watch = new SteeringWatch(probe, anyExecuting, () => interruptForSteering(run));
}

/**
 * Rule T10: a steering message is queued. Not-started calls are skipped; executing interruptible calls are
 * aborted and abandoned; executing non-interruptible calls (and calls already in `afterToolCall`) finish and
 * keep their real result. Every unsettled call's `steeringRequested` fires.
 */
function interruptForSteering(run: BatchRun): void {
	const reason = new Error("Interrupted: a steering message was queued");
	for (const state of run.states) {
		const phase = state.phase;
		if (phase.kind === "settled") continue;
		const notStarted =
			phase.kind === "waiting" ||
			phase.kind === "parked" ||
			phase.kind === "approving" ||
			phase.kind === "starting";
		const abandon = notStarted || (phase.kind === "executing" && phase.interruptible);
		if (abandon) {
			settlePlaceholder(run, state, "interrupted", notStarted ? "skipped" : "interrupted");
			run.interrupted = true;
		}
		steeringOf(state).abort(reason);
		if (abandon) state.abort.abort(reason);
	}
}
