/**
 * The message model (section M of docs/behaviour.md). Every type here is plain JSON: a transcript saved with `JSON.stringify` and
 * loaded back replays identically (rule M6). No classes, no symbols, no functions.
 */

/** Any JSON value; used for opaque provider data that is replayed unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Visible text. `signature` is opaque provider data replayed byte for byte to the same provider. */
export interface TextContent {
	/** Block discriminator. */
	type: "text";
	/** The text the model produced. */
	text: string;
	/** Opaque provider data, replayed byte for byte to the provider that produced it (rule M3). */
	signature?: string;
	/** Provider citations kept as metadata; never interpreted by the loop. */
	citations?: JsonValue[];
}

/** Model reasoning. `signature` must be replayed byte for byte to the same provider and model (rule M3). */
export interface ThinkingContent {
	/** Block discriminator. */
	type: "thinking";
	/** The reasoning text the provider exposed. */
	thinking: string;
	/** Opaque provider data, replayed byte for byte to the same provider and model (rule M3). */
	signature?: string;
}

/** Reasoning the provider encrypted; `data` is replayed unchanged to the same provider. */
export interface RedactedThinkingContent {
	/** Block discriminator. */
	type: "redactedThinking";
	/** The encrypted reasoning, opaque to capstan. */
	data: string;
}

/** An image, base64-encoded. */
export interface ImageContent {
	/** Block discriminator. */
	type: "image";
	/** The image bytes, base64-encoded (no `data:` URL prefix). */
	data: string;
	/** The image's media type, such as `image/png`. */
	mimeType: string;
}

/** A tool call requested by the model. While streaming, `arguments` holds the best-effort partial value. */
export interface ToolCall {
	/** Block discriminator. */
	type: "toolCall";
	/** The call's id; the answering {@link ToolResultMessage} names it as `toolCallId` (rule I1). */
	id: string;
	/** The name of the tool the model asked for. */
	name: string;
	/** The parsed arguments object; `{}` when they were empty or did not parse (rule E4). */
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
	/** Block discriminator. */
	type: "providerBlock";
	/** The API that produced the block; it is sent only back to that API (rule M3). */
	api: string;
	/** The provider's own JSON for the block, replayed unchanged. */
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
	/** The finer cause: `pause_turn`, `refusal`, `content_filter` and so on. */
	type: StopDetailsType;
	/** The provider's own stop value, as it sent it. */
	raw?: string;
	/** A human-readable account of the stop, when there is one (a refusal's explanation, for one). */
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

/**
 * What a call cost, in the currency unit of the model's price table (whose prices are per million tokens):
 * each count times its price (rule M5).
 */
export interface UsageCost {
	/** Cost of the uncached input tokens. */
	input: number;
	/** Cost of the output tokens (reasoning included). */
	output: number;
	/** Cost of the input tokens read from the prompt cache. */
	cacheRead: number;
	/** Cost of the input tokens written to the prompt cache. */
	cacheWrite: number;
	/** The sum of the four costs. */
	total: number;
	/** Set when the call's usage never arrived ({@link Usage.unknown}): the zeros are placeholders, not a price. */
	unknown?: boolean;
}

/** rule M5: `input` excludes cached tokens on every provider. */
export interface Usage {
	/** Input tokens not read from or written to the cache. */
	input: number;
	/** Output tokens, reasoning tokens included. */
	output: number;
	/** Input tokens read from the prompt cache. */
	cacheRead: number;
	/** Input tokens written to the prompt cache. */
	cacheWrite: number;
	/** `input + output + cacheRead + cacheWrite`. */
	totalTokens: number;
	/** Reasoning tokens, when the provider reports them; informational, already counted in `output`. */
	reasoning?: number;
	/** The price of these tokens under the model's price table. */
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
	/** Message discriminator. */
	role: "user";
	/** Plain text, or text and image blocks. */
	content: string | UserContent[];
	/** When the message was made, in milliseconds since the Unix epoch. */
	timestamp: number;
}

/** A model reply. Failures are data: `stopReason` `error`/`aborted` with `errorMessage` (rule E3). */
export interface AssistantMessage {
	/** Message discriminator. */
	role: "assistant";
	/** The reply's blocks in the order the model produced them. */
	content: AssistantContent[];
	/** The wire API that produced the reply, such as `anthropic-messages`. */
	api: string;
	/** The provider that served it. */
	provider: string;
	/** The id of the model that produced it. */
	model: string;
	/** Tokens and cost of the call (rule M5). */
	usage: Usage;
	/** Why the reply ended (rule M4). */
	stopReason: StopReason;
	/** The finer cause behind `stopReason`, when there is one (rule M4). */
	stopDetails?: StopDetails;
	/** What went wrong, set when `stopReason` is `error` or `aborted` (rule E3); never holds the API key. */
	errorMessage?: string;
	/** The failure's class, set with `errorMessage` on a provider failure. */
	errorKind?: ErrorKind;
	/** When the reply was made, in milliseconds since the Unix epoch. */
	timestamp: number;
	/** The provider's id for the response, when it sends one. */
	responseId?: string;
}

/** The result of one tool call. `details` is for the host and UI; it never goes to the model (rule M2). */
export interface ToolResultMessage<TDetails = unknown> {
	/** Message discriminator. */
	role: "toolResult";
	/** The `id` of the {@link ToolCall} this answers (rule I1). */
	toolCallId: string;
	/** The name of the tool that was called. */
	toolName: string;
	/** What the model sees: text and image blocks. */
	content: UserContent[];
	/** Structured data for the host and its UI; never sent to a provider (rule M2). */
	details?: TDetails;
	/** True when the result reports a failure: the tool said so or threw, or the call was refused or not run. */
	isError: boolean;
	/** When the result was made, in milliseconds since the Unix epoch. */
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
