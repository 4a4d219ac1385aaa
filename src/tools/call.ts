/**
 * One tool call of a batch: the synchronous preparation every call goes through (rule T2, T3, C5, X1), and
 * the asynchronous body of a call that runs (rule T4, T5, T8, T9). The batch owns state, events and
 * timing; a running call reports its progress through a `CallPort`, and once the batch has settled the call
 * (abort, steering) every later report is discarded.
 */
import { errorText } from "../core/abort.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../core/messages.js";
import { runStepDirectly, type StepRunner } from "../core/step-runner.js";
import { type ApprovalDecision, resolveNeedsApproval } from "./approval.js";
import { type CoercedToolResult, coerceToolResult } from "./coerce.js";
import { resolveConcurrency, resolveInterruptible } from "./scheduler.js";
import { INTENT_FIELD, splitIntent, tracesIntent } from "./specs.js";
import type {
	AfterToolCallHook,
	AgentTool,
	BeforeToolCallHook,
	PlaceholderReason,
	ToolCallStatus,
	ToolConcurrency,
	ToolExecutionContext,
} from "./types.js";
import { compileToolParameters, type ValidationResult } from "./validate.js";

/** What will happen to a call, decided before anything runs. */
export type CallPlan =
	| { kind: "skip"; reason: PlaceholderReason; requiredTool?: string }
	| { kind: "reject"; text: string }
	| { kind: "run"; tool: AgentTool; args: Record<string, unknown>; concurrency: ToolConcurrency }
	/** rule T14: the call needs approval and has no decision yet; it waits for a later run. */
	| { kind: "park"; args: Record<string, unknown> }
	/** rule T16: a person denied the call; its result says so and why. */
	| { kind: "deny"; reason: string | undefined }
	/** An asynchronous validation was still running when the run was aborted; the abort settles the call. */
	| { kind: "abandoned" };

/** A call after preparation. */
export interface PreparedCall {
	call: ToolCall;
	/** The model's stated intent (rule C5), when intent tracing applies to this call. */
	intent?: string;
	/** Arguments as events show them: the model's arguments without the intent field. */
	eventArgs: Record<string, unknown>;
	plan: CallPlan;
}

/** What a call needs from the batch while it runs. */
export interface CallPort {
	/** The call's own abort signal (follows the run signal; fired by a steering interrupt). */
	readonly signal: AbortSignal;
	/** Fires when steering is queued while the call runs (rule T10, cooperative). */
	readonly steeringRequested: AbortSignal;
	/** True once the batch settled the call; everything the call reports afterwards is discarded. */
	isSettled(): boolean;
	/**
	 * `beforeToolCall` revised the arguments (rule T4): `args` is what history should record, `eventArgs` what
	 * events show from now on — also when the call is skipped or aborted before it executes.
	 */
	revise(args: Record<string, unknown>, eventArgs: Record<string, unknown>): void;
	/** The tool is about to execute: emits `tool_execution_start` with `eventArgs`. */
	beginExecute(eventArgs: Record<string, unknown>, interruptible: boolean): void;
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
}

/** What a call's preparation is told besides the call itself. */
export interface CallFacts {
	tools: readonly AgentTool[];
	intentTracing: boolean;
	/** rule X1: the call must not run. */
	preSkipped: { reason: PlaceholderReason; requiredTool?: string } | undefined;
	/** rule T16: a person's decision on this call, when the batch resumes a paused one. */
	decision: ApprovalDecision | undefined;
}

/**
 * Decide a call's plan (rule T2, T3, E4, C5, X1, T14, T16): pre-skipped calls never run; an unknown name,
 * arguments that did not parse (`argumentsError`) or invalid arguments are rejected with a text the model
 * can act on; a call with a decision runs (approved) or is denied; a call whose tool needs approval for the
 * validated arguments is parked; otherwise the call runs with validated arguments.
 * The intent field is split off first, so `i` never reaches validation or the tool. Synchronous unless the
 * tool's validator is asynchronous (a Standard Schema validator may be).
 */
