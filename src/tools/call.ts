/**
 * The asynchronous body of a call that runs (rule T4, T5, T8, T9); its preparation is prepare.ts. The batch
 * owns state, events and timing; a running call reports its progress through a `CallPort`, and once the
 * batch has settled the call (abort, steering) every later report is discarded.
 */
import { errorText } from "../core/abort.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../core/messages.js";
import { toPlainJson } from "../core/plain-json.js";
import { runStepDirectly, type StepRunner } from "../core/step-runner.js";
import { type CoercedToolResult, coerceToolResult } from "./coerce.js";
import { type CallPlan, invalidArgumentsText, type PreparedCall } from "./prepare.js";
import { resolveInterruptible } from "./scheduler.js";
import { INTENT_FIELD, splitIntent, tracesIntent } from "./specs.js";
import type {
	AfterToolCallHook,
	AgentTool,
	BeforeToolCallHook,
	ToolCallStatus,
	ToolExecutionContext,
} from "./types.js";
import { compileToolParameters } from "./validate.js";

/** What a call needs from the batch while it runs. */
export interface CallPort {
	/** The call's own abort signal (follows the run signal; fired by a steering interrupt). */
	readonly signal: AbortSignal;
	/** Fires when steering is queued while the call runs (rule T10, cooperative). */
	readonly steeringRequested: AbortSignal;
	/** True once the batch settled the call; everything the call reports afterwards is discarded. */
	readonly settled: boolean;
	/**
	 * `beforeToolCall` revised the arguments (rule T4): `args` is what history should record, `eventArgs` what
	 * events show from now on — also when the call is skipped or aborted before it executes.
	 */
	revise(args: Record<string, unknown>, eventArgs: Record<string, unknown>): void;
	/**
	 * The tool is about to execute: emits `tool_execution_start` with `eventArgs`. False when a subscriber
	 * settled the call from that event (abort, steering): then the tool must not run.
	 */
	beginExecute(eventArgs: Record<string, unknown>, interruptible: boolean): boolean;
	/** `execute` returned; `afterToolCall` may still run. */
	beginFinish(result: CoercedToolResult): void;
	/** An `onUpdate` partial, already coerced. */
	update(partial: CoercedToolResult): void;
	/** The call's final result. */
	settle(result: CoercedToolResult, status: ToolCallStatus): void;
}

/** What the body of a running call reads from the batch input. */
export interface CallEnvironment {
	assistantMessage: AssistantMessage;
	messages: readonly AgentMessage[];
	beforeToolCall?: BeforeToolCallHook;
	afterToolCall?: AfterToolCallHook;
	runStep: StepRunner;
	/** rule C5: whether the intent field is split off the calls of tools that trace it. */
	intentTracing: boolean;
}

/**
 * The body of a call that runs: `beforeToolCall` (rule T4), `execute` through the step runner (rule L13,
 * T8), result coercion (rule T9), `afterToolCall` (rule T5). Never throws; every outcome goes to `port`.
 * Without hooks and with the default step runner this is the whole of a call's own code between its
 * start and its result: it runs once per call, mostly while V8 has no feedback for it, so the common path
 * calls as few other functions as it can (docs/performance.md).
 */
export async function runCall(
	prepared: PreparedCall,
	plan: Extract<CallPlan, { kind: "run" }>,
	env: CallEnvironment,
	port: CallPort,
): Promise<void> {
	const { tool } = plan;
	let { args } = plan;
	let { eventArgs, call: toolCall } = prepared;
	// No hook, no tick: without `beforeToolCall` the call executes synchronously from the batch's schedule.
	if (env.beforeToolCall) {
		const approved = await approveCall(prepared, plan, env, port);
		if (!approved) return;
		({ args, eventArgs, toolCall } = approved);
	}
	if (port.settled || !port.beginExecute(eventArgs, resolveInterruptible(tool, args))) return;
	const onUpdate = (partial: unknown): void => {
		if (!port.settled) port.update(coerceToolResult(partial));
	};
	const ctx = new ToolContext(toolCall, env.messages, port);
	let result: CoercedToolResult;
	try {
		// The default runner only calls the step: then no step object and no closure per call. A synchronous
		// throw from `execute` lands in the `catch` below like a rejection; the tool's own promise is awaited
		// as it is (a wrapper would add ticks resolving it).
		const raw = await (env.runStep === runStepDirectly
			? tool.execute(toolCall.id, args, port.signal, onUpdate, ctx)
			: env.runStep({ kind: "tool", id: toolCall.id, name: toolCall.name }, () =>
					executeTool(tool, toolCall.id, args, port.signal, onUpdate, ctx),
				));
		result = coerceToolResult(raw);
	} catch (error) {
		result = coerceToolResult({ content: [{ type: "text", text: errorText(error) }] }, true);
	}
	if (port.settled) return;
	let final = result;
	if (env.afterToolCall) {
		port.beginFinish(result);
		final = await applyAfterToolCall(result, { toolCall, tool, args }, env, port);
		if (port.settled) return;
	}
	port.settle(final, final.isError ? "error" : "ok");
}

/**
 * The tool's `execute` as a promise, for a step runner: a synchronous throw becomes a rejection, and the
 * tool's own promise is handed on as it is (an `async` wrapper would add ticks resolving it).
 */
