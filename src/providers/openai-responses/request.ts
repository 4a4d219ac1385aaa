/**
 * OpenAI Responses request building: `Context` + options → the exact JSON body of `POST /responses`.
 * Wire shapes come from `./wire.ts` (capstan's own, checked against the `openai` package's types by a test).
 *
 * Stateless by design: `store: false`, and reasoning comes back as encrypted items
 * (`include: ["reasoning.encrypted_content"]`) that we keep as `ProviderBlock`s and replay unchanged, so
 * no request depends on server-side state. Key order is fixed and `input` comes last, so consecutive turns
 * of one conversation send bodies whose `input` prefix is byte-identical (prompt-cache friendly).
 *
 * Compat flags read here (`model.compat`, never `if (provider === ...)`):
 * - `effortLevels: string[]` — `reasoning.effort` values the model accepts (clamping target, rule X5).
 *   Without it only `low | medium | high` are assumed, which every reasoning model accepts.
 * - `reasoningSummary: "auto" | "concise" | "detailed" | false` — summary request (default `"auto"`).
 * - `toolResultImages: false` — the server rejects images inside `function_call_output`; they are sent as a
 *   follow-up user message instead.
 */
import { optionalMaxTokens } from "../../core/max-tokens.js";
import type {
	AssistantMessage,
	ImageContent,
	Message,
	TextContent,
	ToolResultMessage,
	UserContent,
} from "../../core/messages.js";
import type { Context, Model, ThinkingLevel, ToolChoice, ToolSpec } from "../../core/model.js";
import { IMAGE_OMITTED_TEXT, imageToSend, OPENAI_IMAGE_TYPES } from "../base/images.js";
import { checkLastUserTurn } from "../base/last-turn.js";
import type { ProviderStreamOptions } from "../base/run-stream.js";
import { decodeItemRef, responsesCallId } from "./item-refs.js";
import type {
	FunctionTool,
	Reasoning,
	ReasoningEffort,
	ResponseCreateParamsStreaming,
	ResponseFunctionCallOutputItem,
	ResponseFunctionToolCall,
	ResponseInputContent,
	ResponseInputItem,
	ResponseOutputMessage,
	ToolChoiceFunction,
	ToolChoiceOptions,
} from "./wire.js";

/** The wire API name this provider speaks; also the `api` of its `ProviderBlock`s. */
export const OPENAI_RESPONSES_API = "openai-responses";

/** Options of the OpenAI Responses provider. */
export interface OpenAIResponsesOptions extends ProviderStreamOptions {
	/** `service_tier` to request (e.g. `"flex"`, `"priority"`). */
	serviceTier?: ResponseCreateParamsStreaming["service_tier"];
}

type Effort = Exclude<ReasoningEffort, null>;

const EFFORT_ORDER: readonly Effort[] = ["none", "minimal", "low", "medium", "high", "xhigh"];
const DEFAULT_EFFORT_LEVELS: readonly Effort[] = ["low", "medium", "high"];

/**
 * Build the request body for one call. Pure: same inputs, same object (and bytes). A last user message with
 * no content (blank text, no image) throws an `invalid_request` `ProviderError`: left out, it would turn the
 * request into a prefill of the assistant's reply.
 */
export function buildResponsesRequest(
	model: Model,
	context: Context,
	options: OpenAIResponsesOptions = {},
): ResponseCreateParamsStreaming {
	checkLastUserTurn(context.messages);
	const body: ResponseCreateParamsStreaming = { model: model.id, stream: true, store: false };
	if (context.systemPrompt) body.instructions = context.systemPrompt;
	const tools = context.tools ?? [];
	if (tools.length > 0) {
		body.tools = tools.map(toFunctionTool);
		if (options.toolChoice) body.tool_choice = toResponsesToolChoice(options.toolChoice);
	}
	if (model.reasoning) {
		const reasoning = reasoningConfig(model, options.thinkingLevel);
		if (reasoning) body.reasoning = reasoning;
		body.include = ["reasoning.encrypted_content"];
	}
	if (options.sessionId) body.prompt_cache_key = options.sessionId;
	const maxTokens = optionalMaxTokens(model, options.maxTokens);
	if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
	// Reasoning models reject sampling parameters.
	if (options.temperature !== undefined && !model.reasoning) body.temperature = options.temperature;
	if (options.serviceTier) body.service_tier = options.serviceTier;
	body.input = convertMessages(model, context.messages);
	return body;
}