export function prepareCall(call: ToolCall, facts: CallFacts): PreparedCall | Promise<PreparedCall> {
	const { tools, intentTracing, preSkipped, decision } = facts;
	const tool = toolNamed(tools, call.name);
	const split = intentTracing && (!tool || tracesIntent(tool)) ? splitIntent(call.arguments) : undefined;
	// Plain literals, not spreads of a shared base: this runs for every call, mostly as cold code.
	const base: CallBase = { call, eventArgs: split?.args ?? call.arguments, intent: split?.intent };
	if (preSkipped || !tool || call.argumentsError) return withPlan(base, unrunnablePlan(call, facts, tool));
	const validation = compileToolParameters(tool.parameters).validate(base.eventArgs);
	if (validation instanceof Promise) return plannedLater(base, tool, validation, decision);
	return withPlan(base, planned(tool, validation, decision));
}

/** The plan once an asynchronous validator (a Standard Schema one may be) has answered. */
function plannedLater(
	base: CallBase,
	tool: AgentTool,
	validation: Promise<ValidationResult>,
	decision: ApprovalDecision | undefined,
): Promise<PreparedCall> {
	return validation.then((settled) => withPlan(base, planned(tool, settled, decision)));
}

/** The first tool of that name; a loop, not `find` with a callback: once per call, mostly as cold code. */
function toolNamed(tools: readonly AgentTool[], name: string): AgentTool | undefined {
	for (let i = 0; i < tools.length; i++) if ((tools[i] as AgentTool).name === name) return tools[i];
	return undefined;
}

/**
 * The plan of a call that cannot run — pre-skipped, unknown tool, broken arguments. Out of `prepareCall`, so
 * the code every call runs, and V8 compiles while the run goes on, stays small.
 */
function unrunnablePlan(call: ToolCall, facts: CallFacts, tool: AgentTool | undefined): CallPlan {
	if (facts.preSkipped) return { kind: "skip", ...facts.preSkipped };
	if (!tool) return { kind: "reject", text: unknownToolText(call.name, facts.tools) };
	return { kind: "reject", text: brokenArgumentsText(call.argumentsError ?? "") };
}

interface CallBase {
	call: ToolCall;
	eventArgs: Record<string, unknown>;
	intent: string | undefined;
}

function withPlan({ call, eventArgs, intent }: CallBase, plan: CallPlan): PreparedCall {
	return intent ? { call, eventArgs, intent, plan } : { call, eventArgs, plan };
}

function planned(
	tool: AgentTool,
	validation: ValidationResult,
	decision: ApprovalDecision | undefined,
): CallPlan {
	if (!validation.ok) return { kind: "reject", text: invalidArgumentsText(tool.name, validation.errors) };
	// Rule T14/T16: approval is judged on validated arguments, before scheduling and before beforeToolCall —
	// the person decides on what the model asked for; the hook still runs in the approved call's slot.
	if (decision && !decision.approved) return { kind: "deny", reason: decision.reason };
	if (!decision && resolveNeedsApproval(tool, validation.value))
		return { kind: "park", args: validation.value };
	const concurrency = resolveConcurrency(tool, validation.value);
	return { kind: "run", tool, args: validation.value, concurrency };
}

/**
 * The body of a call that runs: `beforeToolCall` (rule T4), `execute` through the step runner (rule L13,
 * T8), result coercion (rule T9), `afterToolCall` (rule T5). Never throws; every outcome goes to `port`.
 */
export async function runCall(
	prepared: PreparedCall,
	plan: Extract<CallPlan, { kind: "run" }>,
	env: CallEnvironment,
	port: CallPort,
): Promise<void> {
	let { args } = plan;
	let { eventArgs, call: toolCall } = prepared;
	// No hook, no tick: without `beforeToolCall` the call executes synchronously from the batch's schedule.
	if (env.beforeToolCall) {
		const approved = await approveCall(prepared, plan, env, port);
		if (!approved) return;
		({ args, eventArgs, toolCall } = approved);
	}
	if (port.isSettled()) return;
	port.beginExecute(eventArgs, resolveInterruptible(plan.tool, args));
	let result: CoercedToolResult;
	try {
		// The default runner only calls the step: then no step object and no closure per call.
		const raw = await (env.runStep === runStepDirectly
			? executeTool(plan.tool, toolCall, args, env, port)
			: env.runStep({ kind: "tool", id: toolCall.id, name: toolCall.name }, () =>
					executeTool(plan.tool, toolCall, args, env, port),
				));
		result = coerceToolResult(raw);
	} catch (error) {
		result = coerceToolResult({ content: [{ type: "text", text: errorText(error) }] }, true);
	}
	if (port.isSettled()) return;
	port.beginFinish(result);
	const final = env.afterToolCall
		? await applyAfterToolCall(result, { toolCall, tool: plan.tool, args }, env, port)
		: result;
	if (port.isSettled()) return;
	port.settle(final, final.isError ? "error" : "ok");
}

