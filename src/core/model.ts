import type { AssistantMessageEventStream } from "./events.js";
import type { ErrorKind, Message } from "./messages.js";

/** Wire APIs capstan speaks. Any other string names a host-registered API. */
export type KnownApi =
	| "anthropic-messages"
	| "openai-completions"
	| "openai-responses"
	| "google-generative-ai";

/** Per-million-token prices. All zero means "price unknown": zero cost and `priceUnknown` (rule M5). */
export interface ModelCost {
	/** Price per million uncached input tokens. */
	input: number;
	/** Price per million output tokens. */
	output: number;
	/** Price per million input tokens read from the prompt cache. */
	cacheRead: number;
	/** Price per million input tokens written to the prompt cache. */
	cacheWrite: number;
}

/**
 * Wire quirks of a model or server, as flags instead of `if (provider === ...)` branches.
 * Providers read the flags they understand; unknown keys are ignored.
 */
export interface ModelCompat {
	/** A flag by name; each provider documents the flags it reads. */
	[flag: string]: unknown;
}

/** A model is plain data: where to send requests and what the model supports. */
export interface Model {
	/** The model id sent to the provider, such as `claude-sonnet-4-5`. */
	id: string;
	/** A display name. */
	name?: string;
	/** The wire API that serves the model; selects the registered stream function. */
	api: KnownApi | (string & {});
	/** The provider's name, recorded on replies and telemetry. */
	provider: string;
	/** Where requests go; the API's default base URL when unset. */
	baseUrl?: string;
	/** Whether the model reasons; providers send a thinking level only to models that do (rule X5). */
	reasoning: boolean;
	/** The input kinds the model accepts; an image sent to a text-only model is replaced by a note. */
	input: ("text" | "image")[];
	/** The context window in tokens; informational, the loop does not trim to it. */
	contextWindow: number;
	/**
	 * The model's output ceiling in tokens. Only Anthropic, whose API requires a cap, sends it, and only when
	 * neither `StreamOptions.maxTokens` nor `compat.defaultMaxTokens` is set; the other APIs then send no cap.
	 */
	maxTokens: number;
	/** The price table usage is costed with (rule M5). */
	cost: ModelCost;
	/** Extra HTTP headers sent with every request to this model. */
	headers?: Record<string, string>;
	/** Wire quirks the model's provider reads. */
	compat?: ModelCompat;
}

/** rule X5 reasoning levels; providers clamp and map them to effort or budget. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** Every thinking level, lowest first (rule X5). */
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Whether a value is a thinking level. */
export function isThinkingLevel(value: unknown): value is ThinkingLevel {
	return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/**
 * `level` when it is a thinking level; else a `TypeError` saying `where` (rule X5): a level no provider maps
 * would reach the wire as a budget or an effort every reasoning API rejects, failing every call.
 */
export function checkedThinkingLevel(level: unknown, where: string): ThinkingLevel {
	if (isThinkingLevel(level)) return level;
	throw new TypeError(
		`${where}: thinking level ${JSON.stringify(level) ?? String(level)} is not one of ${THINKING_LEVELS.join(", ")}`,
	);
}

/** A JSON Schema object, as plain data. */
export type JsonSchema = Record<string, unknown>;

/** A tool as the provider sees it. */
export interface ToolSpec {
	/** The name the model calls the tool by. */
	name: string;
	/** What the tool does, for the model. */
	description: string;
	/** The JSON Schema of the tool's arguments object. */
	parameters: JsonSchema;
}

/** Which tool the model must call: free choice, none, any tool, or one named tool. */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; name: string };

/** The provider-bound context of one model call: wire messages only (rule M1). */
export interface Context {
	/** The system prompt, sent ahead of the messages. */
	systemPrompt?: string;
	/** The conversation, oldest first. */
	messages: Message[];
	/** The tools the model may call. */
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
	/** The number of the attempt that failed, from 1. */
	attempt: number;
	/** ms to wait before the next attempt. */
	delayMs: number;
	/** The failed attempt's `ErrorKind`. */
	errorKind: ErrorKind;
	/** The failed attempt's error text, with secrets masked. */
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
	/**
	 * Aborts the call; the stream then ends with `stopReason: "aborted"` and the abort reason as `errorMessage`
	 * (rule A2, A5). In a run the loop sets it.
	 */
	signal?: AbortSignal;
	/**
	 * The key to use. When unset, the provider reads the variable named by `model.compat.apiKeyEnv`, then its
	 * usual one (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, …). It never appears in an error or event (rule E3).
	 */
	apiKey?: string;
	/** Sampling temperature; providers leave it out for models that reject it. */
	temperature?: number;
	/**
	 * Cap on output tokens. Unset: the model's `compat.defaultMaxTokens` (a whole number, a cap for every
	 * request to that model), else Anthropic sends `Model.maxTokens` (its API requires a cap) and OpenAI, Gemini
	 * and AI SDK models send none, so the server's default applies: the model's whole output, within what fits
	 * the context window.
	 */
	maxTokens?: number;
	/** Which tool the model must call. Unset: the provider's default, `auto`. In a run the loop sets it. */
	toolChoice?: ToolChoice;
	/**
	 * How much the model should reason (rule X5), clamped to what the model supports; sent only to models with
	 * `reasoning: true`. Unset: no reasoning setting is sent, so the model's own default applies; `"off"`
	 * turns reasoning off.
	 */
	thinkingLevel?: ThinkingLevel;
	/** Stable id of the conversation, used for provider prompt caches (e.g. OpenAI `prompt_cache_key`). */
	sessionId?: string;
	/** Extra HTTP headers for this call, layered over the model's `headers`. */
	headers?: Record<string, string>;
	/** Called before each provider retry (rule A8); a callback that throws does not stop the retry. */
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
