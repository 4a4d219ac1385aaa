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
	/**
	 * Options passed to every model call, copied per call. The loop sets `signal` and `toolChoice`, and
	 * replaces `apiKey` with what `getApiKey` returns and `thinkingLevel` with what `getThinkingLevel` returns,
	 * when they return a value. An `Agent` always has a thinking level (`state.thinkingLevel`), which is sent
	 * instead: a `thinkingLevel` given here only sets where it starts when the Agent's own option is unset.
	 */
	streamOptions?: CallOptions;
	/**
	 * Called with `model.provider` before every model call, so short-lived keys can be refreshed. A string
	 * replaces `streamOptions.apiKey`; `undefined` keeps it (and without either, the provider reads its
	 * environment variable). Raced against the abort (rule I4).
	 */
	getApiKey?: (provider: string) => Awaitable<string | undefined>;
	/**
	 * Read before every model call: a level changed mid-run applies to the next call (rule X5). A level
	 * returned here replaces `streamOptions.thinkingLevel`; without one, none is sent unless `streamOptions`
	 * has it, and the model's default applies. The `Agent` sets it from `state.thinkingLevel`.
	 */
	getThinkingLevel?: () => ThinkingLevel | undefined;
	/**
	 * Rule C1: agent-level pruning per model call, given a copy of the transcript (Pending included) and the
	 * run's signal; what it returns is used for that call only and not written back. Raced against the abort.
	 */
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
	/**
	 * Dequeue steering messages (rule Q2). Called after every turn and at the stop boundary, never once the run
	 * was aborted or its deadline passed (rule A6); what it returns is injected before the next model call.
	 */
	getSteeringMessages?: () => Awaitable<AgentMessage[]>;
	/**
	 * Peek: is a steering message queued? Never dequeues (rule T10, A6). Rule T10's interruption needs it:
	 * without it the loop cannot look at the queue while a batch runs, so steering never cuts a batch short
	 * (`getSteeringMessages` still takes it after the turn).
	 */
	hasSteeringMessages?: () => boolean;
	/**
	 * Event-driven wake-up when steering is queued: called with a listener, returns the function that removes
	 * it. Without it the loop polls `hasSteeringMessages` every 250 ms while tools run (rule T10).
	 */
	onSteeringQueued?: (listener: () => void) => () => void;
	/** Dequeue follow-up messages; only asked when the agent would otherwise stop (rule L9). */
	getFollowUpMessages?: () => Awaitable<AgentMessage[]>;
	/**
	 * Dequeue passive notices (rule L10): asked at a turn boundary only when the run goes on anyway, and when it
	 * would stop, before follow-ups.
	 */
	getAsideMessages?: () => Awaitable<AgentMessage[]>;
	/** Runs when the inner loop ends, before the outer drain (rule L11). */
	onBeforeYield?: () => Awaitable<void>;
	/**
	 * Runs after each turn's `turn_end` and is awaited, raced against the abort (rule L8, I4), before the loop
	 * goes on. Not called for the `turn_end` that closes a run after a failure (rule L12).
	 */
	onTurnEnd?: (turn: { message: AssistantMessage; toolResults: ToolResultMessage[] }) => Awaitable<void>;
	/**
	 * Rule T4: runs for each call about to execute, in the call's scheduling slot right before `execute`, with
	 * the validated arguments and the call's abort signal. Return `{ block: true, reason? }` to stop the call
	 * (an error result the model reads, status `blocked`), `{ args }` to replace its arguments (validated again,
	 * then written into the transcript and the events), or `undefined` to let it run. A throw gives the call an
	 * error result with the hook's message. Not called for calls that never reach execution: unknown,
	 * invalid, skipped, parked for approval (rule T14) or denied.
	 */
	beforeToolCall?: BeforeToolCallHook;
	/**
	 * Rule T5: runs after `execute` returned or threw, with the result as the model would see it (rule T8, T9).
	 * Return a patch of `content`, `details` and/or `isError` (the patched result is coerced again), or
	 * `undefined` to keep the result. A throw keeps the tool's output, adds a note that the hook failed and
	 * marks the result an error. Not called for a call an abort or a steer settled first.
	 */
	afterToolCall?: AfterToolCallHook;
	/**
	 * Rule T10: `immediate` (default) lets a queued steer skip the calls of a batch not started yet and abort
	 * its running `interruptible` tools; `wait` lets the batch finish. Needs `hasSteeringMessages` (the `Agent`
	 * provides it).
	 */
	interruptMode?: "immediate" | "wait";
	/**
	 * Rule A7: the time, in epoch ms by `now`, after which the run stops with outcome `deadline`: a request
	 * under way is aborted, tools see their signal fire, no follow-up is taken. An absolute time, not a budget:
	 * an `Agent` passes the same value to every run, so once it has passed, each later run ends at once.
	 */
	deadline?: number;
	/** rule L13: the step runner every model call and tool execution goes through. */
	runStep?: StepRunner;
	/** Injectable clock (rule L13): message timestamps and the deadline check (rule A7). Default `Date.now`. */
	now?: () => number;
	/**
	 * Rule X3: opt-in run telemetry — per-call records, `agent_end.summary`/`coverage`, and sinks such as
	 * OpenTelemetry spans (`capstan/otel`). Unset: no collector is created and no per-event work is done.
	 */
	telemetry?: TelemetryOptions;
	/**
	 * Rule X6: a gate before every turn's model call, seeing the provider-bound request. Return
	 * `{ stop: true, reason? }` to end the run before the call (outcome `completed` with `stoppedBy: reason`,
	 * no turn left open), or `undefined` to let the call go. Raced against the abort. A reply guard's retries
	 * within the turn are not gated.
	 */
	beforeModelCall?: (ctx: BeforeModelCallContext) => Awaitable<{ stop: true; reason?: string } | undefined>;
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
