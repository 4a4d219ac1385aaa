/**
 * Rule X3: OpenTelemetry spans for a run, following the GenAI semantic conventions — one `invoke_agent` span
 * per run, a `chat {model}` child per model call and an `execute_tool {name}` child per executed tool.
 *
 * This is the only module that imports `@opentelemetry/api` at runtime, and only the `capstan/otel` entry
 * exports it: the core (`capstan`) never loads the api package, so it stays an optional peer dependency.
 * Parenting needs the api's runtime functions (`trace.setSpan`, `context.active`), and a static import here
 * resolves to the host's own copy (peer dependency) synchronously, with no dynamic import to bundle or await
 * and no functions for the host to hand over by hand.
 *
 * Span times come from the run's injected clock (rule L13), so span durations agree with the records. A
 * model or tool step opens its span when the step starts and runs inside it (`context.with`), so spans the
 * provider's HTTP client or the tool itself creates nest under `chat` / `execute_tool`; the records then
 * complete and end it. A step replayed by a durable runner never runs, so its span is built from the record
 * alone. A tool call that never executed (blocked by `beforeToolCall`, skipped by steering) gets no
 * `execute_tool` span but a `capstan.tool_call.not_executed` event on the run span.
 */
import {
	type Attributes,
	type Context,
	context as otelContext,
	type Span,
	SpanKind,
	SpanStatusCode,
	type Tracer,
	trace,
} from "@opentelemetry/api";
import type { Message, Usage } from "../core/messages.js";
import type { Step } from "../core/step-runner.js";
import type { RunOutcome } from "../protocol/outcome.js";
import type {
	ModelCallContent,
	ModelCallRecord,
	RunEndInfo,
	RunSink,
	RunStartInfo,
	TelemetrySink,
	ToolCallContent,
	ToolCallRecord,
} from "../protocol/telemetry.js";
import {
	finishReason,
	toInputMessage,
	toInputMessages,
	toOutputMessages,
	toolResultText,
	toSystemInstructions,
} from "./genai-messages.js";

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
	/** `gen_ai.agent.name`; the run span is then named `invoke_agent {agentName}`. */
	agentName?: string;
	/** Parent of the run span. Default: the context active when the run is created. */
	parentContext?: () => Context;
	/**
	 * With `recordContent`, which of a model call's request messages its `chat` span records in
	 * `gen_ai.input.messages`:
	 *
	 * - `"all"` (default): the whole request on every span, as the conventions describe the attribute and as
	 *   trace viewers show a call's input. Every call resends the transcript so far, so a run of N turns
	 *   exports O(N²) bytes.
	 * - `"new"`: only the messages that the run's previous recorded `chat` span did not already
	 *   hold. `capstan.input.messages_omitted` says how many leading messages of the request were left out:
	 *   they are the first ones of that previous span's input, in the same order. Each message of a run is
	 *   exported once, so a run of N turns exports content linear in N. A request that does not extend the
	 *   previous one (a `transformContext` that dropped or rewrote earlier messages) is recorded from its
	 *   first differing message. `gen_ai.system_instructions` goes on the first recorded `chat` span only.
	 *   Meant for long runs, where the whole requests would make the trace huge.
	 *
	 * To cap each attribute as well, set the SDK's span limits (`attributeValueLengthLimit`).
	 */
	inputMessages?: "new" | "all";
}

/**
 * A telemetry sink that writes each run as OpenTelemetry spans through `tracer`.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { openTelemetry } from "capstan/otel";
 *
 * const agent = new Agent({ model, telemetry: { sinks: [openTelemetry(trace.getTracer("my-app"))] } });
 * ```
 */
export function openTelemetry(tracer: Tracer, options: OpenTelemetryOptions = {}): TelemetrySink {
	return { startRun: (run) => new OtelRunSink(tracer, options, run) };
}

