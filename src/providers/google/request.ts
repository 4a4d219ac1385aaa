/**
 * Gemini request building: `Context` + options → the exact JSON body of
 * `POST {baseUrl}/models/{id}:streamGenerateContent?alt=sse`. Wire shapes come from `./wire.ts` (capstan's
 * own, checked against `@google/genai`'s types by a test; enum-typed fields are their string values).
 *
 * Key order is fixed and `contents` comes last, so consecutive turns of one conversation send bodies whose
 * `contents` prefix is byte-identical (implicit prompt caching).
 *
 * Compat flags read here (`model.compat`, never `if (provider === ...)`):
 * - `thinkingLevels: string[]` — the model takes `thinkingLevel` (Gemini 3: e.g. `["low", "high"]`) instead
 *   of a `thinkingBudget`; the rule X5 level is clamped to this list.
 * - `thinkingAlwaysOn: true` — the model cannot switch thinking off (Gemini 2.5 Pro): `off` becomes the
 *   smallest budget. `maxThinkingBudget: number` caps budgets (default 24576).
 * - `streamFunctionCallArguments: true` — ask Vertex AI to stream function-call arguments in fragments.
 * - `toolCallIds: true` — send `id` on `functionCall` / `functionResponse` parts (servers that support it).
 * - `toolCallSignaturePlaceholder: string` — signature to send on function calls that have none (calls
 *   from another model; Gemini 3 validates signatures on the current turn's calls).
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
import { GEMINI_IMAGE_TYPES, imageToSend } from "../base/images.js";
import { checkLastUserTurn } from "../base/last-turn.js";
import type { ProviderStreamOptions } from "../base/run-stream.js";
import type {
	Content,
	FunctionCallingConfig,
	FunctionCallingConfigMode,
	FunctionDeclaration,
	ThinkingLevel as GeminiThinkingLevel,
	GenerationConfig,
	Part,
	ThinkingConfig,
	Tool,
	ToolConfig,
} from "./wire.js";

/** The wire API name this provider speaks; also the `api` of its `ProviderBlock`s. */
export const GOOGLE_API = "google-generative-ai";

/** Options of the Gemini provider. */
export type GoogleOptions = ProviderStreamOptions;

/** `thinkingConfig` with the level as its wire string. */
export type WireThinkingConfig = Omit<ThinkingConfig, "thinkingLevel"> & {
	thinkingLevel?: `${GeminiThinkingLevel}`;
};

/** `toolConfig` with the mode as its wire string. */
export type WireToolConfig = Omit<ToolConfig, "functionCallingConfig"> & {
	functionCallingConfig?: Omit<FunctionCallingConfig, "mode"> & { mode?: `${FunctionCallingConfigMode}` };
};

/** The JSON body of one `streamGenerateContent` call. */
export interface GeminiRequestBody {
	/** The system prompt, when there is one. */
	systemInstruction?: Content;
	/** The function declarations, when the context has tools. */
	tools?: Tool[];
	/** The tool choice and `streamFunctionCallArguments`, when either is set. */
	toolConfig?: WireToolConfig;
	/** Output cap, temperature and thinking, when any is set. */
	generationConfig?: Omit<GenerationConfig, "thinkingConfig"> & { thinkingConfig?: WireThinkingConfig };
	/** The conversation, as Gemini contents. */
	contents: Content[];
}

/** Thinking budget per level (rule X5), before clamping to the model. */
export const GEMINI_THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, "off">, number>> = {
	minimal: 512,
	low: 2048,
	medium: 8192,
	high: 16_384,
	xhigh: 32_768,
};

const MIN_THINKING_BUDGET = 128;
const DEFAULT_MAX_THINKING_BUDGET = 24_576;
const LEVEL_ORDER = ["minimal", "low", "medium", "high"] as const;

/**
 * Build the request body for one call. Pure: same inputs, same object (and bytes). A last user message with
 * no content (blank text, no image) throws an `invalid_request` `ProviderError`: left out, it would turn the
 * request into a prefill of the assistant's reply.
 */
