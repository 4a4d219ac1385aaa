/**
 * capstan `Context` → AI SDK prompt, tools and tool choice. One converter serves V2 and V3: their prompts differ
 * only in how a tool result carries an image (`media` in V2, `image-data` in V3), chosen by `version`.
 *
 * Rule C4, as the native request builders do it: an image the model cannot take (a text-only model, or a type
 * outside the model's `compat.imageMimeTypes`, by default {@link AI_SDK_IMAGE_TYPES}) goes as a short text
 * saying it was left out. The AI SDK providers pass any image type on, and an API that refuses one fails the
 * request and every later one, since the image stays in the transcript.
 */
import type {
	JSONSchema7,
	LanguageModelV3FunctionTool,
	LanguageModelV3Message,
	LanguageModelV3Prompt,
	LanguageModelV3ToolChoice,
	LanguageModelV3ToolResultOutput,
	SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type {
	AssistantMessage,
	ImageContent,
	Message,
	TextContent,
	ToolResultMessage,
	UserContent,
} from "../core/messages.js";
import type { Context, Model, ToolChoice, ToolSpec } from "../core/model.js";
import { AI_SDK_IMAGE_TYPES, imageToSend } from "../providers/base/images.js";
import {
	decodeMetadata,
	isOwnReply,
	type ProviderMetadata,
	providerToolResult,
	withProviderOptions,
} from "./metadata.js";

/** Which AI SDK language model specification a prompt is built for. */
export type SpecVersion = "v2" | "v3";

type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];
type ToolResultPart = Extract<LanguageModelV3Message, { role: "tool" }>["content"][number];
type ContentOutputPart = Extract<LanguageModelV3ToolResultOutput, { type: "content" }>["value"][number];

/** Who the prompt is for: the capstan model (its image input), the AI SDK provider and its spec version. */
export interface PromptTarget {
	/** The capstan model: `input` and `compat.imageMimeTypes` say which images it takes. */
	model: Model;
	/** The AI SDK model's provider id: opaque data goes back only to it. */
	provider: string;
	/** The AI SDK specification the prompt is for. */
	version: SpecVersion;
}

/**
 * The prompt for `context`. Typed as the V3 prompt; for `v2` the only difference (tool-result images) is
 * already in V2's shape, which is why the caller may hand it to a V2 model.
 */
export function toPrompt(context: Context, target: PromptTarget): LanguageModelV3Prompt {
	const prompt: LanguageModelV3Prompt = [];
	if (context.systemPrompt) prompt.push({ role: "system", content: context.systemPrompt });
	for (const message of context.messages) appendMessage(prompt, message, target);
	return prompt;
}

function appendMessage(prompt: LanguageModelV3Prompt, message: Message, target: PromptTarget): void {
	const { model, provider, version } = target;
	if (message.role === "user") {
		const parts = typeof message.content === "string" ? [textContent(message.content)] : message.content;
		const content = sendableContent(model, parts)
			.map(userPart)
			.filter((part) => part.type !== "text" || part.text.length > 0);
		if (content.length > 0) prompt.push({ role: "user", content });
		return;
	}
	if (message.role === "assistant") {
		const content = assistantParts(message, provider);
		if (content.length > 0) prompt.push({ role: "assistant", content });
		return;
	}
	// An error result goes as its text alone (the AI SDK has no error output with images): no notes either.
	const content = message.isError ? message.content : sendableContent(model, message.content);
	const part = toolResultPart(message, content, version);
	// Results of one batch travel in one `tool` message, as the AI SDK builds them itself.
	const last = prompt[prompt.length - 1];
	if (last?.role === "tool") last.content.push(part);
	else prompt.push({ role: "tool", content: [part] });
}

function textContent(text: string): TextContent {
	return { type: "text", text };
}

/** `content` with each image the model cannot take replaced by a text saying so (rule C4). */
function sendableContent(model: Model, content: UserContent[]): UserContent[] {
	return content.map((part) => (part.type === "image" ? sendableImage(model, part) : part));
}

/** The image with its type spelled as APIs know it (`image/jpg` → `image/jpeg`), or the note sent instead. */
function sendableImage(model: Model, image: ImageContent): UserContent {
	const sent = imageToSend(model, image, AI_SDK_IMAGE_TYPES);
	if ("note" in sent) return textContent(sent.note);
	return sent.mimeType === image.mimeType ? image : { ...image, mimeType: sent.mimeType };
}

function userPart(content: UserContent) {
	return content.type === "text"
		? { type: "text" as const, text: content.text }
		: { type: "file" as const, data: content.data, mediaType: content.mimeType };
}

function withOptions<T extends object>(part: T, options: SharedV3ProviderOptions | undefined): T {
	return options ? { ...part, providerOptions: options } : part;
}