function toFunctionTool(tool: ToolSpec): FunctionTool {
	return {
		type: "function",
		name: tool.name,
		description: tool.description,
		parameters: tool.parameters,
		// Strict mode would reject ordinary JSON Schemas (optional properties, open objects).
		strict: false,
	};
}

/** auto → auto, none → none, required → required, a named tool → that function. */
export function toResponsesToolChoice(choice: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
	if (typeof choice === "string") return choice;
	return { type: "function", name: choice.name };
}

/**
 * Rule X5, clamped to the model: the level becomes `reasoning.effort` (`off` → `none`, or the lowest effort
 * the model accepts when it cannot switch reasoning off); no level means the model's default (nothing sent).
 */
export function reasoningConfig(model: Model, level: ThinkingLevel | undefined): Reasoning | undefined {
	if (!model.reasoning || level === undefined) return undefined;
	const effort = clampEffort(model, level === "off" ? "none" : level);
	const reasoning: Reasoning = { effort };
	const summary = model.compat?.reasoningSummary ?? "auto";
	if (effort !== "none" && (summary === "auto" || summary === "concise" || summary === "detailed"))
		reasoning.summary = summary;
	return reasoning;
}

function clampEffort(model: Model, wanted: Effort): Effort {
	const listed = model.compat?.effortLevels;
	const supported: readonly string[] = Array.isArray(listed) ? listed : DEFAULT_EFFORT_LEVELS;
	if (supported.includes(wanted)) return wanted;
	// The nearest supported level at or below the wish, else the lowest supported one — never `none` for a
	// level that asked for some reasoning (rule X5: only `off` turns it off).
	const floor = wanted === "none" ? 0 : 1;
	for (let i = EFFORT_ORDER.indexOf(wanted); i >= floor; i--) {
		const candidate = EFFORT_ORDER[i] as Effort;
		if (supported.includes(candidate)) return candidate;
	}
	return EFFORT_ORDER.find((effort, i) => i >= floor && supported.includes(effort)) ?? "medium";
}

/** Convert wire messages to Responses input items. */
export function convertMessages(model: Model, messages: readonly Message[]): ResponseInputItem[] {
	const out: ResponseInputItem[] = [];
	for (const message of messages) {
		if (message.role === "user") {
			const content = userContent(model, message.content);
			if (content.length > 0) out.push({ type: "message", role: "user", content });
		} else if (message.role === "assistant") out.push(...assistantItems(model, message));
		else out.push(...toolResultItems(model, message));
	}
	return out;
}

