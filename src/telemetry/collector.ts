import { requestMaxTokens } from "../core/max-tokens.js";
import type { AgentMessage, AssistantMessage, Message } from "../core/messages.js";
import type { Model, StreamOptions } from "../core/model.js";
import type { Step, StepRunner } from "../core/step-runner.js";
import type { AgentContext, AgentEvent } from "../protocol/events.js";
import type { RunOutcome } from "../protocol/outcome.js";
import type {
	ModelCallRecord,
	RunCoverage,
	RunSink,
	RunSummary,
	TelemetryOptions,
	ToolCallRecord,
} from "../protocol/telemetry.js";
import type { ToolCallStatus, ToolResult } from "../tools/types.js";
import { coverageOf, summarizeRun } from "./summary.js";

/** What the collector needs from the run being observed. */
export interface ObservedRun {
	model: Model;
	context: AgentContext;
	streamOptions?: { temperature?: number; maxTokens?: number; sessionId?: string };
	/** The run's injected clock (rule L13). */
	now: () => number;
	/**
	 * Rule A7: whether the run's deadline has passed (its abort fired, or the clock is at or past it), as the
	 * run's outcome decides it. Absent for a run without a deadline.
	 */
	deadlinePassed?: () => boolean;
}

interface OpenCall {
	startedAt: number;
	firstTokenAt: number | undefined;
}

interface OpenTool {
	name: string;
	startedAt: number;
	intent: string | undefined;
	args: Record<string, unknown>;
}

/**
 * Create the collector of one run (rule X3). The loop calls this only when `config.telemetry` is set, so a
 * run without telemetry has no collector and pays one `undefined` check per event.
 */
export function createRunTelemetry(options: TelemetryOptions, run: ObservedRun): RunTelemetry {
	return new RunTelemetry(options, run);
}

/**
 * Derives per-call records, the summary and the coverage from the run's own events — the loop has no
 * telemetry code beyond calling `observe` and attaching `report()` to `agent_end`.
 *
 * A model call starts at the last turn boundary or injected message before its reply (`turn_start` or a
 * `message_end`): the provider call is made right after those, so its latency includes the request's
 * time to first byte, which `message_start` (emitted at the first stream event) would miss.
 */
export class RunTelemetry {
	private readonly now: () => number;
	private readonly model: Model;
	private readonly deadlinePassed: (() => boolean) | undefined;
	private readonly startedAt: number;
	private readonly toolsOffered: string[];
	private readonly modelCalls: ModelCallRecord[] = [];
	private readonly toolCalls: ToolCallRecord[] = [];
	private readonly openTools = new Map<string, OpenTool>();
	private readonly sinks: RunSink[] = [];
	/** The agent-level transcript, kept only when content goes to sinks. */
	private readonly transcript: AgentMessage[] | undefined;
	/** The messages of the model call in flight, copied only when content goes to sinks. */
	private request: readonly Message[] = [];
	/** The settings of the model call in flight, taken by its reply's record. */
	private callSettings: ModelCallRecord["request"];
	private turns = 0;
	private callBoundary: number;
	private call: OpenCall | undefined;
	private reported: { summary: RunSummary; coverage: RunCoverage } | undefined;

	constructor(
		private readonly options: TelemetryOptions,
		run: ObservedRun,
	) {
		this.now = run.now;
		this.model = run.model;
		this.deadlinePassed = run.deadlinePassed;
		this.startedAt = run.now();
		this.callBoundary = this.startedAt;
		const tools = run.context.tools ?? [];
		this.toolsOffered = tools.map((tool) => tool.name);
		const recordContent = options.recordContent === true;
		this.transcript = recordContent ? run.context.messages.slice() : undefined;
		const request = {
			...requestSettings(run.model, run.streamOptions),
			...(run.streamOptions?.sessionId !== undefined ? { sessionId: run.streamOptions.sessionId } : {}),
		};
		for (const sink of options.sinks ?? []) {
			this.guard(() => {
				this.sinks.push(
					sink.startRun({
						startedAt: this.startedAt,
						model: run.model,
						tools: tools.map((tool) => ({ name: tool.name, description: tool.description })),
						request,
						recordContent,
						...(recordContent && run.context.systemPrompt !== undefined
							? { systemPrompt: run.context.systemPrompt }
							: {}),
					}),
				);
			});
		}
	}

