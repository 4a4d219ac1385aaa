/**
 * The run's configuration and host hooks (rule L1): what `agentLoop` and the `Agent` accept.
 */
import type { AppendOnlyContextManager } from "../context/append-only.js";
import type {
	AgentMessage,
	AssistantMessage,
	Message,
	ToolCall,
	ToolResultMessage,
} from "../core/messages.js";
import type {
	CallOptions,
	Context,
	Model,
	StreamFunction,
	StreamOptions,
	ThinkingLevel,
	ToolChoice,
} from "../core/model.js";
import type { StepRunner } from "../core/step-runner.js";
import type { AfterToolCallHook, BeforeToolCallHook } from "../tools/types.js";
import type { ReplyGuardResolver } from "./reply-guard.js";
import type { TelemetryOptions } from "./telemetry.js";

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/**
 * Rule X1: a soft requirement asks for a tool without forcing `tool_choice` up front. `reminder` messages are
 * injected once per `id`; `satisfies` decides whether a call complies (default: same tool name).
 */
export interface SoftToolRequirement {
	/** Marks the requirement as soft, as opposed to a hard {@link ToolChoice}. */
	soft: true;
	/** Names the requirement: its reminder is injected the first time this id is seen. */
	id: string;
	/** The required tool; forced as `tool_choice` after a non-compliant turn. */
	toolName: string;
	/** Messages injected once, the first time `id` is seen. */
	reminder: AgentMessage[];
	/** Whether a call complies with the requirement. Default: it calls `toolName`. */
	satisfies?: (call: ToolCall) => boolean;
}

/** What `beforeModelCall` sees (rule X6): the final provider-bound context. */
export interface BeforeModelCallContext {
	/** The model about to be called. */
	model: Model;
	/** The context the provider will be sent, after every preparation step of rule C1. */
	context: Context;
	/** The options of the call, `signal` and `toolChoice` included. */
	options: StreamOptions;
	/** Every message of the run so far, at agent level. */
	messages: readonly AgentMessage[];
}

/** Configuration of one run (rule L1). Everything but `model` is optional. */
export interface AgentLoopConfig {
	/** The model every model call of the run uses. */
	model: Model;
	/**
	 * The stream function. Default: the provider registry's `stream` (`capstan/providers`), loaded on the first
	 * model call, so importing `capstan` loads no provider and a run with its own `streamFn` never loads one.
	 */
	streamFn?: StreamFunction;
	/** Options passed to every model call (`signal` and `toolChoice` are set by the loop). */
	streamOptions?: CallOptions;
	/** Resolved before every model call, so short-lived keys can be refreshed. */
	getApiKey?: (provider: string) => Awaitable<string | undefined>;
	/** Read before every model call: a level changed mid-run applies to the next call (rule X5). */
	getThinkingLevel?: () => ThinkingLevel | undefined;
	/** rule C1: agent-level pruning per model call; its output is not written back. */
	transformContext?: (messages: AgentMessage[], signal: AbortSignal) => Awaitable<AgentMessage[]>;
	/** rule C1/C2: the only AgentMessage → Message conversion. Default: `defaultConvertToLlm`. */
	convertToLlm?: (messages: AgentMessage[]) => Awaitable<Message[]>;
	/** rule C4: per-model wire normalization. Unchanged messages must keep their identity. */
	normalizeMessages?: (messages: Message[], model: Model) => Message[];
	/** rule C5: add a required `i` (intent) field to every tool's parameters. */
	intentTracing?: boolean;
	/**
	 * Rule X2: append-only context for providers' prefix caches, applied last in the C1 pipeline; the loop
	 * passes its hints as `StreamOptions.cacheHints`. An instance, not a flag, so it can outlive a run: give an
	 * `Agent` one manager and the cache stays warm across prompts. One manager per conversation.
	 */
	contextManager?: AppendOnlyContextManager;
	/** Dequeue steering messages (rule Q2). Called after every turn and at the stop boundary. */
	getSteeringMessages?: () => Awaitable<AgentMessage[]>;
	/** Peek: is a steering message queued? Never dequeues (rule T10, A6). */
	hasSteeringMessages?: () => boolean;
	/** Event-driven wake-up when steering is queued; without it the loop polls every 250 ms (rule T10). */
	onSteeringQueued?: (listener: () => void) => () => void;
	/** Dequeue follow-up messages; only asked when the agent would otherwise stop (rule L9). */
	getFollowUpMessages?: () => Awaitable<AgentMessage[]>;
	/** Dequeue passive notices (rule L10). */
	getAsideMessages?: () => Awaitable<AgentMessage[]>;
	/** Runs when the inner loop ends, before the outer drain (rule L11). */
	onBeforeYield?: () => Awaitable<void>;
	/** Runs after every `turn_end` (rule L8). */
	onTurnEnd?: (turn: { message: AssistantMessage; toolResults: ToolResultMessage[] }) => Awaitable<void>;
	/** rule T4. */
	beforeToolCall?: BeforeToolCallHook;
	/** rule T5. */
	afterToolCall?: AfterToolCallHook;
	/** rule T10: `immediate` (default) lets a queued steer skip/interrupt the rest of a batch. */
	interruptMode?: "immediate" | "wait";
	/** rule A7: epoch ms after which the run stops. */
	deadline?: number;
	/** rule L13: the step runner every model call and tool execution goes through. */
	runStep?: StepRunner;
	/** Injectable clock (rule L13). Default `Date.now`. */
	now?: () => number;
	/**
	 * Rule X3: opt-in run telemetry — per-call records, `agent_end.summary`/`coverage`, and sinks such as
	 * OpenTelemetry spans (`capstan/otel`). Unset: no collector is created and no per-event work is done.
	 */
	telemetry?: TelemetryOptions;
	/** rule X6: a gate before every turn's model call (a reply guard's retries within the turn are not gated). */
	beforeModelCall?: (
		ctx: BeforeModelCallContext,
	) => Awaitable<{ stop: true; reason?: string } | undefined | undefined>;
	/**
	 * Judges every reply before it is committed, with discard-and-retry (`ReplyGuard`). Default (from
	 * `agentLoop` and the `Agent`): the guards built-in providers' models ask for through compat flags — the
	 * Harmony leak guard for `compat.harmonyLeakGuard` (rule X4); pass `harmonyLeakGuard({ onLeak })` from
	 * `capstan/openai` to hear of leaks. A resolver returning `undefined` turns guarding off.
	 */
	replyGuard?: ReplyGuardResolver;
	/** The static tool choice of every call (default: the provider's auto). A soft requirement that conflicts with it stands down (rule X1). */
	toolChoice?: ToolChoice;
	/** rule X1: per call, a hard tool choice (used as is) or a soft requirement; undefined → `toolChoice`. */
	getToolChoice?: () => ToolChoice | SoftToolRequirement | undefined;
}
