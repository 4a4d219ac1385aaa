/**
 * The Chat Completions wire shapes capstan sends — only those, written from the API reference and the
 * `openai` package's types. They live here rather than being imported from `openai` because that package is
 * a dev dependency: a published `.d.ts` naming it would not compile for a consumer without it.
 * `test/providers/openai-completions/wire.test.ts` holds them to the SDK's: every request we can build is a
 * valid SDK request, apart from the fields compatible servers add (see `request.ts`).
 */

/** A text part. */
export interface ChatCompletionContentPartText {
	type: "text";
	text: string;
}

/** An image part; capstan sends images inline as `data:` URLs. */
export interface ChatCompletionContentPartImage {
	type: "image_url";
	image_url: { url: string; detail?: "auto" | "low" | "high" };
}

/** A part of user content. */
export type ChatCompletionContentPart = ChatCompletionContentPartText | ChatCompletionContentPartImage;

/** The system prompt: role `developer` for reasoning models, else `system`. */
export interface ChatCompletionSystemMessageParam {
	role: "system" | "developer";
	content: string | ChatCompletionContentPartText[];
}

/** A user message. */
export interface ChatCompletionUserMessageParam {
	role: "user";
	content: string | ChatCompletionContentPart[];
}

/** A function call the assistant made; `arguments` is a JSON string. */
export interface ChatCompletionMessageFunctionToolCall {
	id: string;
	type: "function";
	function: { name: string; arguments: string };
}

/** An assistant message; `content` is null when it only calls tools. */
export interface ChatCompletionAssistantMessageParam {
	role: "assistant";
	content?: string | ChatCompletionContentPartText[] | null;
	tool_calls?: ChatCompletionMessageFunctionToolCall[];
}

/** The result of one tool call. */
export interface ChatCompletionToolMessageParam {
	role: "tool";
	tool_call_id: string;
	content: string | ChatCompletionContentPartText[];
}

/** One message of the conversation. */
export type ChatCompletionMessageParam =
	| ChatCompletionSystemMessageParam
	| ChatCompletionUserMessageParam
	| ChatCompletionAssistantMessageParam
	| ChatCompletionToolMessageParam;

/** A function tool. */
export interface ChatCompletionFunctionTool {
	type: "function";
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** `tool_choice`: a mode, or one named function. */
export type ChatCompletionToolChoiceOption =
	| "none"
	| "auto"
	| "required"
	| { type: "function"; function: { name: string } };

/** The body of a streaming `POST /chat/completions`, as far as capstan fills it. */
export interface ChatCompletionCreateParamsStreaming {
	model: string;
	stream: true;
	stream_options?: { include_usage?: boolean } | null;
	max_tokens?: number | null;
	max_completion_tokens?: number | null;
	temperature?: number | null;
	reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | null;
	prompt_cache_key?: string | null;
	tools?: ChatCompletionFunctionTool[];
	tool_choice?: ChatCompletionToolChoiceOption;
	messages: ChatCompletionMessageParam[];
}

/** The `usage` of a response (the final chunk with `stream_options.include_usage`). */
export interface CompletionUsage {
	prompt_tokens: number;
	completion_tokens: number;
	total_tokens: number;
	prompt_tokens_details?: { cached_tokens?: number };
	completion_tokens_details?: { reasoning_tokens?: number };
}
