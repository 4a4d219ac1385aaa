/**
 * Rule X3 run telemetry: the records a run produces when the host opts in, the summary and coverage that
 * ride on `agent_end`, and the sink contract through which the same facts reach a tracer (OpenTelemetry lives
 * in `capstan/otel`, so the core never loads `@opentelemetry/api`).
 *
 * Every fact is derived from the run's own events; times come from the run's injected clock (rule L13).
 */
import type {
	AgentMessage,
	AssistantMessage,
	ErrorKind,
	Message,
	StopReason,
	Usage,
} from "../core/messages.js";
import type { Model } from "../core/model.js";
import type { Step } from "../core/step-runner.js";
import type { ToolCallStatus, ToolResult } from "../tools/types.js";
import type { RunOutcome } from "./outcome.js";

/** One model call, as observed from its assistant message's events. */
export interface ModelCallRecord {
	/** 0-based position of the call in the run. */
	index: number;
	/** The model that answered (the assistant message's `model`). */
	model: string;
	/** The assistant message's `provider`. */
	provider: string;
	/** The assistant message's `api`. */
	api: string;
	/** The provider's response id, when it sent one. */
	responseId?: string;
	/** The assistant message's `stopReason` (rule M4). */
	stopReason: StopReason;
	/**
	 * The finer stop cause (`stopDetails.type`), e.g. `pause_turn`, `refusal`; `deadline` for a call the run's
	 * deadline cut short (rule A7), whose message says only `aborted`.
	 */
	stopDetail?: string;
	/** The failure's class, when the call failed. */
	errorKind?: ErrorKind;
	/** The failure's text, when the call failed. */
	errorMessage?: string;
	/** Clock time the call began: the end of the last event before its reply (turn start or injected input). */
	startedAt: number;
	/** From the call's start to its assistant `message_end`. */
	latencyMs: number;
	/** From the call's start to the first streamed delta; absent when nothing streamed. */
	timeToFirstTokenMs?: number;
	/** The assistant message's `usage` (rule M5). */
	usage: Usage;
	/** `usage.cost.total`, in the model's price-table currency. */
	cost: number;
	/**
	 * The settings this call was made with, when it set any: its own, so a reply guard's retry shows the
	 * options it asked for (rule X4: a raised temperature). `temperature` is the one the call asked for (a
	 * provider leaves it out for a model that rejects it); `maxTokens` is the cap the request carried, as
	 * {@link RunStartInfo.request}'s. Absent when the call set neither, and for a reply no model call made (the
	 * error reply of a run that failed inside the loop).
	 */
	request?: { temperature?: number; maxTokens?: number };
	/**
	 * True for a reply a reply guard discarded (rule X4): closed with `message_end { discarded: true }`, never
	 * added to the transcript, and the model called again.
	 */
	discarded?: true;
}

/** One tool call, from its `tool_execution_start` to its `tool_execution_end`. */
export interface ToolCallRecord {
	/** The tool call's id. */
	id: string;
	/** The tool's name, as the model called it. */
	name: string;
	/** How the call settled. */
	status: ToolCallStatus;
	/** The result's `isError`. */
	isError: boolean;
	/** Clock time of the call's `tool_execution_start`. */
	startedAt: number;
	/**
	 * Execution time for a call that ran; about zero for one settled without running (blocked, skipped, a
	 * validation error, an abort before it started), whose start and end are emitted together.
	 */
	latencyMs: number;
	/** The model's stated intent when intent tracing is on (rule C5). */
	intent?: string;
	/**
	 * `deadline` for a call the run's deadline cut short (rule A7), whose status says only `aborted`; as on
	 * {@link ModelCallRecord.stopDetail}.
	 */
	stopDetail?: "deadline";
}

/** Totals of one run, on `agent_end.summary` (rule X3). */
export interface RunSummary {
	/** From the run's start to `agent_end`. */
	wallTimeMs: number;
	/** Turns started (`turn_start` events). */
	turns: number;
	/** Model calls that ended, failed ones and discarded replies included. */
	modelCalls: number;
	/** Model calls that ended with `stopReason` `error` or `aborted`. */
	failedModelCalls: number;
	/** Sum of the model calls' latencies. */
	modelTimeMs: number;
	/** Tool calls that ended, whatever their status. */
	toolCalls: number;
	/** Tool calls that ended, counted by status. */
	toolCallsByStatus: Record<ToolCallStatus, number>;
	/** Sum of the tool calls' latencies (overlapping calls each count in full). */
	toolTimeMs: number;
	/** Token usage and cost summed over every model call. */
	usage: Usage;
	/** `usage.cost.total`. */
	cost: number;
	/** Every record, in the order the calls ended. */
	records: { modelCalls: ModelCallRecord[]; toolCalls: ToolCallRecord[] };
}

