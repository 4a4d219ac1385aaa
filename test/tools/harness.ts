/**
 * Shared fixtures for the tool-batch tests: a real assistant message holding the calls, deferred promises
 * for tools driven by hand, and a harness around the real `runToolBatch` that records every event.
 */
import { type AssistantMessage, emptyUsage, type ToolCall } from "../../src/core/messages.js";
import { runStepDirectly } from "../../src/core/step-runner.js";
import type { AgentEvent } from "../../src/protocol/events.js";
import { runToolBatch, type ToolBatchInput } from "../../src/tools/batch.js";
import type { AgentTool } from "../../src/tools/types.js";

/** Tool arguments. */
export type Args = Record<string, unknown>;

/** An assistant reply with these calls (`[id, name]` or `[id, name, args]`; args default to `{}`). */
export function assistantWith(
	calls: readonly (readonly [id: string, name: string, args?: Args])[],
): AssistantMessage {
	return {
		role: "assistant",
		content: calls.map(
			([id, name, args]): ToolCall => ({ type: "toolCall", id, name, arguments: args ?? {} }),
		),
		api: "test",
		provider: "test",
		model: "test",
		usage: emptyUsage(),
		stopReason: "toolUse",
		timestamp: 0,
	};
}

/** A promise resolved by hand. */
export interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
}

/** A promise and its resolver. */
export function deferred<T = void>(): Deferred<T> {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

/** The real batch runner over `calls`, with its input, recorded events and the run's abort controller. */
export function batchHarness(
	calls: readonly (readonly [id: string, name: string, args?: Args])[],
	tools: AgentTool[],
	extra: Partial<ToolBatchInput> = {},
	now = 0,
) {
	const events: AgentEvent[] = [];
	const controller = new AbortController();
	const input: ToolBatchInput = {
		assistantMessage: assistantWith(calls),
		tools,
		messages: [],
		signal: controller.signal,
		abortPlaceholder: () => ({ reason: "aborted", cause: "user pressed stop" }),
		runStep: runStepDirectly,
		emit: (event) => events.push(event),
		now: () => now,
		intentTracing: false,
		...extra,
	};
	return { input, events, controller, run: () => runToolBatch(input) };
}