export function buildGeminiRequest(
	model: Model,
	context: Context,
	options: GoogleOptions = {},
): GeminiRequestBody {
	checkLastUserTurn(context.messages);
	const body: Partial<GeminiRequestBody> = {};
	if (context.systemPrompt) body.systemInstruction = { parts: [{ text: context.systemPrompt }] };
	const tools = context.tools ?? [];
	if (tools.length > 0) {
		body.tools = [{ functionDeclarations: tools.map(toFunctionDeclaration) }];
		const calling = options.toolChoice ? toFunctionCallingConfig(options.toolChoice) : {};
		if (model.compat?.streamFunctionCallArguments === true) calling.streamFunctionCallArguments = true;
		if (Object.keys(calling).length > 0) body.toolConfig = { functionCallingConfig: calling };
	}
	const generation: NonNullable<GeminiRequestBody["generationConfig"]> = {};
	const maxTokens = optionalMaxTokens(model, options.maxTokens);
	if (maxTokens !== undefined) generation.maxOutputTokens = maxTokens;
	if (options.temperature !== undefined) generation.temperature = options.temperature;
	const thinking = thinkingConfig(model, options.thinkingLevel);
	if (thinking) generation.thinkingConfig = thinking;
	if (Object.keys(generation).length > 0) body.generationConfig = generation;
	body.contents = convertMessages(model, context.messages);
	return body as GeminiRequestBody;
}

function toFunctionDeclaration(tool: ToolSpec): FunctionDeclaration {
	return { name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters };
}

/** auto → AUTO, none → NONE, required → ANY, a named tool → ANY restricted to that name. */
export function toFunctionCallingConfig(
	choice: ToolChoice,
): NonNullable<WireToolConfig["functionCallingConfig"]> {
	if (choice === "auto") return { mode: "AUTO" };
	if (choice === "none") return { mode: "NONE" };
	if (choice === "required") return { mode: "ANY" };
	return { mode: "ANY", allowedFunctionNames: [choice.name] };
}

/**
 * Rule X5, clamped to the model: Gemini 3 models (`compat.thinkingLevels`) get a `thinkingLevel`, others a
 * `thinkingBudget` below `maxThinkingBudget`; `off` is budget 0 unless the model always thinks. No level
 * means the model's default (nothing sent).
 */
export function thinkingConfig(
	model: Model,
	level: ThinkingLevel | undefined,
): WireThinkingConfig | undefined {
	if (!model.reasoning || level === undefined) return undefined;
	const levels = model.compat?.thinkingLevels;
	if (Array.isArray(levels) && levels.length > 0) {
		const wanted = level === "off" ? "minimal" : level === "xhigh" ? "high" : level;
		const clamped = clampLevel(wanted, levels);
		return { thinkingLevel: clamped.toUpperCase() as `${GeminiThinkingLevel}`, includeThoughts: true };
	}
	if (level === "off") {
		if (model.compat?.thinkingAlwaysOn !== true) return { thinkingBudget: 0 };
		return { thinkingBudget: MIN_THINKING_BUDGET, includeThoughts: true };
	}
	const cap =
		typeof model.compat?.maxThinkingBudget === "number"
			? model.compat.maxThinkingBudget
			: DEFAULT_MAX_THINKING_BUDGET;
	const budget = Math.max(MIN_THINKING_BUDGET, Math.min(GEMINI_THINKING_BUDGETS[level], cap));
	return { thinkingBudget: budget, includeThoughts: true };
}

function clampLevel(wanted: (typeof LEVEL_ORDER)[number], supported: unknown[]): string {
	for (let i = LEVEL_ORDER.indexOf(wanted); i >= 0; i--) {
		const candidate = LEVEL_ORDER[i] as string;
		if (supported.includes(candidate)) return candidate;
	}
	const lowest = LEVEL_ORDER.find((candidate) => supported.includes(candidate));
	return lowest ?? wanted;
}