class OtelRunSink implements RunSink {
	private readonly span: Span;
	private readonly context: Context;
	private readonly provider: string;
	private readonly requestModel: string;
	/**
	 * What every model call of the run is sent with — its settings, conversation and server — set on the run
	 * span and on each `chat` span, the inference span the conventions put them on.
	 */
	private readonly requestAttributes: Attributes;
	private readonly descriptions: Map<string, string>;
	/** The model step's span while it streams (model calls are sequential). */
	private liveChat: Span | undefined;
	/** Tool steps' spans while they execute, by tool call id. */
	private readonly liveTools = new Map<string, Span>();
	private readonly allInput: boolean;
	/**
	 * `gen_ai.system_instructions` (with `recordContent` and a system prompt): on the run span and on the
	 * `chat` spans, each call's input being its instructions plus its messages; with `inputMessages: "new"`
	 * on the first recorded `chat` span only, then cleared.
	 */
	private systemInstructions: string | undefined;
	/**
	 * The request of the last `chat` span that recorded its input, with each message's GenAI JSON
	 * (`undefined` for a dropped role): what the next span's input is compared against.
	 */
	private recordedInput: { messages: readonly Message[]; json: (string | undefined)[] } = {
		messages: [],
		json: [],
	};

	constructor(
		private readonly tracer: Tracer,
		options: OpenTelemetryOptions,
		run: RunStartInfo,
	) {
		this.allInput = options.inputMessages !== "new";
		// An empty system prompt is no instruction: the attribute would show one empty text part.
		this.systemInstructions =
			run.recordContent && run.systemPrompt
				? JSON.stringify(toSystemInstructions(run.systemPrompt))
				: undefined;
		this.provider = providerName(run.model.provider);
		this.requestModel = run.model.id;
		this.descriptions = new Map(run.tools.map((tool) => [tool.name, tool.description]));
		this.requestAttributes = {
			...optional("gen_ai.conversation.id", run.request.sessionId),
			...optional("gen_ai.request.temperature", run.request.temperature),
			...optional("gen_ai.request.max_tokens", run.request.maxTokens),
			...serverAttributes(run.model.baseUrl),
		};
		const parent = options.parentContext?.() ?? otelContext.active();
		const name = options.agentName ? `invoke_agent ${options.agentName}` : "invoke_agent";
		this.span = tracer.startSpan(
			name,
			{
				kind: SpanKind.INTERNAL,
				startTime: run.startedAt,
				attributes: {
					"gen_ai.operation.name": "invoke_agent",
					"gen_ai.provider.name": this.provider,
					"gen_ai.request.model": this.requestModel,
					...optional("gen_ai.agent.name", options.agentName),
					...this.requestAttributes,
					...optional("gen_ai.system_instructions", this.systemInstructions),
				},
			},
			parent,
		);
		this.context = trace.setSpan(parent, this.span);
	}

	runStep<T>(step: Step, startedAt: number, fn: () => Promise<T>): Promise<T> {
		let span: Span;
		if (step.kind === "model") {
			this.liveChat?.end(startedAt); // defensive: a previous call always ends with its message
			span = this.startChat(startedAt);
			this.liveChat = span;
		} else {
			span = this.startTool(step.id, step.name, startedAt);
			this.liveTools.set(step.id, span);
		}
		return otelContext.with(trace.setSpan(this.context, span), fn);
	}

	modelCall(record: ModelCallRecord, content: ModelCallContent | undefined): void {
		const span = this.liveChat ?? this.startChat(record.startedAt);
		this.liveChat = undefined;
		// Sampled out: nothing would keep the attributes, so they are not built.
		if (span.isRecording()) {
			describeChat(span, record);
			if (content) {
				const instructions = this.systemInstructions;
				if (!this.allInput) this.systemInstructions = undefined; // "new": on the first recorded span only
				span.setAttributes({
					...optional("gen_ai.system_instructions", instructions),
					...this.inputAttributes(content.request),
					"gen_ai.output.messages": JSON.stringify(toOutputMessages(content.output)),
				});
			}
		}
		span.end(record.startedAt + record.latencyMs);
	}

	toolCall(record: ToolCallRecord, content: ToolCallContent | undefined): void {
		const live = this.liveTools.get(record.id);
		this.liveTools.delete(record.id);
		if (!live && (record.status === "blocked" || record.status === "skipped")) {
			if (!this.span.isRecording()) return;
			this.span.addEvent(
				"capstan.tool_call.not_executed",
				{
					"gen_ai.tool.name": record.name,
					"gen_ai.tool.call.id": record.id,
					"capstan.tool.status": record.status,
				},
				record.startedAt,
			);
			return;
		}
		const span = live ?? this.startTool(record.id, record.name, record.startedAt);
		if (span.isRecording()) describeTool(span, record, content);
		span.end(record.startedAt + record.latencyMs);
	}