/**
 * The tool's `execute` as a promise: a synchronous throw becomes a rejection, and the tool's own promise is
 * handed on as it is (an `async` wrapper would add ticks resolving it).
 */
function executeTool(
	tool: AgentTool,
	toolCall: ToolCall,
	args: Record<string, unknown>,
	env: CallEnvironment,
	port: CallPort,
): Promise<unknown> {
	try {
		return Promise.resolve(
			tool.execute(
				toolCall.id,
				args,
				port.signal,
				(partial) => reportUpdate(port, partial),
				new ToolContext(toolCall, env.messages, port),
			),
		);
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
	if (port.isSettled()) return undefined;
	if (!decision) return unchanged;
	if ("block" in decision && decision.block) {
		port.settle(errorResult(blockedText(decision.reason)), "blocked");
		return undefined;
	}
	if (!("args" in decision)) return unchanged;
	return reviseCall(prepared, plan, decision.args, port);
}

/** Re-validate arguments revised by `beforeToolCall` and record them for history (rule T4). */
async function reviseCall(
	prepared: PreparedCall,
	plan: Extract<CallPlan, { kind: "run" }>,
	revised: Record<string, unknown>,
	port: CallPort,
): Promise<ApprovedCall | undefined> {
	const eventArgs = splitIntent(revised).args;
	const pending = compileToolParameters(plan.tool.parameters).validate(eventArgs);
	const validation = pending instanceof Promise ? await pending : pending;
	// An asynchronous validator gave abort or steering time to settle the call: nothing may be recorded then.
	if (port.isSettled()) return undefined;
	if (!validation.ok) {
		port.settle(
			errorResult(invalidArgumentsText(plan.tool.name, validation.errors, " (as revised by beforeToolCall)")),
			"error",
		);
		return undefined;
	}
	// History keeps the model's intent field: the call still reads as the model wrote it, with revised values.
	const recorded =
		prepared.intent !== undefined ? { [INTENT_FIELD]: prepared.intent, ...eventArgs } : eventArgs;
	port.revise(recorded, eventArgs);
	return { args: validation.value, eventArgs, toolCall: { ...prepared.call, arguments: recorded } };
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

function reportUpdate(port: CallPort, partial: unknown): void {
	if (!port.isSettled()) port.update(coerceToolResult(partial));
}

/** An error result with one text block. */
export function errorResult(text: string): CoercedToolResult {
	return { content: [{ type: "text", text }], isError: true };
}

function unknownToolText(name: string, tools: readonly AgentTool[]): string {
	const available = tools.map((tool) => tool.name).join(", ");
	return (
		`Tool "${name}" not found. ` +
		(available ? `Available tools: ${available}.` : "No tools are available in this conversation.")
	);
}

function brokenArgumentsText(problem: string): string {
	return `${problem.replace(/\.\s*$/, "")}. The tool was not executed; send the call again with its arguments as one valid JSON object.`;
}

function invalidArgumentsText(toolName: string, errors: readonly string[], origin = ""): string {
	return (
		`Invalid arguments for tool "${toolName}"${origin}:\n` +
		errors.map((line) => `- ${line}`).join("\n") +
		"\nFix these arguments and call the tool again."
	);
}

function blockedText(reason: string | undefined): string {
	return reason && reason.trim() !== ""
		? `The tool call was blocked and not executed: ${reason}`
		: "The tool call was blocked and not executed.";
}