function executeTool(
	tool: AgentTool,
	id: string,
	args: Record<string, unknown>,
	signal: AbortSignal,
	onUpdate: (partial: unknown) => void,
	ctx: ToolExecutionContext,
): Promise<unknown> {
	try {
		return Promise.resolve(tool.execute(id, args, signal, onUpdate, ctx));
	} catch (error) {
		return Promise.reject(error);
	}
}

/**
 * The `ctx` a tool's `execute` gets. A class, not an object literal with a getter: a literal's getter is a
 * new closure per call, and V8 keeps it in an accessor pair allocated straight in the old generation —
 * which until the next full collection keeps the closure, the port and with them the whole run alive
 * through every young-generation collection (measured: a run with one tool call left about 6 KB in the
 * old generation; with this class, no more than a run without a call). `steeringRequested` is read on
 * demand: the port builds the signal only for a tool that looks at it.
 */
class ToolContext implements ToolExecutionContext {
	readonly #port: CallPort;

	constructor(
		readonly toolCall: ToolCall,
		readonly messages: readonly AgentMessage[],
		port: CallPort,
	) {
		this.#port = port;
	}

	get steeringRequested(): AbortSignal {
		return this.#port.steeringRequested;
	}
}

interface ApprovedCall {
	args: Record<string, unknown>;
	eventArgs: Record<string, unknown>;
	toolCall: ToolCall;
}

/** rule T4: run `beforeToolCall`; settles the call itself when it blocks, throws or revises badly. */
async function approveCall(
	prepared: PreparedCall,
	plan: Extract<CallPlan, { kind: "run" }>,
	env: CallEnvironment,
	port: CallPort,
): Promise<ApprovedCall | undefined> {
	const unchanged = { args: plan.args, eventArgs: prepared.eventArgs, toolCall: prepared.call };
	if (!env.beforeToolCall) return unchanged;
	let decision: Awaited<ReturnType<NonNullable<BeforeToolCallHook>>>;
	try {
		decision = await env.beforeToolCall(
			{
				toolCall: prepared.call,
				tool: plan.tool,
				args: plan.args,
				assistantMessage: env.assistantMessage,
				messages: env.messages,
			},
			port.signal,
		);
	} catch (error) {
		port.settle(
			errorResult(`The tool call was not executed: beforeToolCall failed: ${errorText(error)}`),
			"error",
		);
		return undefined;
	}
	if (port.settled) return undefined;
	if (!decision) return unchanged;
	if ("block" in decision && decision.block) {
		port.settle(errorResult(blockedText(decision.reason)), "blocked");
		return undefined;
	}
	if (!("args" in decision)) return unchanged;
	return reviseCall(prepared, plan, decision.args, env, port);
}

/** Re-validate arguments revised by `beforeToolCall` and record them for history (rule T4). */
async function reviseCall(
	prepared: PreparedCall,
	plan: Extract<CallPlan, { kind: "run" }>,
	revised: Record<string, unknown>,
	env: CallEnvironment,
	port: CallPort,
): Promise<ApprovedCall | undefined> {
	// As in preparation: only a traced call's `i` is the intent; otherwise it may be a real argument.
	const eventArgs = env.intentTracing && tracesIntent(plan.tool) ? splitIntent(revised).args : revised;
	const pending = compileToolParameters(plan.tool.parameters).validate(eventArgs);
	const validation = pending instanceof Promise ? await pending : pending;
	// An asynchronous validator gave abort or steering time to settle the call: nothing may be recorded then.
	if (port.settled) return undefined;
	if (!validation.ok) {
		port.settle(
			errorResult(invalidArgumentsText(plan.tool.name, validation.errors, " (as revised by beforeToolCall)")),
			"error",
		);
		return undefined;
	}
	// History keeps the model's intent field: the call still reads as the model wrote it, with revised values.
	// History and events get a plain JSON copy (rule M6): the hook's object is host data — it may hold a
	// `Date` or a class instance, and the hook may change it after returning it.
	const shown = toPlainJson(eventArgs) as Record<string, unknown>;
	const recorded = prepared.intent !== undefined ? { [INTENT_FIELD]: prepared.intent, ...shown } : shown;
	port.revise(recorded, shown);
	return { args: validation.value, eventArgs: shown, toolCall: { ...prepared.call, arguments: recorded } };
}

/** rule T5: apply the `afterToolCall` patch and coerce again (rule T9). */
async function applyAfterToolCall(
	result: CoercedToolResult,
	call: { toolCall: ToolCall; tool: AgentTool; args: Record<string, unknown> },
	env: CallEnvironment,
	port: CallPort,
): Promise<CoercedToolResult> {
	if (!env.afterToolCall) return result;
	try {
		const patch = await env.afterToolCall(
			{ ...call, result, isError: result.isError, assistantMessage: env.assistantMessage },
			port.signal,
		);
		if (!patch) return result;
		return coerceToolResult({
			content: patch.content !== undefined ? patch.content : result.content,
			details: "details" in patch ? patch.details : result.details,
			isError: patch.isError ?? result.isError,
		});
	} catch (error) {
		// The tool did run: keep its output so the model does not blindly retry a side effect.
		const note = `The tool ran, but the afterToolCall hook failed: ${errorText(error)}`;
		return { ...result, content: [...result.content, { type: "text", text: note }], isError: true };
	}
}

/** An error result with one text block. */
export function errorResult(text: string): CoercedToolResult {
	return { content: [{ type: "text", text }], isError: true };
}

function blockedText(reason: string | undefined): string {
	return reason && reason.trim() !== ""
		? `The tool call was blocked and not executed: ${reason}`
		: "The tool call was blocked and not executed.";
}
