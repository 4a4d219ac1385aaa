/**
 * Preparing a batch's calls (rule T2, T3, X1): every call's plan, decided before anything runs. Synchronous
 * unless a tool's validator is asynchronous (a Standard Schema validator may be); then the batch waits for
 * the validations, or for an abort, whichever comes first.
 */
import { errorText } from "../core/abort.js";
import type { ToolCall } from "../core/messages.js";
import { toolCallsOf } from "../core/messages.js";
import type { ToolBatchInput } from "./batch.js";
import { type PreparedCall, prepareCall } from "./call.js";

/**
 * Prepare every call, in message order. When a validator is asynchronous, wait for all of them — but an
 * abort (rule A1) settles the batch at once: a call still being validated then is `abandoned`, and the
 * abort gives it its placeholder.
 */
export function prepareAll(input: ToolBatchInput): PreparedCall[] | Promise<PreparedCall[]> {
	const calls = toolCallsOf(input.assistantMessage);
	// One plain loop and no closures on the synchronous path: it runs once per batch, mostly as cold code.
	const pending: (PreparedCall | Promise<PreparedCall>)[] = [];
	let asynchronous = false;
	for (let i = 0; i < calls.length; i++) {
		const item = prepareSafely(calls[i] as ToolCall, input);
		if (item instanceof Promise) asynchronous = true;
		pending.push(item);
	}
	if (!asynchronous) return pending as PreparedCall[];
	const ready: (PreparedCall | undefined)[] = pending.map((item) =>
		item instanceof Promise ? undefined : item,
	);
	const all = Promise.all(
		pending.map(async (item, index) => {
			ready[index] = await item;
		}),
	);
	return untilAborted(all, input.signal).then(() =>
		calls.map(
			(call, index) => ready[index] ?? { call, eventArgs: call.arguments, plan: { kind: "abandoned" } },
		),
	);
}

/** Preparation runs host code (schema conversion, validators); a throw there still pairs the call with a result. */
function prepareSafely(call: ToolCall, input: ToolBatchInput): PreparedCall | Promise<PreparedCall> {
	try {
		const prepared = prepareCall(call, {
			tools: input.tools,
			intentTracing: input.intentTracing,
			preSkipped: input.preSkipped?.get(call.id),
			decision: input.decisions?.[call.id],
		});
		return prepared instanceof Promise
			? prepared.catch((error: unknown) => unprepared(call, error))
			: prepared;
	} catch (error) {
		return unprepared(call, error);
	}
}

/** The plan of a call whose preparation threw. */
function unprepared(call: ToolCall, error: unknown): PreparedCall {
	const text = `The tool call could not be prepared: ${errorText(error)}`;
	return { call, eventArgs: call.arguments, plan: { kind: "reject", text } };
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
