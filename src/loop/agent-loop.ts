import { EventStream } from "../core/event-stream.js";
import type { AgentMessage } from "../core/messages.js";
import type { StreamFunction } from "../core/model.js";
import { runStepDirectly } from "../core/step-runner.js";
import type { AgentLoopConfig } from "../protocol/config.js";
import type { AgentContext, AgentEvent } from "../protocol/events.js";
import { stream as registryStream } from "../providers/registry.js";
import { createRunTelemetry } from "../telemetry/collector.js";
import { findDanglingBatch } from "./pairing.js";
import { runAgentLoop } from "./run.js";
import type { RunState } from "./run-state.js";
import { createRunSignal } from "./signals.js";
import { WireLog } from "./wire-log.js";

/** The stream of one run: every event, then every message the run added, in context order. */
export type AgentEventStream = EventStream<AgentEvent, AgentMessage[]>;

/**
 * Start a run with new prompt messages (SPEC L1). Returns the event stream synchronously; all work is
 * asynchronous. `context.messages` is never mutated. `result()` resolves to every message the run added.
 */
export function agentLoop(
	prompts: AgentMessage[],
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
): AgentEventStream {
	return startRun(context, config, signal, prompts, false);
}

/**
 * Continue from the existing context without a new prompt (SPEC L6). Refuses synchronously an empty
 * context and one whose last message is an assistant message with no unpaired tool calls; when the last
 * assistant message has tool calls without results, that batch runs first, then the loop goes on.
 *
 * That assistant message belongs to the caller's context, which the loop never mutates: if `beforeToolCall`
 * revises arguments in the resumed batch (SPEC T4), the revised reply arrives as that turn's
 * `turn_end.message` and the caller replaces its copy (the `Agent` does this for you).
 */
export function agentLoopContinue(
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
): AgentEventStream {
	const { messages } = context;
	if (messages.length === 0)
		throw new Error("agentLoopContinue: the context is empty; there is nothing to continue from");
	const last = messages[messages.length - 1] as { role?: unknown };
	if (last.role === "assistant" && !findDanglingBatch(messages)) {
		throw new Error(
			"agentLoopContinue: the context ends with an assistant message that has no unanswered tool calls; add a user message (or use agentLoop with a prompt) to continue",
		);
	}
	return startRun(context, config, signal, [], true);
}

function startRun(
	context: AgentContext,
	config: AgentLoopConfig,
	signal: AbortSignal | undefined,
	prompts: AgentMessage[],
	resume: boolean,
): AgentEventStream {
	const events: AgentEventStream = new EventStream();
	const now = config.now ?? Date.now;
	const runSignal = createRunSignal(signal, config.deadline, now);
	const streamFn: StreamFunction = config.streamFn ?? registryStream;
	// SPEC X3: a collector only when the host opts in; created here, inside the caller's call, so a tracer sink
	// picks up the caller's active context.
	const telemetry = config.telemetry
		? createRunTelemetry(config.telemetry, {
				model: config.model,
				context,
				streamOptions: config.streamOptions,
				now,
			})
		: undefined;
	const runStep = config.runStep ?? runStepDirectly;
	const state: RunState = {
		config,
		streamFn,
		runStep: telemetry ? telemetry.wrapStepRunner(runStep) : runStep,
		now,
		context,
		messages: context.messages.slice(),
		added: [],
		pending: prompts.slice(),
		events,
		signal: runSignal.signal,
		open: { turn: false, message: undefined, toolExecutions: new Map() },
		modelCalls: 0,
		soft: { reminded: new Set(), satisfied: new Set(), forcing: undefined },
		pausedContinuations: 0,
		outcome: undefined,
		telemetry,
		wireLog: new WireLog(),
	};
	queueMicrotask(() => {
		void runAgentLoop(state, resume).finally(runSignal.dispose);
	});
	return events;
}
