/**
 * The message model (section M of docs/behaviour.md). Every type here is plain JSON: a transcript saved with `JSON.stringify` and
 * loaded back replays identically (rule M6). No classes, no symbols, no functions.
 */

/** Any JSON value; used for opaque provider data that is replayed unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Visible text. `signature` is opaque provider data replayed byte for byte to the same provider. */
export interface TextContent {
	type: "text";
	text: string;
	signature?: string;
	/** Provider citations kept as metadata; never interpreted by the loop. */
	citations?: JsonValue[];
}

/** Model reasoning. `signature` must be replayed byte for byte to the same provider and model (rule M3). */
export interface ThinkingContent {
	type: "thinking";
	thinking: string;
	signature?: string;
}

/** Reasoning the provider encrypted; `data` is replayed unchanged to the same provider. */
export interface RedactedThinkingContent {
	type: "redactedThinking";
	data: string;
}

/** An image, base64-encoded. */
export interface ImageContent {
	type: "image";
	data: string;
	mimeType: string;
}

/** A tool call requested by the model. While streaming, `arguments` holds the best-effort partial value. */
export interface ToolCall {
	type: "toolCall";
	id: string;
	name: string;
	arguments: Record<string, unknown>;
	/** Opaque provider data attached to the call (e.g. a Gemini thought signature), replayed unchanged. */
	signature?: string;
	/**
	 * Set when the final streamed arguments were not a valid JSON object (rule E4): names the JSON problem and
	 * its position. `arguments` is then `{}`, and the call gets an error result instead of running.
	 */
	argumentsError?: string;
	/** The raw argument text, present only when it did not parse (`argumentsError` is set). */
	argumentsText?: string;
}

/**
 * Provider-side content the loop does not interpret: server-tool calls and results, encrypted reasoning
 * items. Kept in order, replayed unchanged to the same `api`, dropped when the conversation moves to another.
 */
export interface ProviderBlock {
	type: "providerBlock";
	api: string;
	data: JsonValue;
}

/** Content a user or a tool result may carry. */
export type UserContent = TextContent | ImageContent;

/** Content an assistant message may carry. */
export type AssistantContent =
	| TextContent
	| ThinkingContent
	| RedactedThinkingContent
	| ToolCall
	| ProviderBlock;

/** rule M4: the coarse reason a reply ended. */
export type StopReason = "stop" | "toolUse" | "length" | "error" | "aborted";

/** The finer cause behind a stop reason (rule M4). */
export type StopDetailsType =
	| "pause_turn"
	| "refusal"
	| "content_filter"
	| "stream_interrupted_after_content"
	| "unknown_stop_reason"
	| (string & {});

/** rule M4: `raw` keeps the provider's own value for anything unmapped or rewritten. */
export interface StopDetails {
	type: StopDetailsType;
	raw?: string;
	explanation?: string;
	/** The custom stop sequence that ended the reply (`type: "stop_sequence"`), when the provider names it. */
	stopSequence?: string;
}

/** Classified provider failure, carried as data on the message. */
export type ErrorKind =
	| "auth"
	| "rate_limit"
	| "overloaded"
	| "context_overflow"
	| "invalid_request"
	| "timeout"
	| "network"
	| "server"
	| "malformed_response"
	| "aborted"
	| "internal";

/** Token prices in the same currency unit as the model's price table (per million tokens). */
export interface UsageCost {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	total: number;
	/** Set when the call's usage never arrived ({@link Usage.unknown}): the zeros are placeholders, not a price. */
	unknown?: boolean;
}

/** rule M5: `input` excludes cached tokens on every provider. */
export interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	reasoning?: number;
	cost: UsageCost;
	/** Set when the model has no known price table; cost is then zero. */
	priceUnknown?: boolean;
	/**
	 * Set when the provider accepted the call but never reported its usage (a stream cut before the usage
	 * chunk, a server that sends none): the counters are placeholder zeros and `cost.unknown` is set too — the
	 * call was probably billed, it was not free. On a run total it means "at least": some call is unknown.
	 * Absent when usage was reported, and on calls nothing was billed for (an HTTP error, no connection).
	 */
	unknown?: boolean;
}

/** A user turn. */
export interface UserMessage {
	role: "user";
	content: string | UserContent[];
	timestamp: number;
}

/** A model reply. Failures are data: `stopReason` `error`/`aborted` with `errorMessage` (rule E3). */
export interface AssistantMessage {
	role: "assistant";
	content: AssistantContent[];
	api: string;
	provider: string;
	model: string;
	usage: Usage;
	stopReason: StopReason;
	stopDetails?: StopDetails;
	errorMessage?: string;
	errorKind?: ErrorKind;
	timestamp: number;
	responseId?: string;
}

/** The result of one tool call. `details` is for the host and UI; it never goes to the model (rule M2). */
export interface ToolResultMessage<TDetails = unknown> {
	role: "toolResult";
	toolCallId: string;
	toolName: string;
	content: UserContent[];
	details?: TDetails;
	isError: boolean;
	timestamp: number;
}

/** The provider wire format: exactly three roles (rule M1). */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * Host-defined message types, keyed by any name. Extend by declaration merging:
 *
 * ```ts
 * declare module "capstan" {
 *   interface CustomAgentMessages { notice: { role: "notice"; text: string; timestamp: number } }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: the registry is empty until a host merges into it.
export interface CustomAgentMessages {}

/** What the loop carries everywhere: wire messages plus host-defined custom messages (rule M1). */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** A zero usage record. Returns a fresh object each call. */
export function emptyUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

/** True for the three wire roles. */
export function isWireMessage(message: AgentMessage): message is Message {
	const role = (message as { role?: unknown }).role;
	return role === "user" || role === "assistant" || role === "toolResult";
}

/** The tool calls of an assistant message, in message order. */
export function toolCallsOf(message: AssistantMessage): ToolCall[] {
	const calls: ToolCall[] = [];
	// Indexed, not `for…of`: a third of the bytecode, for a function that runs on every reply, often cold.
	const { content } = message;
	for (let i = 0; i < content.length; i++) {
		const block = content[i] as AssistantContent;
		if (block.type === "toolCall") calls.push(block);
	}
	return calls;
}

/** A user message with the given text (timestamp from the injected clock, default `Date.now`). */
export function userMessage(content: string | UserContent[], timestamp: number = Date.now()): UserMessage {
	return { role: "user", content, timestamp };
}
