/**
 * Preparing a batch's calls (rule T2, T3, E4, C5, X1, T14, T16): every call's plan, decided before anything
 * runs. Pre-skipped calls never run; an unknown name, arguments that did not parse (`argumentsError`) or
 * invalid arguments are rejected with a text the model can act on; a call with a decision runs (approved) or
 * is denied; a call whose tool needs approval for the validated arguments is parked; otherwise the call runs
 * with validated arguments. The intent field is split off first, so `i` never reaches validation or the
 * tool.
 *
 * Synchronous unless a tool's validator is asynchronous (a Standard Schema validator may be); then the batch
 * waits for the validations, or for an abort, whichever comes first.
 *
 * Every call is prepared in one loop, with as few function calls per call as the decision allows: this runs
 * once per call while the code is still cold (the first batches of a process), where each call into another
 * function costs more than the check it makes (docs/performance.md).
 */
import { errorText } from "../core/abort.js";
import type { ToolCall } from "../core/messages.js";
import { toolCallsOf } from "../core/messages.js";
import { type ApprovalDecision, resolveNeedsApproval } from "./approval.js";
import type { ToolBatchInput } from "./batch.js";
import { resolveConcurrency } from "./scheduler.js";
import { splitIntent, tracesIntent } from "./specs.js";
import type { AgentTool, PlaceholderReason, ToolConcurrency } from "./types.js";
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
	intent: string | undefined;
	/** Arguments as events show them: the model's arguments without the intent field. */
	eventArgs: Record<string, unknown>;
	plan: CallPlan;
}

/**
 * Prepare every call, in message order. When a validator is asynchronous, wait for all of them — but an
 * abort (rule A1) settles the batch at once: a call still being validated then is `abandoned`, and the
 * abort gives it its placeholder. Preparation runs host code (schema conversion, validators, resolvers); a
 * throw there still pairs the call with a result.
 */
export function prepareAll(input: ToolBatchInput): PreparedCall[] | Promise<PreparedCall[]> {
	const calls = toolCallsOf(input.assistantMessage);
	const { tools, preSkipped, decisions } = input;
	const pending: (PreparedCall | Promise<PreparedCall>)[] = [];
	let asynchronous = false;
	for (let i = 0; i < calls.length; i++) {
		const call = calls[i] as ToolCall;
		let item: PreparedCall | Promise<PreparedCall>;
		try {
			// The first tool of that name.
			let tool: AgentTool | undefined;
			for (let t = 0; t < tools.length && !tool; t++)
				if ((tools[t] as AgentTool).name === call.name) tool = tools[t];
			let eventArgs = call.arguments;
			let intent: string | undefined;
			if (input.intentTracing && (!tool || tracesIntent(tool)))
				({ args: eventArgs, intent } = splitIntent(eventArgs));
			const skip = preSkipped?.get(call.id);
			if (skip || !tool || call.argumentsError) {
				item = { call, eventArgs, intent, plan: unrunnablePlan(call, tools, tool, skip) };
			} else {
				const validation = compileToolParameters(tool.parameters).validate(eventArgs);
				const decision = decisions?.[call.id];
				item =
					validation instanceof Promise
						? plannedLater(call, eventArgs, intent, tool, validation, decision)
						: { call, eventArgs, intent, plan: planned(tool, validation, decision) };
			}
		} catch (error) {
			item = unprepared(call, error);
		}
		if (item instanceof Promise) asynchronous = true;
		pending.push(item);
	}
	return asynchronous ? awaitPrepared(calls, pending, input.signal) : (pending as PreparedCall[]);
}

/** The plan once an asynchronous validator (a Standard Schema one may be) has answered. */
function plannedLater(
	call: ToolCall,
	eventArgs: Record<string, unknown>,
	intent: string | undefined,
	tool: AgentTool,
	validation: Promise<ValidationResult>,
	decision: ApprovalDecision | undefined,
): Promise<PreparedCall> {
	return validation
		.then((settled): PreparedCall => ({ call, eventArgs, intent, plan: planned(tool, settled, decision) }))
		.catch((error: unknown) => unprepared(call, error));
}

/** Wait for the asynchronous preparations, or for an abort: what has not answered by then is `abandoned`. */
function awaitPrepared(
	calls: readonly ToolCall[],
	pending: readonly (PreparedCall | Promise<PreparedCall>)[],
	signal: AbortSignal,
): Promise<PreparedCall[]> {
	const ready: (PreparedCall | undefined)[] = pending.map((item) =>
		item instanceof Promise ? undefined : item,
	);
	const all = Promise.all(
		pending.map(async (item, index) => {
			ready[index] = await item;
		}),
	);
	return untilAborted(all, signal).then(() =>
		calls.map(
			(call, index) =>
				ready[index] ?? { call, eventArgs: call.arguments, intent: undefined, plan: { kind: "abandoned" } },
		),
	);
}

/** The plan of a call whose arguments were validated (rule T3, T14, T16, T6). */
function planned(
	tool: AgentTool,
	validation: ValidationResult,
	decision: ApprovalDecision | undefined,
): CallPlan {
	if (!validation.ok) return { kind: "reject", text: invalidArgumentsText(tool.name, validation.errors) };
	// Rule T14/T16: approval is judged on validated arguments, before scheduling and before beforeToolCall —
	// the person decides on what the model asked for; the hook still runs in the approved call's slot.
	if (decision && !decision.approved) return { kind: "deny", reason: decision.reason };
	const args = validation.value;
	if (!decision && resolveNeedsApproval(tool, args)) return { kind: "park", args };
	return { kind: "run", tool, args, concurrency: resolveConcurrency(tool, args) };
}

/** The plan of a call that cannot run — pre-skipped, unknown tool, broken arguments. */
function unrunnablePlan(
	call: ToolCall,
	tools: readonly AgentTool[],
	tool: AgentTool | undefined,
	skip: { reason: PlaceholderReason; requiredTool?: string } | undefined,
): CallPlan {
	if (skip) return { kind: "skip", ...skip };
	if (!tool) return { kind: "reject", text: unknownToolText(call.name, tools) };
	return { kind: "reject", text: brokenArgumentsText(call.argumentsError ?? "") };
}

/** The plan of a call whose preparation threw. */
function unprepared(call: ToolCall, error: unknown): PreparedCall {
	const text = `The tool call could not be prepared: ${errorText(error)}`;
	return { call, eventArgs: call.arguments, intent: undefined, plan: { kind: "reject", text } };
}

/** Resolves when `work` settles or `signal` fires, whichever is first. */
function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
	return new Promise<void>((resolve) => {
		if (signal.aborted) return resolve();
		const onAbort = (): void => resolve();
		signal.addEventListener("abort", onAbort, { once: true });
		void work.then(() => {
			signal.removeEventListener("abort", onAbort);
			resolve();
		});
	});
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

/** The rejection text for arguments that failed validation (rule T3); `origin` says whose arguments they were. */
export function invalidArgumentsText(toolName: string, errors: readonly string[], origin = ""): string {
	return (
		`Invalid arguments for tool "${toolName}"${origin}:\n` +
		errors.map((line) => `- ${line}`).join("\n") +
		"\nFix these arguments and call the tool again."
	);
}