/** Convert wire messages; consecutive tool results share one `user` content, as the API requires. */
export function convertMessages(model: Model, messages: readonly Message[]): Content[] {
	const out: Content[] = [];
	let results: Part[] | undefined;
	for (const message of messages) {
		if (message.role === "toolResult") {
			if (!results) {
				results = [];
				out.push({ role: "user", parts: results });
			}
			results.push(...toolResultParts(model, message));
			continue;
		}
		results = undefined;
		const parts = message.role === "user" ? userParts(model, message.content) : modelParts(model, message);
		if (parts.length > 0) out.push({ role: message.role === "user" ? "user" : "model", parts });
	}
	return out;
}

function userParts(model: Model, content: string | UserContent[]): Part[] {
	const blocks: UserContent[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
	const out: Part[] = [];
	for (const block of blocks) {
		if (block.type === "text") {
			if (block.text.length > 0) out.push({ text: block.text });
		} else out.push(imagePart(model, block));
	}
	return out;
}

function imagePart(model: Model, image: ImageContent): Part {
	const sent = imageToSend(model, image, GEMINI_IMAGE_TYPES);
	return "note" in sent ? { text: sent.note } : { inlineData: { mimeType: sent.mimeType, data: image.data } };
}

/** A tool result: a `functionResponse` keyed by name (`output` or `error`), then its images as parts. */
function toolResultParts(model: Model, message: ToolResultMessage): Part[] {
	const text = message.content
		.filter((block): block is TextContent => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	const images = message.content
		.filter((block): block is ImageContent => block.type === "image")
		.map((image) => imagePart(model, image));
	// With no text, point at what follows: the images, or the notes that say why they were left out.
	const pointer = images.some((part) => part.inlineData) ? "(see the attached image)" : "(see below)";
	const shown = text.length > 0 ? text : images.length > 0 ? pointer : "";
	const response = message.isError ? { error: shown } : { output: shown };
	const functionResponse: NonNullable<Part["functionResponse"]> = { name: message.toolName, response };
	if (model.compat?.toolCallIds === true) functionResponse.id = message.toolCallId;
	return [{ functionResponse }, ...images];
}

/**
 * Assistant content (rule C4): from the same provider and model, thought, text and function-call parts keep
 * their `thoughtSignature` and our provider blocks (code execution, server tools, images) are replayed
 * unchanged; from anywhere else, thinking becomes plain text, signatures and provider blocks are dropped.
 */
function modelParts(model: Model, message: AssistantMessage): Part[] {
	const sameModel =
		message.api === model.api && message.provider === model.provider && message.model === model.id;
	const placeholder = model.compat?.toolCallSignaturePlaceholder;
	const out: Part[] = [];
	for (const block of message.content) {
		switch (block.type) {
			case "text":
				if (block.text.length > 0 || (sameModel && block.signature))
					out.push(signed({ text: block.text }, sameModel ? block.signature : undefined));
				break;
			case "thinking":
				if (sameModel) out.push(signed({ text: block.thinking, thought: true }, block.signature));
				else if (block.thinking.trim().length > 0) out.push({ text: block.thinking });
				break;
			case "toolCall": {
				const functionCall: NonNullable<Part["functionCall"]> = { name: block.name, args: block.arguments };
				if (model.compat?.toolCallIds === true) functionCall.id = block.id;
				const signature = sameModel ? block.signature : undefined;
				out.push(
					signed({ functionCall }, signature ?? (typeof placeholder === "string" ? placeholder : undefined)),
				);
				break;
			}
			case "providerBlock":
				if (sameModel && block.api === GOOGLE_API) out.push(block.data as unknown as Part);
				break;
			case "redactedThinking":
				break;
		}
	}
	return out;
}

function signed(part: Part, signature: string | undefined): Part {
	return signature ? { ...part, thoughtSignature: signature } : part;
}