/** What the run used of what it was offered, on `agent_end.coverage` (rule X3). */
export interface RunCoverage {
	/** Names of the run's tools, in context order. */
	toolsOffered: string[];
	/**
	 * Names the model called at least once, whatever the call's status: offered tools in offered order, then
	 * unknown names.
	 */
	toolsInvoked: string[];
	/** Offered tools the model never called. */
	toolsNeverUsed: string[];
	/** Names the model called that the run did not offer (each such call got an error result, rule T2). */
	unknownToolsCalled: string[];
	/** Models that answered, in order of first use. */
	models: string[];
	/** Providers that answered, in order of first use. */
	providers: string[];
}

/** Opt-in run telemetry (rule X3). Without it the loop creates no collector and does no per-event work. */
export interface TelemetryOptions {
	/** Called as each model call ends. */
	onModelCall?: (record: ModelCallRecord) => void;
	/** Called as each tool call ends. */
	onToolCall?: (record: ToolCallRecord) => void;
	/** Where the records also go, e.g. `openTelemetry(tracer)` from `capstan/otel`. */
	sinks?: readonly TelemetrySink[];
	/**
	 * Hand message content (system prompt, input and output messages, tool arguments and results) to the
	 * sinks, which may export it. Off by default: content often holds personal data. Each model call's
	 * request holds the whole transcript so far; the OpenTelemetry sink can export each message once per run
	 * instead (`OpenTelemetryOptions.inputMessages` in `capstan/otel`).
	 */
	recordContent?: boolean;
	/** Where a throwing callback or sink is reported; telemetry never breaks a run. Default `console.error`. */
	onError?: (error: unknown) => void;
}

/** What a sink learns when a run starts. Content fields are present only with `recordContent`. */
export interface RunStartInfo {
	/** Clock time the run was created. */
	startedAt: number;
	/** The run's configured model (the request model). */
	model: Model;
	/** The tools offered to the model. */
	tools: readonly { name: string; description: string }[];
	/**
	 * Request settings worth reporting: `temperature` and `sessionId` when the run's `streamOptions` set them;
	 * `maxTokens`, the output cap the requests carry: `streamOptions.maxTokens`, else the model's
	 * `compat.defaultMaxTokens`, else its `maxTokens` where the API requires a cap (Anthropic), else absent
	 * (no cap sent, the server's default applies).
	 */
	request: { temperature?: number; maxTokens?: number; sessionId?: string };
	/** Whether content fields are handed to the sink ({@link TelemetryOptions.recordContent}). */
	recordContent: boolean;
	/** The run's system prompt, present only with `recordContent`. */
	systemPrompt?: string;
}

/** Content of one model call, given to sinks only with `recordContent`. */
export interface ModelCallContent {
	/**
	 * The agent-level transcript before the call, as the events showed it (before `transformContext`); replies a
	 * reply guard discarded are not in it, as they are not in the transcript.
	 */
	input: readonly AgentMessage[];
	/**
	 * The messages the model was sent for this call: after `transformContext` and `convertToLlm`, without
	 * refused replies (rule C3), with arguments `beforeToolCall` revised (rule T4). What `gen_ai.input.messages`
	 * reports (with `inputMessages: "new"`, only the messages an earlier `chat` span of the run did not record).
	 */
	request: readonly Message[];
	/** The reply the call produced. */
	output: AssistantMessage;
}

/** Content of one tool call, given to sinks only with `recordContent`. */
export interface ToolCallContent {
	/** The arguments on the call's `tool_execution_start`. */
	args: Record<string, unknown>;
	/** The result on the call's `tool_execution_end`. */
	result: ToolResult;
}

/** What a sink learns when a run ends. */
export interface RunEndInfo {
	/** Clock time the run ended: its start plus `summary.wallTimeMs`. */
	endedAt: number;
	/** How the run ended, as on `agent_end`. */
	outcome: RunOutcome;
	/** The run's totals, as on `agent_end`. */
	summary: RunSummary;
	/** What the run used of what it was offered, as on `agent_end`. */
	coverage: RunCoverage;
}

/** The receiver of one run's telemetry. Calls arrive in event order; a throw is reported, never propagated. */
export interface RunSink {
	/** A model call ended; `content` is present only with `recordContent`. */
	modelCall(record: ModelCallRecord, content: ModelCallContent | undefined): void;
	/** A tool call ended; `content` is present only with `recordContent`. */
	toolCall(record: ToolCallRecord, content: ToolCallContent | undefined): void;
	/** The run ended; the last call the sink gets. */
	endRun(end: RunEndInfo): void;
	/**
	 * Optional: run one model or tool step (rule L13) inside the sink's scope — e.g. with the step's span
	 * active, so spans the provider's HTTP client or the tool itself creates nest under it. Must return
	 * `fn()`'s promise (calling `fn` once); it runs inside the host's step runner, so a replayed step that
	 * never calls `fn` opens no scope.
	 */
	runStep?<T>(step: Step, startedAt: number, fn: () => Promise<T>): Promise<T>;
}

/**
 * A destination for run telemetry. `startRun` is called synchronously when the run is created (inside the
 * caller's call to `agentLoop` or `Agent.prompt`), so a tracer can pick up the caller's active context.
 */
export interface TelemetrySink {
	/** A run was created: returns the sink that receives the rest of its telemetry. */
	startRun(run: RunStartInfo): RunSink;
}