function userContent(model: Model, content: string | UserContent[]): ResponseInputContent[] {
	const blocks: UserContent[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
	const out: ResponseInputContent[] = [];
	for (const block of blocks) {
		if (block.type === "text") {
			if (block.text.length > 0) out.push({ type: "input_text", text: block.text });
		} else out.push(inputImage(model, block));
	}
	return out;
}

/** An image as an `input_image` part, or the text sent in its place (`imageToSend`). */
function inputImage(model: Model, image: ImageContent): ResponseInputContent {
	const sent = imageToSend(model, image, OPENAI_IMAGE_TYPES);
	if ("note" in sent) return { type: "input_text", text: sent.note };
	return { type: "input_image", detail: "auto", image_url: `data:${sent.mimeType};base64,${image.data}` };
}

/**
 * A tool result is one `function_call_output`. Images go inside it as `input_image` parts where the server
 * accepts that, else in a follow-up user message (the output then says where they are).
 */
function toolResultItems(model: Model, message: ToolResultMessage): ResponseInputItem[] {
	const callId = responsesCallId(message.toolCallId);
	const text = message.content
		.filter((block): block is TextContent => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	const images = message.content.filter((block): block is ImageContent => block.type === "image");
	if (images.length === 0) return [{ type: "function_call_output", call_id: callId, output: text }];
	if (!model.input.includes("image")) {
		// Said, as the other builders say it: the model should not take a result that had an image for all of it.
		const output = text ? `${text}\n${IMAGE_OMITTED_TEXT}` : IMAGE_OMITTED_TEXT;
		return [{ type: "function_call_output", call_id: callId, output }];
	}
	if (model.compat?.toolResultImages !== false) {
		const output: ResponseFunctionCallOutputItem[] = [];
		if (text.length > 0) output.push({ type: "input_text", text });
		for (const image of images) output.push(inputImage(model, image));
		return [{ type: "function_call_output", call_id: callId, output }];
	}
	const note = `${text}${text ? "\n" : ""}(the tool returned ${images.length} image(s), attached in the next message)`;
	return [
		{ type: "function_call_output", call_id: callId, output: note },
		{
			type: "message",
			role: "user",
			content: [
				{ type: "input_text", text: `Images returned by tool call ${callId}:` },
				...images.map((image) => inputImage(model, image)),
			],
		},
	];
}

/**
 * Assistant content (rule C4). From the same provider and model: text and tool calls keep their item ids,
 * our provider blocks (reasoning with encrypted content, server-tool items) are replayed unchanged, and
 * thinking is skipped (its reasoning item carries it). Reasoning items are tied to the model that wrote
 * them, so for another model of the same provider they are dropped, item ids with them (a `fc_`/`msg_` id
 * without its reasoning item is refused), while server-tool items stay. Items a cut-off reply never
 * finished (`status: "in_progress"`) are never replayed. From another provider: thinking
 * becomes plain text, provider blocks are dropped, tool-call ids are rewritten to what the API accepts.
 */
function assistantItems(model: Model, message: AssistantMessage): ResponseInputItem[] {
	const sameProvider = message.api === model.api && message.provider === model.provider;
	const sameModel = sameProvider && message.model === model.id;
	const out: ResponseInputItem[] = [];
	let lastMessage: ResponseOutputMessage | undefined;
	let lastTextRef: string | undefined;
	for (const block of message.content) {
		if (block.type === "text" || (block.type === "thinking" && !sameModel)) {
			const text = block.type === "text" ? block.text : block.thinking;
			if (text.trim().length === 0) continue;
			const ref = block.type === "text" && sameModel ? block.signature : undefined;
			// Parts of one output message (same item id) go back as one message item.
			if (lastMessage && ref !== undefined && ref === lastTextRef) {
				lastMessage.content.push({ type: "output_text", text, annotations: [] });
				continue;
			}
			lastMessage = outputMessage(text, ref);
			lastTextRef = ref;
			out.push(lastMessage);
			continue;
		}
		lastMessage = undefined;
		if (block.type === "toolCall") out.push(functionCall(block, sameModel));
		else if (block.type === "providerBlock" && sameProvider && block.api === OPENAI_RESPONSES_API) {
			if (isUnfinished(block.data)) continue;
			if (sameModel || !isReasoningItem(block.data)) out.push(block.data as unknown as ResponseInputItem);
		}
	}
	// A reasoning item goes back only with the item it led to: one the reply ended after (cut off by
	// `max_output_tokens` or an abort, or followed by nothing but blank text) is refused with a 400 ("provided
	// without its required following item"), on this request and every later one.
	while (out.length > 0 && isReasoningItem(out[out.length - 1])) out.pop();
	return out;
}

/** An item whose `output_item.done` never came (the reply was cut off): not replayable. */
function isUnfinished(data: unknown): boolean {
	return typeof data === "object" && data !== null && (data as { status?: unknown }).status === "in_progress";
}

function isReasoningItem(data: unknown): boolean {
	return typeof data === "object" && data !== null && (data as { type?: unknown }).type === "reasoning";
}

function outputMessage(text: string, signature: string | undefined): ResponseOutputMessage {
	const ref = decodeItemRef(signature);
	// `id` is required by the type but optional on input; it pairs the item with its reasoning item.
	const item = {
		type: "message",
		role: "assistant",
		content: [{ type: "output_text", text, annotations: [] }],
		status: "completed",
	} as Omit<ResponseOutputMessage, "id"> as ResponseOutputMessage;
	if (ref.id !== undefined) item.id = ref.id;
	if (ref.phase === "commentary" || ref.phase === "final_answer") item.phase = ref.phase;
	return item;
}

function functionCall(
	call: { id: string; name: string; arguments: Record<string, unknown>; signature?: string },
	sameModel: boolean,
): ResponseFunctionToolCall {
	const item: ResponseFunctionToolCall = {
		type: "function_call",
		call_id: responsesCallId(call.id),
		name: call.name,
		arguments: JSON.stringify(call.arguments),
	};
	if (sameModel) {
		const ref = decodeItemRef(call.signature);
		if (ref.id !== undefined) item.id = ref.id;
		if (ref.namespace !== undefined) item.namespace = ref.namespace;
	}
	return item;
}