/**
 * Assistant content. Opaque data (signatures, provider blocks) goes back only to the provider that made it;
 * for another provider, reasoning stays as plain reasoning text and provider blocks are dropped.
 */
function assistantParts(message: AssistantMessage, provider: string): AssistantPart[] {
	const own = isOwnReply(message, provider);
	const options = (signature: string | undefined) => (own ? decodeMetadata(signature) : undefined);
	const parts: AssistantPart[] = [];
	for (const block of message.content) {
		if (block.type === "text") {
			if (block.text.length > 0)
				parts.push(withOptions({ type: "text", text: block.text }, options(block.signature)));
		} else if (block.type === "thinking") {
			const providerOptions = options(block.signature);
			// Empty reasoning still matters when it carries data (an encrypted item with no summary).
			if (block.thinking.length > 0 || providerOptions)
				parts.push(withOptions({ type: "reasoning", text: block.thinking }, providerOptions));
		} else if (block.type === "toolCall") {
			const call = { type: "tool-call" as const, toolCallId: block.id, toolName: block.name };
			parts.push(withOptions({ ...call, input: block.arguments }, options(block.signature)));
		} else if (block.type === "providerBlock" && own) {
			const replayed = replayedPart(block.data);
			if (replayed) parts.push(replayed);
		}
		// redactedThinking is never produced by this bridge, and another provider's cannot be replayed here.
	}
	return parts;
}

/**
 * A provider block this bridge stored (`file`, provider-executed `tool-call` / `tool-result`), as a part.
 * Blocks are stored in the prompt's shape; ones stored in the stream's shape (a `result` instead of an
 * `output`, `providerMetadata` instead of `providerOptions`: transcripts from earlier versions) are converted.
 */
function replayedPart(data: unknown): AssistantPart | undefined {
	if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
	const part = data as Record<string, unknown> & { type?: unknown };
	if (part.type !== "file" && part.type !== "tool-call" && part.type !== "tool-result") return undefined;
	if (part.type === "tool-result" && !("output" in part))
		return providerToolResult(
			String(part.toolCallId),
			String(part.toolName),
			part.result,
			part.isError === true,
			part.providerMetadata as ProviderMetadata | undefined,
		);
	if (!("providerMetadata" in part)) return data as AssistantPart;
	const { providerMetadata, ...rest } = part;
	return {
		...rest,
		...withProviderOptions(providerMetadata as ProviderMetadata | undefined),
	} as AssistantPart;
}

/** A tool result's part; `content` is the result's content with the images the model cannot take as notes. */
function toolResultPart(
	message: ToolResultMessage,
	content: UserContent[],
	version: SpecVersion,
): ToolResultPart {
	return {
		type: "tool-result",
		toolCallId: message.toolCallId,
		toolName: message.toolName,
		output: toolOutput(content, message.isError, version),
	};
}

/**
 * A tool result's output: plain text as `text`, an error as `error-text` (the model sees it failed), images
 * alongside text as `content`. The AI SDK has no error output with images: an error keeps its text only.
 */
function toolOutput(
	content: UserContent[],
	isError: boolean,
	version: SpecVersion,
): LanguageModelV3ToolResultOutput {
	const text = content
		.filter((part): part is TextContent => part.type === "text")
		.map((part) => part.text)
		.join("\n");
	const images = content.filter((part): part is ImageContent => part.type === "image");
	if (isError) return { type: "error-text", value: text };
	if (images.length === 0) return { type: "text", value: text };
	const value: ContentOutputPart[] = content.map((part) => {
		if (part.type === "text") return { type: "text", text: part.text };
		// V2 names an inline image `media`; V3 `image-data`. The V2 shape is not in the V3 union, hence the cast.
		return version === "v2"
			? ({ type: "media", data: part.data, mediaType: part.mimeType } as unknown as ContentOutputPart)
			: { type: "image-data", data: part.data, mediaType: part.mimeType };
	});
	return { type: "content", value };
}

/** capstan tool specs as AI SDK function tools (the JSON Schema passes through unchanged). */
export function toTools(tools: readonly ToolSpec[] | undefined): LanguageModelV3FunctionTool[] | undefined {
	if (!tools || tools.length === 0) return undefined;
	return tools.map((spec) => ({
		type: "function",
		name: spec.name,
		description: spec.description,
		// capstan schemas are plain JSON Schema objects; JSONSchema7 is the same data, typed more narrowly.
		inputSchema: spec.parameters as JSONSchema7,
	}));
}

/** capstan tool choice as the AI SDK's. */
export function toToolChoice(choice: ToolChoice | undefined): LanguageModelV3ToolChoice | undefined {
	if (choice === undefined) return undefined;
	if (typeof choice === "string") return { type: choice };
	return { type: "tool", toolName: choice.name };
}