	/**
	 * Observe one event, before it is pushed to the run's stream. Never throws: a malformed message (say, a
	 * replayed step result without usage) costs its record, never the run.
	 */
	observe(event: AgentEvent): void {
		try {
			this.dispatch(event);
		} catch (error) {
			this.reportError(error);
		}
	}

	/**
	 * The run's step runner with each scoped sink's `runStep` inside the host's runner (rule L13): the host
	 * still sees every step, and a replayed step that never calls `fn` opens no scope. Without such sinks the
	 * host's runner is returned unchanged.
	 */
	wrapStepRunner(runner: StepRunner): StepRunner {
		const scoped = this.sinks.filter((sink) => sink.runStep !== undefined);
		if (scoped.length === 0) return runner;
		return <T>(step: Step, fn: () => Promise<T>) =>
			runner(step, () => scoped.reduce((inner, sink) => () => this.inScope(sink, step, inner), fn)());
	}

	/** The summary and coverage for `agent_end`, computed once at the first call. Never throws. */
	report(): { summary: RunSummary; coverage: RunCoverage } | undefined {
		if (this.reported) return this.reported;
		try {
			const records = { modelCalls: this.modelCalls, toolCalls: this.toolCalls };
			this.reported = {
				summary: summarizeRun(records, this.turns, this.now() - this.startedAt),
				coverage: coverageOf(this.toolsOffered, records),
			};
		} catch (error) {
			this.reportError(error);
		}
		return this.reported;
	}

	private dispatch(event: AgentEvent): void {
		switch (event.type) {
			case "turn_start":
				this.turns++;
				this.callBoundary = this.now();
				break;
			case "message_start":
				if (isAssistant(event.message)) this.call = { startedAt: this.callBoundary, firstTokenAt: undefined };
				break;
			case "message_update":
				if (this.call && this.call.firstTokenAt === undefined && isDelta(event.assistantMessageEvent.type))
					this.call.firstTokenAt = this.now();
				break;
			case "message_end":
				this.onMessageEnd(event.message, event.discarded === true);
				break;
			case "tool_execution_start":
				this.openTools.set(event.toolCallId, {
					name: event.toolName,
					startedAt: this.now(),
					intent: event.intent,
					args: event.args,
				});
				break;
			case "tool_execution_end":
				this.onToolEnd(event.toolCallId, event.toolName, event.status, event.isError, event.result);
				break;
			case "agent_end":
				this.onRunEnd(event.outcome);
				break;
		}
	}

	/**
	 * The messages and options the loop sends for the next model call (rule C1's output; a reply guard's retry
	 * options, rule X4), called just before the call. The messages are kept (as a copy: the loop's wire log
	 * grows in place) only when content goes to sinks.
	 */
	modelRequest(messages: readonly Message[], options: StreamOptions): void {
		if (this.transcript) this.request = messages.slice();
		const settings = requestSettings(this.model, options);
		this.callSettings = Object.keys(settings).length > 0 ? settings : undefined;
	}

	private onMessageEnd(message: AgentMessage, discarded: boolean): void {
		const endedAt = this.now();
		if (isAssistant(message)) {
			const call = this.call ?? { startedAt: this.callBoundary, firstTokenAt: undefined };
			this.call = undefined;
			// Rule A7: a reply the deadline cut short is committed as aborted; its record says it was the deadline.
			const byDeadline = message.stopReason === "aborted" && this.deadlinePassed?.() === true;
			const record = modelCallRecord(this.modelCalls.length, message, call, endedAt, byDeadline);
			if (this.callSettings) record.request = this.callSettings;
			this.callSettings = undefined; // one call's settings, never a later reply's
			if (discarded) record.discarded = true;
			this.modelCalls.push(record);
			const content = this.transcript
				? { input: this.transcript.slice(), request: this.request, output: message }
				: undefined;
			this.guard(() => this.options.onModelCall?.(record));
			for (const sink of this.sinks) this.guard(() => sink.modelCall(record, content));
		}
		// A discarded reply (rule X4) was never added to the transcript, and the next call does not send it.
		if (!discarded) this.transcript?.push(message);
		this.callBoundary = endedAt;
	}

