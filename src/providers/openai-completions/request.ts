/**
 * Chat Completions request building: `Context` + options → the exact JSON body of `POST {baseUrl}/chat/completions`.
 * Wire shapes come from `./wire.ts` (capstan's own, checked against the `openai` package's types by a test),
 * widened only where compatible servers accept more than OpenAI (reasoning fields, images in tool results).
 *
 * Key order is fixed and `messages` comes last, and each message converts on its own (no look-ahead that
 * could change an earlier message later), so consecutive turns of one conversation produce bodies whose
 * messages begin with the previous request's messages byte for byte (prompt-cache friendly).
 */
import { optionalMaxTokens } from "../../core/max-tokens.js";
import type { AssistantMessage, ImageContent, ToolResultMessage, UserContent } from "../../core/messages.js";
import type { Context, Model, ThinkingLevel, ToolChoice, ToolSpec } from "../../core/model.js";
import { IMAGE_OMITTED_TEXT, imageToSend, OPENAI_IMAGE_TYPES } from "../base/images.js";
import { checkLastUserTurn } from "../base/last-turn.js";
import type { ProviderStreamOptions } from "../base/run-stream.js";
import { type OpenAICompletionsCompat, type ReasoningEffortValue, resolveCompat } from "./compat.js";
import { type ReasoningDetail, replayableDetails } from "./reasoning-details.js";
import { wireToolCallId } from "./tool-ids.js";
import type {
	ChatCompletionAssistantMessageParam,
	ChatCompletionContentPart,
	ChatCompletionContentPartImage,
	ChatCompletionContentPartText,
	ChatCompletionCreateParamsStreaming,
	ChatCompletionFunctionTool,
	ChatCompletionMessageParam,
	ChatCompletionToolChoiceOption,
	ChatCompletionToolMessageParam,
} from "./wire.js";

/** The wire API name this provider speaks. */
export const OPENAI_COMPLETIONS_API = "openai-completions";

/** Options of the Chat Completions provider. */
export interface OpenAICompletionsOptions extends ProviderStreamOptions {
	/** Flags that override the model's resolved compat for this call only. */
	compat?: Partial<OpenAICompletionsCompat>;
}

/** An assistant message as compatible servers accept it: OpenAI's shape plus a reasoning field. */
export type WireAssistantMessage = ChatCompletionAssistantMessageParam & {
	reasoning_content?: string;
	reasoning?: string;
	reasoning_details?: ReasoningDetail[];
};

/** A tool message; servers with `supportsImagesInToolResults` also take image parts. */
export type WireToolMessage = Omit<ChatCompletionToolMessageParam, "content"> & {
	content: string | Array<ChatCompletionContentPartText | ChatCompletionContentPartImage>;
	name?: string;
};

/** One wire message. */
export type WireMessage =
	| Exclude<ChatCompletionMessageParam, ChatCompletionAssistantMessageParam | ChatCompletionToolMessageParam>
	| WireAssistantMessage
	| WireToolMessage;

/** The request body: OpenAI's streaming params plus what compatible servers add. */
export type OpenAICompletionsRequest = Omit<
	ChatCompletionCreateParamsStreaming,
	"messages" | "reasoning_effort"
> & {
	reasoning_effort?: ReasoningEffortValue;
	/** OpenRouter's reasoning control. */
	reasoning?: { effort: ReasoningEffortValue };
	messages: WireMessage[];
};

/** Inserted between tool messages and a user message for servers that require it. */
export const TOOL_RESULTS_ACK_TEXT = "I have processed the tool results.";

function takesTemperature(model: Model, compat: OpenAICompletionsCompat): boolean {
	return compat.supportsTemperature && !(model.reasoning && compat.reasoningModelsRejectTemperature);
}

/**
 * Build the request body for one call. Pure: same inputs, same object (and bytes). A last user message with
 * no content (blank text, no image) throws an `invalid_request` `ProviderError`: left out, it would turn the
 * request into a prefill of the assistant's reply.
 */
