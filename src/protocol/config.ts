/**
 * The run's configuration and host hooks (SPEC L1): what `agentLoop` and the `Agent` accept.
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
 * SPEC X1: a soft requirement asks for a tool without forcing `tool_choice` up front. `reminder` messages are
 * injected once per `id`; `satisfies` decides whether a call complies (default: same tool name).
 */
export interface SoftToolRequirement {
	soft: true;
	id: string;
	toolName: string;
	reminder: AgentMessage[];
	satisfies?: (call: ToolCall) => boolean;
}

/** What `beforeModelCall` sees (SPEC X6): the final provider-bound context. */
export interface BeforeModelCallContext {
	model: Model;
	context: Context;
	options: StreamOptions;
	/** Every message of the run so far, at agent level. */
	messages: readonly AgentMessage[];
}

/** Configuration of one run (SPEC L1). Everything but `model` is optional. */
export interface AgentLoopConfig {
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
	/** Read before every model call: a level changed mid-run applies to the next call (SPEC X5). */
	getThinkingLevel?: () => ThinkingLevel | undefined;
	/** SPEC C1: agent-level pruning per model call; its output is not written back. */
	transformContext?: (messages: AgentMessage[], signal: AbortSignal) => Awaitable<AgentMessage[]>;
	/** SPEC C1/C2: the only AgentMessage → Message conversion. Default: `defaultConvertToLlm`. */
	convertToLlm?: (messages: AgentMessage[]) => Awaitable<Message[]>;
	/** SPEC C4: per-model wire normalization. Unchanged messages must keep their identity. */
	normalizeMessages?: (messages: Message[], model: Model) => Message[];
	/** SPEC C5: add a required `i` (intent) field to every tool's parameters. */
	intentTracing?: boolean;
	/**
	 * SPEC X2: append-only context for providers' prefix caches, applied last in the C1 pipeline; the loop
	 * passes its hints as `StreamOptions.cacheHints`. An instance, not a flag, so it can outlive a run: give an
	 * `Agent` one manager and the cache stays warm across prompts. One manager per conversation.
	 */
	contextManager?: AppendOnlyContextManager;
	/** Dequeue steering messages (SPEC Q2). Called after every turn and at the stop boundary. */
	getSteeringMessages?: () => Awaitable<AgentMessage[]>;
	/** Peek: is a steering message queued? Never dequeues (SPEC T10, A6). */
	hasSteeringMessages?: () => boolean;
	/** Event-driven wake-up when steering is queued; without it the loop polls every 250 ms (SPEC T10). */
	onSteeringQueued?: (listener: () => void) => () => void;
	/** Dequeue follow-up messages; only asked when the agent would otherwise stop (SPEC L9). */
	getFollowUpMessages?: () => Awaitable<AgentMessage[]>;
	/** Dequeue passive notices (SPEC L10). */
	getAsideMessages?: () => Awaitable<AgentMessage[]>;
	/** Runs when the inner loop ends, before the outer drain (SPEC L11). */
	onBeforeYield?: () => Awaitable<void>;
	/** Runs after every `turn_end` (SPEC L8). */
	onTurnEnd?: (turn: { message: AssistantMessage; toolResults: ToolResultMessage[] }) => Awaitable<void>;
	/** SPEC T4. */
	beforeToolCall?: BeforeToolCallHook;
	/** SPEC T5. */
	afterToolCall?: AfterToolCallHook;
	/** SPEC T10: `immediate` (default) lets a queued steer skip/interrupt the rest of a batch. */
	interruptMode?: "immediate" | "wait";
	/** SPEC A7: epoch ms after which the run stops. */
	deadline?: number;
	/** SPEC L13: the step runner every model call and tool execution goes through. */
	runStep?: StepRunner;
	/** Injectable clock (SPEC L13). Default `Date.now`. */
	now?: () => number;
	/**
	 * SPEC X3: opt-in run telemetry — per-call records, `agent_end.summary`/`coverage`, and sinks such as
	 * OpenTelemetry spans (`capstan/otel`). Unset: no collector is created and no per-event work is done.
	 */
	telemetry?: TelemetryOptions;
	/** SPEC X6: a gate before every model call. */
	beforeModelCall?: (
		ctx: BeforeModelCallContext,
	) => Awaitable<{ stop: true; reason?: string } | undefined | undefined>;
	/**
	 * Judges every reply before it is committed, with discard-and-retry (`ReplyGuard`). Default (from
	 * `agentLoop` and the `Agent`): the guards built-in providers' models ask for through compat flags — the
	 * Harmony leak guard for `compat.harmonyLeakGuard` (SPEC X4); pass `harmonyLeakGuard({ onLeak })` from
	 * `capstan/openai` to hear of leaks. A resolver returning `undefined` turns guarding off.
	 */
	replyGuard?: ReplyGuardResolver;
	/** The static tool choice of every call (default: the provider's auto). A soft requirement that conflicts with it stands down (SPEC X1). */
	toolChoice?: ToolChoice;
	/** SPEC X1: per call, a hard tool choice (used as is) or a soft requirement; undefined → `toolChoice`. */
	getToolChoice?: () => ToolChoice | SoftToolRequirement | undefined;
}
