/**
 * The Anthropic Messages wire shapes capstan reads and writes — only those, written from the API reference
 * and the vendor SDK's types. They live here rather than being imported from `@anthropic-ai/sdk` because the
 * SDK is a dev dependency: a published `.d.ts` naming it would not compile for a consumer without it.
 * `test/providers/anthropic/wire.test.ts` keeps them honest against the SDK: every request we can build is a
 * valid SDK request, and every stream event the SDK describes is one this decoder accepts.
 */

/** Why the model stopped (`stop_reason`). */
export type StopReason =
	| "end_turn"
	| "max_tokens"
	| "stop_sequence"
	| "tool_use"
	| "pause_turn"
	| "refusal"
	| "model_context_window_exceeded";

/** Token counts in `message_start` and `message_delta`; servers omit or null any of them. */
export interface Usage {
	input_tokens?: number | null;
	output_tokens?: number | null;
	cache_read_input_tokens?: number | null;
	cache_creation_input_tokens?: number | null;
	output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** A content block or delta as it arrives; the decoder reads its fields by `type`, keeping unknown ones. */
export interface WireBlock {
	type: string;
}

/** `message_start`: the response id, first usage, and any content delivered whole. */
export interface RawMessageStartEvent {
	type: "message_start";
	message: { id: string; usage: Usage; stop_reason: StopReason | null; content: WireBlock[] };
}

/** `content_block_start`: a block opens at `index`. */
export interface RawContentBlockStartEvent {
	type: "content_block_start";
	index: number;
	content_block: WireBlock;
}

/** `content_block_delta`: a fragment of the open block at `index`. */
export interface RawContentBlockDeltaEvent {
	type: "content_block_delta";
	index: number;
	delta: WireBlock;
}

/** `content_block_stop`: the block at `index` is complete. */
export interface RawContentBlockStopEvent {
	type: "content_block_stop";
	index: number;
}

/** `message_delta`: the stop reason and updated usage. */
export interface RawMessageDeltaEvent {
	type: "message_delta";
	delta: {
		stop_reason: StopReason | null;
		/** The custom stop sequence that matched, when `stop_reason` is `stop_sequence`. */
		stop_sequence?: string | null;
		/** The code-execution container the reply ran in; the next request names it to reuse it. */
		container?: { id: string; expires_at?: string } | null;
	};
	usage: Usage;
}

/** `message_stop`: the response is complete. */
export interface RawMessageStopEvent {
	type: "message_stop";
}

/** Every event of a Messages stream except `ping` and `error`, which the decoder types on its own. */
export type RawMessageStreamEvent =
	| RawMessageStartEvent
	| RawContentBlockStartEvent
	| RawContentBlockDeltaEvent
	| RawContentBlockStopEvent
	| RawMessageDeltaEvent
	| RawMessageStopEvent;

/** A prompt-cache breakpoint. */
export interface CacheControlEphemeral {
	type: "ephemeral";
	ttl?: "5m" | "1h";
}

/** A text block; `citations` are replayed exactly as the API returned them. */
export interface TextBlockParam {
	type: "text";
	text: string;
	cache_control?: CacheControlEphemeral | null;
	citations?: Array<Record<string, unknown>> | null;
}

/** An inline base64 image. */
export interface ImageBlockParam {
	type: "image";
	source: {
		type: "base64";
		media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
		data: string;
	};
	cache_control?: CacheControlEphemeral | null;
}

/** Signed thinking, replayed to the model that produced it. */
export interface ThinkingBlockParam {
	type: "thinking";
	thinking: string;
	signature: string;
}

/** Encrypted thinking, replayed to the model that produced it. */
export interface RedactedThinkingBlockParam {
	type: "redacted_thinking";
	data: string;
}

/** Who made a tool call: the model directly, or code running in the server's code-execution tool. */
export type ToolCaller =
	| { type: "direct" }
	| { type: "code_execution_20250825" | "code_execution_20260120"; tool_id: string };

/** A tool call the assistant made. */
export interface ToolUseBlockParam {
	type: "tool_use";
	id: string;
	name: string;
	input: unknown;
	cache_control?: CacheControlEphemeral | null;
	caller?: ToolCaller;
}

/** The result of one tool call, in a user message. */
export interface ToolResultBlockParam {
	type: "tool_result";
	tool_use_id: string;
	content?: string | Array<TextBlockParam | ImageBlockParam>;
	is_error?: boolean;
	cache_control?: CacheControlEphemeral | null;
}

/** The blocks capstan sends (server-tool blocks are replayed as the API returned them, cast to this). */
export type ContentBlockParam =
	| TextBlockParam
	| ImageBlockParam
	| ThinkingBlockParam
	| RedactedThinkingBlockParam
	| ToolUseBlockParam
	| ToolResultBlockParam;

/** One message of the conversation. */
export interface MessageParam {
	role: "user" | "assistant";
	content: string | ContentBlockParam[];
}

/** A client tool. */
export interface Tool {
	name: string;
	description?: string;
	input_schema: { type: "object"; properties?: unknown; required?: string[] | null; [key: string]: unknown };
	cache_control?: CacheControlEphemeral | null;
}

/** `tool_choice`. */
export type ToolChoice =
	| { type: "auto" }
	| { type: "any" }
	| { type: "tool"; name: string }
	| { type: "none" };

/** `thinking`: a manual budget, adaptive (the model decides), or off. */
export type ThinkingConfigParam =
	| { type: "enabled"; budget_tokens: number }
	| { type: "adaptive" }
	| { type: "disabled" };

/** `output_config`: the effort of adaptive-thinking models. */
export interface OutputConfig {
	effort?: "low" | "medium" | "high" | "xhigh" | "max" | null;
}

/** The body of a streaming `POST /v1/messages`, as far as capstan fills it. */
export interface MessageCreateParamsStreaming {
	model: string;
	max_tokens: number;
	stream: true;
	system?: string | TextBlockParam[];
	tools?: Tool[];
	tool_choice?: ToolChoice;
	thinking?: ThinkingConfigParam;
	output_config?: OutputConfig;
	/** A code-execution container to reuse (its id, from an earlier reply's `container`). */
	container?: string;
	/** Automatic caching: the server puts this breakpoint on the last cacheable block (one of the four). */
	cache_control?: CacheControlEphemeral | null;
	messages: MessageParam[];
}