	private onToolEnd(
		id: string,
		name: string,
		status: ToolCallStatus,
		isError: boolean,
		result: ToolResult,
	): void {
		const endedAt = this.now();
		const open = this.openTools.get(id);
		this.openTools.delete(id);
		const startedAt = open?.startedAt ?? endedAt;
		// Rule A7: a call the deadline cut short ends as aborted; its record says it was the deadline.
		const byDeadline = status === "aborted" && this.deadlinePassed?.() === true;
		const record: ToolCallRecord = {
			id,
			name,
			status,
			isError,
			startedAt,
			latencyMs: endedAt - startedAt,
			...(open?.intent !== undefined ? { intent: open.intent } : {}),
			...(byDeadline ? { stopDetail: "deadline" as const } : {}),
		};
		this.toolCalls.push(record);
		const content = this.transcript ? { args: open?.args ?? {}, result } : undefined;
		this.guard(() => this.options.onToolCall?.(record));
		for (const sink of this.sinks) this.guard(() => sink.toolCall(record, content));
	}

	private onRunEnd(outcome: RunOutcome): void {
		const report = this.report();
		if (!report) return;
		const end = { endedAt: this.startedAt + report.summary.wallTimeMs, outcome, ...report };
		for (const sink of this.sinks) this.guard(() => sink.endRun(end));
	}

	/** One sink's step scope; `fn` runs exactly once even when the sink throws. */
	private inScope<T>(sink: RunSink, step: Step, fn: () => Promise<T>): Promise<T> {
		let started: Promise<T> | undefined;
		const once = () => {
			started ??= fn();
			return started;
		};
		try {
			return sink.runStep?.(step, this.now(), once) ?? once();
		} catch (error) {
			this.reportError(error);
			return once();
		}
	}

	private guard(fn: () => void): void {
		try {
			fn();
		} catch (error) {
			this.reportError(error);
		}
	}

	private reportError(error: unknown): void {
		try {
			(this.options.onError ?? defaultOnError)(error);
		} catch {
			// A throwing error reporter has nowhere left to report to; the run must go on.
		}
	}
}

function modelCallRecord(
	index: number,
	message: AssistantMessage,
	call: OpenCall,
	endedAt: number,
	byDeadline: boolean,
): ModelCallRecord {
	const stopDetail = byDeadline ? "deadline" : message.stopDetails?.type;
	return {
		index,
		model: message.model,
		provider: message.provider,
		api: message.api,
		...(message.responseId !== undefined ? { responseId: message.responseId } : {}),
		stopReason: message.stopReason,
		...(stopDetail !== undefined ? { stopDetail } : {}),
		...(message.errorKind !== undefined ? { errorKind: message.errorKind } : {}),
		...(message.errorMessage !== undefined ? { errorMessage: message.errorMessage } : {}),
		startedAt: call.startedAt,
		latencyMs: endedAt - call.startedAt,
		...(call.firstTokenAt !== undefined ? { timeToFirstTokenMs: call.firstTokenAt - call.startedAt } : {}),
		usage: message.usage,
		cost: message.usage.cost.total,
	};
}

/**
 * The settings worth reporting of a request made with `options`: the temperature it asked for, and the cap it
 * carried, which the options may leave to the model or its API (`requestMaxTokens`).
 */
function requestSettings(
	model: Model,
	options: Pick<StreamOptions, "temperature" | "maxTokens"> | undefined,
): { temperature?: number; maxTokens?: number } {
	const maxTokens = requestMaxTokens(model, options?.maxTokens);
	return {
		...(options?.temperature !== undefined ? { temperature: options.temperature } : {}),
		...(maxTokens !== undefined ? { maxTokens } : {}),
	};
}

function isAssistant(message: AgentMessage): message is AssistantMessage {
	return (message as { role?: unknown }).role === "assistant";
}

/** The first generated token: a text, thinking or tool-argument delta (a `*_start` may precede any token). */
function isDelta(type: string): boolean {
	return type === "text_delta" || type === "thinking_delta" || type === "toolcall_delta";
}

function defaultOnError(error: unknown): void {
	console.error("capstan: telemetry error", error);
}
