/**
 * The OpenAI Responses wire shapes capstan reads and writes — only those, written from the API reference and
 * the `openai` package's types. They live here rather than being imported from `openai` because that package
 * is a dev dependency: a published `.d.ts` naming it would not compile for a consumer without it.
 * `test/providers/openai-responses/wire.test.ts` holds them to the SDK's: every request we can build is a
 * valid SDK request, and every SDK event of a type the decoder handles is one it accepts.
 */

/** `reasoning.effort`. */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max" | null;

/** `reasoning`: effort and the summary wanted back. */
export interface Reasoning {
	effort?: ReasoningEffort;
	summary?: "auto" | "concise" | "detailed" | null;
}

/** Text input. */
export interface ResponseInputText {
	type: "input_text";
	text: string;
}

/** Image input; capstan sends images inline as `data:` URLs. */
export interface ResponseInputImage {
	type: "input_image";
	detail: "low" | "high" | "auto" | "original";
	image_url?: string | null;
}

/** A part of user content. */
export type ResponseInputContent = ResponseInputText | ResponseInputImage;

/** A part of a `function_call_output` (servers that take images there). */
export type ResponseFunctionCallOutputItem = ResponseInputText | ResponseInputImage;

/** Generated text, with its annotations (citations). */
export interface ResponseOutputText {
	type: "output_text";
	text: string;
	annotations: unknown[];
}

/** A refusal in place of text. */
export interface ResponseOutputRefusal {
	type: "refusal";
	refusal: string;
}

/** An assistant `message` item, as streamed and as replayed. */
export interface ResponseOutputMessage {
	type: "message";
	id: string;
	role: "assistant";
	status: "in_progress" | "completed" | "incomplete";
	content: Array<ResponseOutputText | ResponseOutputRefusal>;
	phase?: "commentary" | "final_answer" | null;
}

/** A `function_call` item; `id` is the item id, `call_id` what the result refers to. */
export interface ResponseFunctionToolCall {
	type: "function_call";
	call_id: string;
	name: string;
	arguments: string;
	id?: string;
	namespace?: string;
	status?: "in_progress" | "completed" | "incomplete";
}

/** A `reasoning` item: summary text, and the encrypted content replayed unchanged. */
export interface ResponseReasoningItem {
	type: "reasoning";
	id: string;
	summary: Array<{ type: "summary_text"; text: string }>;
	encrypted_content?: string | null;
	status?: "in_progress" | "completed" | "incomplete";
}

/**
 * Every other output item (server tools, MCP, compaction, …): kept whole as a `ProviderBlock`. The names are
 * listed, not `string`, so `type` still tells the items above apart; the wire test fails when the SDK knows
 * an item type this list lacks.
 */
export interface ResponseOtherOutputItem {
	type:
		| "file_search_call"
		| "function_call_output"
		| "web_search_call"
		| "computer_call"
		| "computer_call_output"
		| "program"
		| "program_output"
		| "tool_search_call"
		| "tool_search_output"
		| "additional_tools"
		| "compaction"
		| "image_generation_call"
		| "code_interpreter_call"
		| "local_shell_call"
		| "local_shell_call_output"
		| "shell_call"
		| "shell_call_output"
		| "apply_patch_call"
		| "apply_patch_call_output"
		| "mcp_call"
		| "mcp_list_tools"
		| "mcp_approval_request"
		| "mcp_approval_response"
		| "custom_tool_call"
		| "custom_tool_call_output";
	id?: string;
}

/** One item of a response's `output`. */
export type ResponseOutputItem =
	| ResponseOutputMessage
	| ResponseFunctionToolCall
	| ResponseReasoningItem
	| ResponseOtherOutputItem;

/** Token counts of a response. */
export interface ResponseUsage {
	input_tokens?: number;
	input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
	output_tokens?: number;
	output_tokens_details?: { reasoning_tokens?: number };
}

/** The response object of the lifecycle events. */
export interface Response {
	id: string;
	output: ResponseOutputItem[];
	usage?: ResponseUsage;
	error: unknown;
	incomplete_details: { reason?: "max_output_tokens" | "content_filter" } | null;
}

/** Events carrying the whole response. */
export interface ResponseLifecycleEvent {
	type:
		| "response.created"
		| "response.in_progress"
		| "response.queued"
		| "response.completed"
		| "response.incomplete"
		| "response.failed";
	response: Response;
}