	endRun(end: RunEndInfo): void {
		const { summary, coverage, outcome } = end;
		this.span.setAttributes({
			...usageAttributes(summary.usage),
			"capstan.run.outcome": outcome.type,
			"capstan.run.turns": summary.turns,
			"capstan.run.model_calls": summary.modelCalls,
			"capstan.run.tool_calls": summary.toolCalls,
			"capstan.tools.never_used": coverage.toolsNeverUsed,
		});
		const failure = failureOf(outcome, summary.records.modelCalls);
		if (failure) fail(this.span, failure.type, failure.message);
		this.liveChat?.end(end.endedAt);
		for (const span of this.liveTools.values()) span.end(end.endedAt);
		this.span.end(end.endedAt);
	}

	/**
	 * `gen_ai.input.messages` of one call: the whole request (the default), or (`inputMessages: "new"`) the messages after the
	 * longest prefix it shares with the last recorded request. A message the loop kept (the same object) is
	 * not serialized again; one a host hook copied is compared by its JSON.
	 */
	private inputAttributes(request: readonly Message[]): Attributes {
		if (this.allInput) return { "gen_ai.input.messages": JSON.stringify(toInputMessages(request)) };
		const previous = this.recordedInput;
		const shareable = Math.min(request.length, previous.messages.length);
		let shared = 0; // leading messages the last recorded request holds too
		let omitted = 0;
		for (; shared < shareable; shared++) {
			const message = request[shared] as Message;
			const json = message === previous.messages[shared] ? previous.json[shared] : messageJson(message);
			if (json !== previous.json[shared]) break;
			if (json !== undefined) omitted++;
		}
		const json = previous.json.slice(0, shared);
		const recorded: string[] = [];
		for (const message of request.slice(shared)) {
			const one = messageJson(message);
			json.push(one);
			if (one !== undefined) recorded.push(one);
		}
		this.recordedInput = { messages: request, json };
		return {
			// The parts are JSON already: joined, they are `JSON.stringify` of the array.
			"gen_ai.input.messages": `[${recorded.join(",")}]`,
			"capstan.input.messages_omitted": omitted,
		};
	}

	private startChat(startTime: number): Span {
		return this.tracer.startSpan(
			`chat ${this.requestModel}`,
			{
				kind: SpanKind.CLIENT,
				startTime,
				attributes: {
					"gen_ai.operation.name": "chat",
					"gen_ai.provider.name": this.provider,
					"gen_ai.request.model": this.requestModel,
					"gen_ai.request.stream": true,
					...this.requestAttributes,
				},
			},
			this.context,
		);
	}

	private startTool(id: string, name: string, startTime: number): Span {
		return this.tracer.startSpan(
			`execute_tool ${name}`,
			{
				kind: SpanKind.INTERNAL,
				startTime,
				attributes: {
					"gen_ai.operation.name": "execute_tool",
					"gen_ai.tool.name": name,
					"gen_ai.tool.call.id": id,
					"gen_ai.tool.type": "function",
					...optional("gen_ai.tool.description", this.descriptions.get(name)),
				},
			},
			this.context,
		);
	}
}

/**
 * The call's own request settings (a reply guard's retry may raise the temperature, rule X4), over the run's
 * set at the span's start; then the response side: model, id, finish reason, usage, a discarded reply, error
 * status.
 */
function describeChat(span: Span, record: ModelCallRecord): void {
	span.setAttributes({
		...optional("gen_ai.request.temperature", record.request?.temperature),
		...optional("gen_ai.request.max_tokens", record.request?.maxTokens),
		"gen_ai.response.model": record.model,
		...optional("gen_ai.response.id", record.responseId),
		"gen_ai.response.finish_reasons": [finishReason(record.stopReason, record.stopDetail)],
		// The first content delta, not `message_start`: providers may emit their start event on the response
		// headers, before any chunk of the stream has arrived.
		...optional(
			"gen_ai.response.time_to_first_chunk",
			record.timeToFirstTokenMs === undefined ? undefined : record.timeToFirstTokenMs / 1000,
		),
		...usageAttributes(record.usage, true),
		"capstan.stop_reason": record.stopReason,
		...optional("capstan.stop_detail", record.stopDetail),
		// Rule X4: the reply was thrown away and the model called again; the call itself did not fail.
		...(record.discarded ? { "capstan.reply.discarded": true } : {}),
	});
	// Rule A7: cut by the deadline, the call failed as the run did (`failureOf`), not as an abort.
	if (record.stopDetail === "deadline") fail(span, DEADLINE.type, DEADLINE.message);
	else if (record.stopReason === "error" || record.stopReason === "aborted") {
		const type = record.errorKind ?? (record.stopReason === "aborted" ? "aborted" : "_OTHER");
		fail(span, type, record.errorMessage);
	}
}

