import type { AssistantMessageEventStream } from "./events.js";
import type { Message } from "./messages.js";

/** Wire APIs capstan speaks. Any other string names a host-registered API. */
export type KnownApi =
	| "anthropic-messages"
	| "openai-completions"
	| "openai-responses"
	| "google-generative-ai";

/** Per-million-token prices. All zero means "price unknown" unless `known` says otherwise. */
export interface ModelCost {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

/**
 * Wire quirks of a model or server, as flags instead of `if (provider === ...)` branches.
 * Providers read the flags they understand; unknown keys are ignored.
 */
export interface ModelCompat {
	[flag: string]: unknown;
}

/** A model is plain data: where to send requests and what the model supports. */
export interface Model {
	id: string;
	name?: string;
	api: KnownApi | (string & {});
	provider: string;
	baseUrl?: string;
	reasoning: boolean;
	input: ("text" | "image")[];
	contextWindow: number;
	maxTokens: number;
	cost: ModelCost;
	/** Extra HTTP headers sent with every request to this model. */
	headers?: Record<string, string>;
	compat?: ModelCompat;
}

/** rule X5 reasoning levels; providers clamp and map them to effort or budget. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** A JSON Schema object, as plain data. */
export type JsonSchema = Record<string, unknown>;

/** A tool as the provider sees it. */
export interface ToolSpec {
	name: string;
	description: string;
	parameters: JsonSchema;
}

/** Which tool the model must call: free choice, none, any tool, or one named tool. */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; name: string };

/** The provider-bound context of one model call: wire messages only (rule M1). */
export interface Context {
	systemPrompt?: string;
	messages: Message[];
	tools?: ToolSpec[];
	/**
	 * Rule X2: a fixed prompt-cache breakpoint after this many leading messages, for providers that place
	 * breakpoints themselves (Anthropic puts one on the last block of message `cacheAnchor − 1`). Set by
	 * `AppendOnlyContextManager`, which keeps it in place across requests until the history before it is
	 * rewritten, so the bytes up to it (marker included) stay the same; ignored when not within `1…messages.length`.
	 */
	cacheAnchor?: number;
}

/** Details of one provider retry, reported through `StreamOptions.onRetry` (rule A8). */
export interface RetryInfo {
	attempt: number;
	delayMs: number;
	errorKind: string;
	errorMessage: string;
}

/**
 * Rule X2: what the append-only context manager knows about one request, for providers that place prompt-cache
 * breakpoints themselves (Anthropic). Computed against the previous request of the same manager.
 */
export interface CacheHints {
	/** The system prompt or tool list differs from the previous request's, so no cached prefix survives. */
	stablePrefixChanged: boolean;
	/**
	 * How many leading `context.messages` are the previous request's own (same objects, same bytes): the
	 * previous request's cache entry ends at the last of them when it is the whole previous list.
	 */
	unchangedMessages: number;
}

/** Options for one model call. Providers ignore what they do not support. */
export interface StreamOptions {
	signal?: AbortSignal;
	apiKey?: string;
	temperature?: number;
	maxTokens?: number;
	toolChoice?: ToolChoice;
	thinkingLevel?: ThinkingLevel;
	/** Stable id of the conversation, used for provider prompt caches (e.g. OpenAI `prompt_cache_key`). */
	sessionId?: string;
	headers?: Record<string, string>;
	onRetry?: (info: RetryInfo) => void;
	/**
	 * Rule X2: set by the loop when `AgentLoopConfig.contextManager` is in use. Its presence tells a provider
	 * that the history is append-only: Anthropic then lets the server place the moving tail breakpoint
	 * (top-level `cache_control`) so no marker moves inside the body. Others ignore it.
	 */
	cacheHints?: CacheHints;
	/** Provider-specific extras. */
	[option: string]: unknown;
}

/**
 * The options a host sets for every call of a run: everything but `signal` and `toolChoice`, which the loop
 * owns. (`Omit` cannot be used here: on a type with an index signature it drops every named key.)
 */
export type CallOptions = {
	[K in keyof StreamOptions as string extends K
		? never
		: K extends "signal" | "toolChoice"
			? never
			: K]?: StreamOptions[K];
} & { [option: string]: unknown };

/**
 * Rule E3: a stream function never throws and never rejects after it is called; every failure ends the
 * stream with an `error` event whose message has `stopReason` `error` or `aborted`.
 *
 * `context` is valid for the call: the loop hands over its own incrementally kept message log (no per-call
 * copy), which grows on later calls. A stream function that keeps the messages beyond the call copies them.
 */
export type StreamFunction = (
	model: Model,
	context: Context,
	options?: StreamOptions,
) => AssistantMessageEventStream;