export function buildOpenAICompletionsRequest(
	model: Model,
	context: Context,
	options: OpenAICompletionsOptions = {},
): OpenAICompletionsRequest {
	checkLastUserTurn(context.messages);
	const compat: OpenAICompletionsCompat = { ...resolveCompat(model), ...options.compat };
	// `messages` is added last so every earlier key keeps its place and the message prefix stays stable.
	const head: Omit<OpenAICompletionsRequest, "messages"> = { model: model.id, stream: true };
	if (compat.supportsUsageInStreaming) head.stream_options = { include_usage: true };
	const maxTokens = optionalMaxTokens(model, options.maxTokens);
	if (maxTokens !== undefined) head[compat.maxTokensField] = maxTokens;
	if (options.temperature !== undefined && takesTemperature(model, compat))
		head.temperature = options.temperature;
	const effort = reasoningEffort(model, compat, options.thinkingLevel);
	if (effort !== undefined) {
		if (compat.reasoningEffortStyle === "reasoning_object") head.reasoning = { effort };
		else head.reasoning_effort = effort;
	}
	if (options.sessionId && compat.supportsPromptCacheKey) head.prompt_cache_key = options.sessionId;
	const tools = context.tools ?? [];
	if (tools.length > 0) {
		head.tools = tools.map(toWireTool);
		if (options.toolChoice) head.tool_choice = toWireToolChoice(options.toolChoice);
	}
	return { ...head, messages: convertMessages(model, compat, context) };
}

function toWireTool(tool: ToolSpec): ChatCompletionFunctionTool {
	return {
		type: "function",
		function: { name: tool.name, description: tool.description, parameters: tool.parameters },
	};
}

/** auto / none / required as is; a named tool → `{type: "function", function: {name}}`. */
export function toWireToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
	if (typeof choice === "string") return choice;
	return { type: "function", function: { name: choice.name } };
}

const EFFORT_ORDER: readonly ReasoningEffortValue[] = ["minimal", "low", "medium", "high", "xhigh"];

/**
 * Rule X5: the effort for a thinking level, clamped to the nearest supported effort at or below it (else
 * the lowest supported). `off` sends the compat's off value, else `none` when the model lists it, else
 * nothing. Nothing at all for non-reasoning models, servers without effort control, or no level (the model's
 * default).
 */
export function reasoningEffort(
	model: Model,
	compat: OpenAICompletionsCompat,
	level: ThinkingLevel | undefined,
): ReasoningEffortValue | undefined {
	if (!model.reasoning || !compat.supportsReasoningEffort || level === undefined) return undefined;
	const own = model.compat?.effortLevels;
	const supported: readonly string[] = Array.isArray(own) ? (own as string[]) : compat.reasoningEffortLevels;
	// A model that lists "none" among its efforts (gpt-5.1 and later) can be switched off that way.
	if (level === "off") return compat.reasoningEffortOff ?? (supported.includes("none") ? "none" : undefined);
	for (let i = EFFORT_ORDER.indexOf(level); i >= 0; i--) {
		const candidate = EFFORT_ORDER[i] as ReasoningEffortValue;
		if (supported.includes(candidate)) return candidate;
	}
	return EFFORT_ORDER.find((effort) => supported.includes(effort));
}

/** Convert the context; images from tool results follow their batch as one user message when needed. */
export function convertMessages(
	model: Model,
	compat: OpenAICompletionsCompat,
	context: Context,
): WireMessage[] {
	const out: WireMessage[] = [];
	if (context.systemPrompt) {
		const role = model.reasoning && compat.supportsDeveloperRole ? "developer" : "system";
		out.push({ role, content: context.systemPrompt });
	}
	let pendingImages: ChatCompletionContentPart[] = [];
	let afterToolResult = false;
	const pushUser = (content: string | ChatCompletionContentPart[]): void => {
		if (afterToolResult && compat.requiresAssistantAfterToolResult)
			out.push({ role: "assistant", content: TOOL_RESULTS_ACK_TEXT });
		out.push({ role: "user", content });
		afterToolResult = false;
	};
	const flushImages = (): void => {
		if (pendingImages.length > 0) pushUser(pendingImages);
		pendingImages = [];
	};
	for (const message of context.messages) {
		if (message.role === "toolResult") {
			const converted = toolMessage(model, compat, message);
			out.push(converted.message);
			pendingImages.push(...converted.followUp);
			afterToolResult = true;
			continue;
		}
		flushImages();
		if (message.role === "user") {
			// A user message with no content at all is refused ("content" needs one part); the others drop it too.
			const content = userContent(model, message.content);
			if (typeof content === "string" || content.length > 0) pushUser(content);
		} else {
			const converted = assistantMessage(model, compat, message);
			// A reply that sends nothing (an empty failed one, or thinking only) leaves the tool message last.
			if (converted) {
				out.push(converted);
				afterToolResult = false;
			}
		}
	}
	flushImages();
	return out;
}

function imagePart(model: Model, image: ImageContent): ChatCompletionContentPart {
	const sent = imageToSend(model, image, OPENAI_IMAGE_TYPES);
	if ("note" in sent) return { type: "text", text: sent.note };
	return { type: "image_url", image_url: { url: `data:${sent.mimeType};base64,${image.data}` } };
}