/** The outcome side of an `execute_tool` span: status, intent, content (opt-in), error status. */
function describeTool(span: Span, record: ToolCallRecord, content: ToolCallContent | undefined): void {
	span.setAttributes({
		"capstan.tool.status": record.status,
		// The host turned intent tracing on to see these (rule C5): exported without `recordContent`.
		...optional("capstan.tool.intent", record.intent),
		...optional("capstan.stop_detail", record.stopDetail),
	});
	if (content) {
		span.setAttributes({
			"gen_ai.tool.call.arguments": JSON.stringify(content.args),
			"gen_ai.tool.call.result": toolResultText(content.result.content),
		});
	}
	if (record.status === "error") fail(span, "tool_error");
	// Rule A7: cut by the deadline, the call failed as the run did (`failureOf`), not as an abort.
	else if (record.stopDetail === "deadline") fail(span, DEADLINE.type, DEADLINE.message);
	else if (record.status === "aborted") fail(span, "aborted");
	// Rule T10: cut short by a steer; its own error.type so traces tell a steer from an abort.
	else if (record.status === "interrupted") fail(span, "interrupted");
}

/**
 * GenAI usage attributes; `input_tokens` includes cached tokens, as the conventions ask (capstan's does not).
 * Usage that never arrived is `capstan.usage.unknown`: a call's placeholder zeros are not reported as counts
 * (`perCall`), a run's totals are kept as the lower bound they are.
 */
function usageAttributes(usage: Usage, perCall = false): Attributes {
	if (usage.unknown && perCall) return { "capstan.usage.unknown": true };
	return {
		...(usage.unknown ? { "capstan.usage.unknown": true } : {}),
		"gen_ai.usage.input_tokens": usage.input + usage.cacheRead + usage.cacheWrite,
		"gen_ai.usage.output_tokens": usage.output,
		"gen_ai.usage.cache_read.input_tokens": usage.cacheRead,
		"gen_ai.usage.cache_creation.input_tokens": usage.cacheWrite,
		...optional("gen_ai.usage.reasoning.output_tokens", usage.reasoning),
		"capstan.usage.cost": usage.cost.total,
		...(usage.priceUnknown ? { "capstan.usage.price_unknown": true } : {}),
	};
}

/** The failure of a run, and of a model call, that the deadline ended (rule A7). */
const DEADLINE = { type: "deadline", message: "deadline exceeded" } as const;

/** Why a run span is an error: `error.type` is the failing call's error kind, or the outcome. */
function failureOf(
	outcome: RunOutcome,
	calls: readonly ModelCallRecord[],
): { type: string; message?: string } | undefined {
	switch (outcome.type) {
		case "completed":
		case "awaiting_approval": // rule T15: a pause for a person is no failure
			return undefined;
		case "aborted":
			return { type: "aborted", message: outcome.reason };
		case "deadline":
			return DEADLINE;
		case "error": {
			const kind = [...calls].reverse().find((call) => call.errorKind !== undefined)?.errorKind;
			return { type: kind ?? "_OTHER", message: outcome.error };
		}
	}
}

function fail(span: Span, type: string, message?: string): void {
	span.setAttribute("error.type", type);
	span.setStatus(
		message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message },
	);
}

/** capstan provider names → GenAI well-known `gen_ai.provider.name` values; others pass through. */
const PROVIDER_NAMES: Record<string, string> = {
	google: "gcp.gemini",
	vertex: "gcp.vertex_ai",
	mistral: "mistral_ai",
	xai: "x_ai",
	bedrock: "aws.bedrock",
	"azure-openai": "azure.ai.openai",
};

function providerName(provider: string): string {
	return PROVIDER_NAMES[provider] ?? provider;
}

function serverAttributes(baseUrl: string | undefined): Attributes {
	if (!baseUrl) return {};
	try {
		const url = new URL(baseUrl);
		const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
		return { "server.address": url.hostname, "server.port": port };
	} catch {
		return {};
	}
}

/** One request message as GenAI input JSON; `undefined` for a role the conventions have no place for. */
function messageJson(message: Message): string | undefined {
	const converted = toInputMessage(message);
	return converted && JSON.stringify(converted);
}

function optional(key: string, value: string | number | undefined): Attributes {
	return value === undefined ? {} : { [key]: value };
}
