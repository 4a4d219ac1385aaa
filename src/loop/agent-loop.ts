import { EventStream } from "../core/event-stream.js";
import type { AgentMessage } from "../core/messages.js";
import type { StreamFunction } from "../core/model.js";
import { runStepDirectly } from "../core/step-runner.js";
import type { AgentLoopConfig } from "../protocol/config.js";
import type { AgentContext, AgentEvent } from "../protocol/events.js";
import { createRunTelemetry } from "../telemetry/collector.js";
import { findDanglingBatch } from "./pairing.js";
import { runAgentLoop } from "./run.js";
import type { RunState } from "./run-state.js";
import { createRunSignal } from "./signals.js";
import { WireLog } from "./wire-log.js";

/** The stream of one run: every event, then every message the run added, in context order. */
export type AgentEventStream = EventStream<AgentEvent, AgentMessage[]>;

/**
 * A run's configuration with its stream function chosen. The loop picks no default: that is the package
 * edge's job (`src/edge/`), so the loop imports no provider.
 */
export type LoopConfig = AgentLoopConfig & { streamFn: StreamFunction };

/** Start a run with new prompt messages (rule L1); `agentLoop` at the package edge documents the contract. */
export function startAgentLoop(
	prompts: AgentMessage[],
	context: AgentContext,
	config: LoopConfig,
	signal?: AbortSignal,
): AgentEventStream {
	return startRun(context, config, signal, prompts, false);
}

/** Continue a run without a new prompt (rule L6); `agentLoopContinue` at the package edge documents the contract. */
export function continueAgentLoop(
	context: AgentContext,
	config: LoopConfig,
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
	config: LoopConfig,
	signal: AbortSignal | undefined,
	prompts: AgentMessage[],
	resume: boolean,
): AgentEventStream {
	const events: AgentEventStream = new EventStream();
	const now = config.now ?? Date.now;
	const runSignal = createRunSignal(signal, config.deadline, now);
	// Rule X3: a collector only when the host opts in; created here, inside the caller's call, so a tracer sink
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
		streamFn: config.streamFn,
		runStep: telemetry ? telemetry.wrapStepRunner(runStep) : runStep,
		now,
		context,
		messages: context.messages.slice(),
		added: [],
		pending: prompts.slice(),
		events,
		signal: runSignal.signal,
		runSignal,
		open: { turn: false, message: undefined, toolExecutions: new Map() },
		modelCalls: 0,
		soft: { reminded: new Set(), satisfied: new Set(), forcing: undefined },
		pausedContinuations: 0,
		ending: undefined,
		replyGuard: undefined,
		telemetry,
		wireLog: new WireLog(),
	};
	queueMicrotask(() => {
		void runAgentLoop(state, resume).finally(runSignal.dispose);
	});
	return events;
}