/** A mid-stream `error` event. */
export interface ResponseErrorEvent {
	type: "error";
	code: string | null;
	message: string;
	param: string | null;
}

/** An output item starts or is done. */
export interface ResponseOutputItemEvent {
	type: "response.output_item.added" | "response.output_item.done";
	output_index: number;
	item: ResponseOutputItem;
}

/** A content part of a message (or reasoning) item starts or is done. */
export interface ResponseContentPartEvent {
	type: "response.content_part.added" | "response.content_part.done";
	output_index: number;
	content_index: number;
	part: ResponseOutputText | ResponseOutputRefusal | { type: "reasoning_text"; text: string };
}

/** A fragment of text, refusal or raw reasoning text. */
export interface ResponseContentDeltaEvent {
	type: "response.output_text.delta" | "response.refusal.delta" | "response.reasoning_text.delta";
	output_index: number;
	content_index: number;
	delta: string;
}

/** The whole text of a part. */
export interface ResponseTextDoneEvent {
	type: "response.output_text.done";
	output_index: number;
	content_index: number;
	text: string;
}

/** The whole refusal of a part. */
export interface ResponseRefusalDoneEvent {
	type: "response.refusal.done";
	output_index: number;
	content_index: number;
	refusal: string;
}

/** A citation on a text part. */
export interface ResponseOutputTextAnnotationAddedEvent {
	type: "response.output_text.annotation.added";
	output_index: number;
	content_index: number;
	annotation: unknown;
}

/** A fragment of one reasoning summary part. */
export interface ResponseReasoningSummaryTextDeltaEvent {
	type: "response.reasoning_summary_text.delta";
	output_index: number;
	summary_index: number;
	delta: string;
}

/** A fragment of a function call's arguments. */
export interface ResponseFunctionCallArgumentsDeltaEvent {
	type: "response.function_call_arguments.delta";
	output_index: number;
	delta: string;
}

/** A function call's whole arguments. */
export interface ResponseFunctionCallArgumentsDoneEvent {
	type: "response.function_call_arguments.done";
	output_index: number;
	arguments: string;
}

/** The stream events the decoder acts on; others are ignored. */
export type ResponseStreamEvent =
	| ResponseLifecycleEvent
	| ResponseErrorEvent
	| ResponseOutputItemEvent
	| ResponseContentPartEvent
	| ResponseContentDeltaEvent
	| ResponseTextDoneEvent
	| ResponseRefusalDoneEvent
	| ResponseOutputTextAnnotationAddedEvent
	| ResponseReasoningSummaryTextDeltaEvent
	| ResponseFunctionCallArgumentsDeltaEvent
	| ResponseFunctionCallArgumentsDoneEvent;

/** A user message item. */
export interface ResponseInputMessage {
	type: "message";
	role: "user";
	content: ResponseInputContent[];
}

/** The result of one function call. */
export interface ResponseFunctionCallOutput {
	type: "function_call_output";
	call_id: string;
	output: string | ResponseFunctionCallOutputItem[];
}

/** One item of `input` (replayed server-tool and reasoning items are cast to this). */
export type ResponseInputItem =
	| ResponseInputMessage
	| ResponseOutputMessage
	| ResponseFunctionToolCall
	| ResponseFunctionCallOutput;

/** A function tool. */
export interface FunctionTool {
	type: "function";
	name: string;
	description?: string | null;
	parameters: Record<string, unknown> | null;
	strict: boolean | null;
}

/** `tool_choice` modes. */
export type ToolChoiceOptions = "none" | "auto" | "required";

/** `tool_choice` naming one function. */
export interface ToolChoiceFunction {
	type: "function";
	name: string;
}

/** The body of a streaming `POST /responses`, as far as capstan fills it. */
export interface ResponseCreateParamsStreaming {
	model: string;
	stream: true;
	store?: boolean | null;
	instructions?: string | null;
	tools?: FunctionTool[];
	tool_choice?: ToolChoiceOptions | ToolChoiceFunction;
	reasoning?: Reasoning | null;
	include?: Array<"reasoning.encrypted_content"> | null;
	prompt_cache_key?: string | null;
	max_output_tokens?: number | null;
	temperature?: number | null;
	service_tier?: "auto" | "default" | "flex" | "scale" | "priority" | null;
	input?: string | ResponseInputItem[];
}