/** A lone text goes out as a plain string (accepted everywhere); mixed content as parts. */
function userContent(model: Model, content: string | UserContent[]): string | ChatCompletionContentPart[] {
	if (typeof content === "string") return content;
	const only = content[0];
	if (content.length === 1 && only?.type === "text") return only.text;
	return content.map((block) =>
		block.type === "text" ? { type: "text", text: block.text } : imagePart(model, block),
	);
}

function toolMessage(
	model: Model,
	compat: OpenAICompletionsCompat,
	message: ToolResultMessage,
): { message: WireToolMessage; followUp: ChatCompletionContentPart[] } {
	const text = message.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	const images = message.content.filter((block): block is ImageContent => block.type === "image");
	const id = wireToolCallId(message.toolCallId, compat.toolCallIdFormat);
	const wire: WireToolMessage = { role: "tool", tool_call_id: id, content: text };
	if (compat.requiresToolResultName) wire.name = message.toolName;
	let followUp: ChatCompletionContentPart[] = [];
	if (images.length > 0 && compat.supportsImagesInToolResults && model.input.includes("image")) {
		wire.content = [
			...(text ? [{ type: "text" as const, text }] : []),
			...images.map((image) => imagePart(model, image) as ChatCompletionContentPartImage),
		];
	} else if (images.length > 0 && model.input.includes("image")) {
		const note = `(the tool returned ${images.length === 1 ? "an image" : `${images.length} images`}; attached in the next message)`;
		wire.content = text ? `${text}\n${note}` : note;
		followUp = [
			{ type: "text", text: `Image output of tool "${message.toolName}" (call ${id}):` },
			...images.map((image) => imagePart(model, image)),
		];
	} else if (images.length > 0) {
		wire.content = text ? `${text}\n${IMAGE_OMITTED_TEXT}` : IMAGE_OMITTED_TEXT;
	}
	if (wire.content === "") wire.content = message.isError ? "(tool failed with no output)" : "(no output)";
	return { message: wire, followUp };
}

/**
 * Assistant content (rule C4): reasoning goes back in the compat's reasoning field only to the same provider
 * and model; otherwise it becomes plain text (`requiresThinkingAsText`) or is dropped. Tool-call ids are
 * rewritten for the target; provider blocks (opaque data of other APIs) are dropped. An assistant message
 * left with nothing to say is skipped (servers reject empty assistant messages).
 */
function assistantMessage(
	model: Model,
	compat: OpenAICompletionsCompat,
	message: AssistantMessage,
): WireAssistantMessage | undefined {
	const sameModel =
		message.api === model.api && message.provider === model.provider && message.model === model.id;
	const replayField = sameModel ? compat.reasoningField : undefined;
	const texts: string[] = [];
	const thoughtsAsText: string[] = [];
	const reasoning: string[] = [];
	const details: ReasoningDetail[] = [];
	const toolCalls: NonNullable<WireAssistantMessage["tool_calls"]> = [];
	for (const block of message.content) {
		if (block.type === "text") {
			if (block.text.length > 0) texts.push(block.text);
		} else if (block.type === "thinking") {
			if (replayField) {
				reasoning.push(block.thinking);
				details.push(reasoningDetail(block.thinking, block.signature));
			} else if (!sameModel && compat.requiresThinkingAsText && block.thinking.trim().length > 0)
				thoughtsAsText.push(block.thinking);
		} else if (block.type === "redactedThinking") {
			if (replayField === "reasoning_details")
				details.push({ type: "reasoning.encrypted", data: block.data });
		} else if (block.type === "toolCall") {
			toolCalls.push({
				id: wireToolCallId(block.id, compat.toolCallIdFormat),
				type: "function",
				function: { name: block.name, arguments: JSON.stringify(block.arguments) },
			});
		}
	}
	// Text blocks were one stream of text; converted thoughts go first, set apart by a blank line.
	const content = [...thoughtsAsText, texts.join("")].filter((part) => part.length > 0).join("\n\n");
	if (content.length === 0 && toolCalls.length === 0) return undefined;
	const wire: WireAssistantMessage = { role: "assistant", content: content.length > 0 ? content : null };
	if (replayField === "reasoning_details") {
		// The entries exactly as received (with `format`), else rebuilt from the thinking blocks.
		const recorded = replayableDetails(message.content, OPENAI_COMPLETIONS_API) ?? details;
		if (recorded.length > 0) wire.reasoning_details = recorded;
	} else if (replayField && reasoning.length > 0) wire[replayField] = reasoning.join("");
	if (toolCalls.length > 0) wire.tool_calls = toolCalls;
	return wire;
}

function reasoningDetail(text: string, signature: string | undefined): ReasoningDetail {
	const detail: ReasoningDetail = { type: "reasoning.text", text };
	if (signature) detail.signature = signature;
	return detail;
}
