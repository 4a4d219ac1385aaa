/**
 * Anthropic Messages request building: `Context` + options → the exact JSON body of `POST /v1/messages`.
 * Wire shapes come from `./wire.ts` (capstan's own, checked against the vendor SDK's types by a test).
 *
 * Key order is fixed (model, max_tokens, stream, system, tools, tool_choice, thinking, output_config,
 * temperature, container, cache_control, messages) and `messages` comes last, so consecutive turns of one
 * conversation produce bodies whose message prefix is byte-identical (prompt-cache friendly): apart from the
 * moving tail breakpoint without a context manager, entirely with one (rule X2, see `convertMessages`).
 */
import { requiredMaxTokens } from "../../core/max-tokens.js";
import type {
	AssistantMessage,
	ImageContent,
	Message,
	TextContent,
	ToolResultMessage,
	UserContent,
} from "../../core/messages.js";
import type { Context, Model, ThinkingLevel, ToolChoice, ToolSpec } from "../../core/model.js";
import { ANTHROPIC_IMAGE_TYPES, imageToSend } from "../base/images.js";
import { checkLastUserTurn } from "../base/last-turn.js";
import type { ProviderStreamOptions } from "../base/run-stream.js";
import { anthropicToolCallId } from "./tool-ids.js";
import type {
	Tool as AnthropicTool,
	ToolChoice as AnthropicToolChoice,
	CacheControlEphemeral,
	ContentBlockParam,
	ImageBlockParam,
	MessageCreateParamsStreaming,
	MessageParam,
	OutputConfig,
	TextBlockParam,
	ThinkingConfigParam,
	ToolResultBlockParam,
	ToolUseBlockParam,
} from "./wire.js";

/** The wire API name this provider speaks; also the `api` of its `ProviderBlock`s. */
export const ANTHROPIC_API = "anthropic-messages";

/** Options of the Anthropic provider. */
export interface AnthropicOptions extends ProviderStreamOptions {
	/**
	 * Prompt-cache breakpoints on the system prompt, the tool list and the last message (and, with a context
	 * manager, its fixed anchor): `"5m"` (default), `"1h"` (longer TTL, pricier writes) or `"off"`.
	 */
	cacheTtl?: "5m" | "1h" | "off";
	/** Values for the `anthropic-beta` header. */
	betas?: string[];
}

/** Thinking budget per level for models with manual `budget_tokens` (rule X5). */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, "off">, number>> = {
	minimal: 1024,
	low: 2048,
	medium: 8192,
	high: 16_384,
	xhigh: 32_768,
};

const MIN_THINKING_BUDGET = 1024;

type Effort = NonNullable<OutputConfig["effort"]>;

/**
 * The body we send. Current Anthropic models take no sampling parameters (the vendor types have no
 * `temperature`); `temperature` is sent only to models flagged `compat.supportsTemperature` (older models,
 * third-party Anthropic-compatible servers).
 */
export type AnthropicRequestBody = MessageCreateParamsStreaming & { temperature?: number };

/**
 * Build the request body for one call. Pure: same inputs, same object (and bytes). A last user message with
 * no content (blank text, no image) throws an `invalid_request` `ProviderError`: left out, it would turn the
 * request into a prefill of the assistant's reply.
 */
export function buildAnthropicRequest(
	model: Model,
	context: Context,
	options: AnthropicOptions = {},
): AnthropicRequestBody {
	checkLastUserTurn(context.messages);
	const cache = cacheControl(options.cacheTtl);
	const automatic = usesAutomaticTail(model, options);
	const maxTokens = requiredMaxTokens(model, options.maxTokens);
	const tools = context.tools ?? [];
	const choice = effectiveToolChoice(model, options.toolChoice);
	const forcesTool = tools.length > 0 && choice !== undefined && choice !== "auto" && choice !== "none";
	// Manual (budget) thinking rejects a forced tool choice; the forced tool wins (X1 escalation relies on it).
	// Adaptive thinking accepts forced tool use.
	const wanted = reasoningConfig(model, options.thinkingLevel, maxTokens);
	const reasoning = forcesTool && wanted.thinking?.type === "enabled" ? { thinkingOn: false } : wanted;
	const samplingAllowed = model.compat?.supportsTemperature === true && !reasoning.thinkingOn;
	const prompt = context.systemPrompt ?? "";
	const system: TextBlockParam | undefined = hasText(prompt)
		? { type: "text", text: prompt, ...(cache ? { cache_control: cache } : {}) }
		: undefined;
	return {
		model: model.id,
		max_tokens: maxTokens,
		stream: true,
		...(system ? { system: [system] } : {}),
		...(tools.length > 0
			? {
					tools: tools.map((tool, index) =>
						toAnthropicTool(tool, index === tools.length - 1 ? cache : undefined),
					),
				}
			: {}),
		...(tools.length > 0 && choice ? { tool_choice: toAnthropicToolChoice(choice) } : {}),
		...(reasoning.thinking ? { thinking: reasoning.thinking } : {}),
		...(reasoning.effort ? { output_config: { effort: reasoning.effort } } : {}),
		...(options.temperature !== undefined && samplingAllowed ? { temperature: options.temperature } : {}),
		...containerOf(context.messages),
		...(cache && automatic ? { cache_control: cache } : {}),
		messages: convertMessages(model, context.messages, cache, {
			anchor: context.cacheAnchor,
			tail: !automatic,
		}),
	};
}

/**
 * Rule X2: with a context manager (the loop's `cacheHints`) the moving tail breakpoint is the server's —
 * top-level `cache_control`, Anthropic's automatic caching, put on the last cacheable block — so no marker
 * moves inside the body and each request repeats the previous one's bytes. A server that does not take the
 * top-level field (`compat.supportsAutomaticCaching: false`) gets a marker on the last block instead.
 */
function usesAutomaticTail(model: Model, options: AnthropicOptions): boolean {
	return options.cacheHints !== undefined && model.compat?.supportsAutomaticCaching !== false;
}

/**
 * The code-execution container of the latest Anthropic reply that had one (the decoder stores it as a
 * `container` provider block), so files and state persist into this request. Its `expires_at` is not checked
 * here (building stays pure); an expired container is the server's to refuse.
 */
function containerOf(messages: readonly Message[]): { container?: string } {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as Message;
		if (message.role !== "assistant" || message.api !== ANTHROPIC_API) continue;
		for (const block of message.content) {
			const data = block.type === "providerBlock" && block.api === ANTHROPIC_API ? block.data : undefined;
			if (isContainerBlock(data) && typeof data.id === "string") return { container: data.id };
		}
	}
	return {};
}

function isContainerBlock(data: unknown): data is { type: "container"; id?: unknown } {
	return data !== null && typeof data === "object" && (data as { type?: unknown }).type === "container";
}

function cacheControl(ttl: AnthropicOptions["cacheTtl"]): CacheControlEphemeral | undefined {
	if (ttl === "off") return undefined;
	return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

function toAnthropicTool(tool: ToolSpec, cache: CacheControlEphemeral | undefined): AnthropicTool {
	const wire: AnthropicTool = {
		name: tool.name,
		description: tool.description,
		input_schema: tool.parameters as AnthropicTool["input_schema"],
	};
	if (cache) wire.cache_control = cache;
	return wire;
}

/** The choice to send: a model flagged `compat.rejectsForcedToolChoice` gets `auto` for a forced one. */
function effectiveToolChoice(model: Model, choice: ToolChoice | undefined): ToolChoice | undefined {
	if (choice === undefined || choice === "auto" || choice === "none") return choice;
	return model.compat?.rejectsForcedToolChoice === true ? "auto" : choice;
}

/** auto → auto, none → none, required → any, a named tool → tool. */
export function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
	if (choice === "auto") return { type: "auto" };
	if (choice === "none") return { type: "none" };
	if (choice === "required") return { type: "any" };
	return { type: "tool", name: choice.name };
}

interface ReasoningConfig {
	thinking?: ThinkingConfigParam;
	effort?: Effort;
	thinkingOn: boolean;
}

/**
 * Rule X5, clamped to the model: adaptive models (`compat.thinkingMode: "adaptive"`) get adaptive thinking
 * and an effort from the model's `compat.effortLevels`; budget models get `budget_tokens` kept ≥ 1024 and
 * below `max_tokens`. No level means the model's own default (nothing sent).
 */
export function reasoningConfig(
	model: Model,
	level: ThinkingLevel | undefined,
	maxTokens: number,
): ReasoningConfig {
	const alwaysOn = model.compat?.thinkingAlwaysOn === true;
	if (!model.reasoning || level === undefined) return { thinkingOn: alwaysOn };
	if (model.compat?.thinkingMode === "adaptive") {
		if (level === "off")
			return alwaysOn
				? { effort: clampEffort(model, "low"), thinkingOn: true }
				: { thinking: { type: "disabled" }, thinkingOn: false };
		return {
			thinking: { type: "adaptive" },
			effort: clampEffort(model, levelEffort(level)),
			thinkingOn: true,
		};
	}
	if (level === "off") return { thinkingOn: false };
	const budget = Math.min(THINKING_BUDGETS[level], maxTokens - MIN_THINKING_BUDGET);
	if (budget < MIN_THINKING_BUDGET) return { thinkingOn: false };
	return { thinking: { type: "enabled", budget_tokens: budget }, thinkingOn: true };
}

function levelEffort(level: Exclude<ThinkingLevel, "off">): Effort {
	if (level === "minimal" || level === "low") return "low";
	return level;
}

const EFFORT_ORDER: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];

function clampEffort(model: Model, wanted: Effort): Effort {
	const supported = model.compat?.effortLevels;
	if (!Array.isArray(supported) || supported.includes(wanted)) return wanted;
	// The nearest supported level at or below the wish, else the lowest supported one.
	for (let i = EFFORT_ORDER.indexOf(wanted); i >= 0; i--) {
		const candidate = EFFORT_ORDER[i] as Effort;
		if (supported.includes(candidate)) return candidate;
	}
	const lowest = EFFORT_ORDER.find((effort) => supported.includes(effort));
	return lowest ?? wanted;
}

/** Which message breakpoints {@link convertMessages} places. */
export interface MessageBreakpoints {
	/**
	 * Rule X2: a fixed breakpoint on the last block of message `anchor − 1` (`Context.cacheAnchor`); ignored
	 * unless `1 ≤ anchor ≤ messages.length`.
	 */
	anchor?: number | undefined;
	/** A breakpoint on the last block (default true; false when the server places it: automatic caching). */
	tail?: boolean;
}

/**
 * Convert wire messages; consecutive tool results share one user message, as the API requires. Breakpoints:
 * one on the last block (unless the server places it), and the context manager's fixed anchor (rule X2) on
 * the last block of its message — where it was in the previous request, so the bytes up to there are
 * unchanged and that cache entry is read back even after a call appended more blocks than the API's
 * ~20-block lookback. With system and tools that makes at most four, the API's maximum.
 */
export function convertMessages(
	model: Model,
	messages: readonly Message[],
	cache: CacheControlEphemeral | undefined,
	breakpoints: MessageBreakpoints = {},
): MessageParam[] {
	const out: MessageParam[] = [];
	let toolResults: ToolResultBlockParam[] | undefined;
	let anchorAt: BlockAt | undefined;
	const { anchor } = breakpoints;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		if (message.role === "toolResult") {
			if (!toolResults) {
				toolResults = [];
				out.push({ role: "user", content: toolResults });
			}
			toolResults.push(toolResultBlock(model, message));
		} else {
			toolResults = undefined;
			const content =
				message.role === "user" ? userBlocks(model, message.content) : assistantBlocks(model, message);
			// An empty message is left out (the API refuses it); `buildAnthropicRequest` refuses a blank last user
			// message first (`checkLastUserTurn`), since leaving that one out would make the request a prefill.
			if (content.length > 0) out.push({ role: message.role, content });
		}
		// The block of this very message, even when later tool results join the same wire message.
		if (i + 1 === anchor) anchorAt = lastBlockAt(out);
	}
	if (!cache) return out;
	const tail = lastBlockAt(out);
	if (tail && breakpoints.tail !== false) placeBreakpoint(out, tail, cache);
	if (anchorAt && (anchorAt.message !== tail?.message || anchorAt.block !== tail.block))
		placeBreakpoint(out, anchorAt, cache);
	return out;
}

/** Where a content block sits in the converted messages. */
interface BlockAt {
	message: number;
	block: number;
}

function lastBlockAt(out: readonly MessageParam[]): BlockAt | undefined {
	const content = out[out.length - 1]?.content;
	return Array.isArray(content) && content.length > 0
		? { message: out.length - 1, block: content.length - 1 }
		: undefined;
}

function placeBreakpoint(out: MessageParam[], at: BlockAt, cache: CacheControlEphemeral): void {
	const content = out[at.message]?.content;
	const block = Array.isArray(content) ? content[at.block] : undefined;
	// A copy: the block may be a replayed ProviderBlock's own data object, which must never be mutated.
	if (Array.isArray(content) && block && canCarryCacheControl(block))
		content[at.block] = { ...block, cache_control: cache };
}

function canCarryCacheControl(
	block: ContentBlockParam,
): block is Extract<ContentBlockParam, { cache_control?: CacheControlEphemeral | null }> {
	return block.type !== "thinking" && block.type !== "redacted_thinking";
}

function userBlocks(model: Model, content: string | UserContent[]): ContentBlockParam[] {
	const blocks = typeof content === "string" ? [{ type: "text", text: content } as TextContent] : content;
	const out: ContentBlockParam[] = [];
	for (const block of blocks) {
		if (block.type === "text") {
			// The API rejects text blocks that are empty or only whitespace.
			if (hasText(block.text)) out.push({ type: "text", text: block.text });
		} else out.push(imageBlock(model, block));
	}
	return out;
}

/** "messages: text content blocks must contain non-whitespace text": a block of blanks is a 400. */
function hasText(text: string): boolean {
	return text.trim().length > 0;
}

function imageBlock(model: Model, image: ImageContent): ImageBlockParam | TextBlockParam {
	const sent = imageToSend(model, image, ANTHROPIC_IMAGE_TYPES);
	if ("note" in sent) return { type: "text", text: sent.note };
	return {
		type: "image",
		source: { type: "base64", media_type: sent.mimeType as ImageMediaType, data: image.data },
	};
}

/** The SDK's type of `media_type`; what is sent comes from `ANTHROPIC_IMAGE_TYPES` or `compat.imageMimeTypes`. */
type ImageMediaType = Extract<ImageBlockParam["source"], { type: "base64" }>["media_type"];

function toolResultBlock(model: Model, message: ToolResultMessage): ToolResultBlockParam {
	const content: Array<TextBlockParam | ImageBlockParam> = [];
	for (const block of message.content) {
		if (block.type === "text") {
			if (hasText(block.text)) content.push({ type: "text", text: block.text });
		} else content.push(imageBlock(model, block));
	}
	const result: ToolResultBlockParam = {
		type: "tool_result",
		tool_use_id: anthropicToolCallId(message.toolCallId),
		content,
	};
	if (message.isError) result.is_error = true;
	return result;
}

/**
 * Assistant content (rule C4): thinking keeps its signature only for the same provider and model (else it
 * becomes plain text); redacted thinking is replayed only there; our own provider blocks are replayed
 * unchanged, other APIs' are dropped; tool-call ids are rewritten to what Anthropic accepts.
 */
function assistantBlocks(model: Model, message: AssistantMessage): ContentBlockParam[] {
	const sameModel =
		message.api === model.api && message.provider === model.provider && message.model === model.id;
	const sameApi = message.api === model.api;
	const out: ContentBlockParam[] = [];
	for (const block of message.content) {
		switch (block.type) {
			case "text": {
				if (!hasText(block.text)) break;
				const text: TextBlockParam = { type: "text", text: block.text };
				if (sameApi && block.citations && block.citations.length > 0)
					text.citations = block.citations as unknown as TextBlockParam["citations"];
				out.push(text);
				break;
			}
			case "thinking":
				if (sameModel && block.signature)
					out.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
				else if (block.thinking.trim().length > 0) out.push({ type: "text", text: block.thinking });
				break;
			case "redactedThinking":
				if (sameModel) out.push({ type: "redacted_thinking", data: block.data });
				break;
			case "toolCall": {
				const call: ToolUseBlockParam = {
					type: "tool_use",
					id: anthropicToolCallId(block.id),
					name: block.name,
					input: block.arguments,
				};
				const caller = sameApi ? callerOf(block.signature) : undefined;
				if (caller) call.caller = caller;
				out.push(call);
				break;
			}
			case "providerBlock":
				// A container block is request state (sent as `container`), never a content block.
				if (block.api === ANTHROPIC_API && !isContainerBlock(block.data))
					out.push(block.data as unknown as ContentBlockParam);
				break;
		}
	}
	return out;
}

/** The programmatic-tool-calling caller the decoder stored in a call's signature, if any. */
function callerOf(signature: string | undefined): ToolUseBlockParam["caller"] | undefined {
	if (!signature?.startsWith("{")) return undefined;
	try {
		const caller = JSON.parse(signature) as { type?: unknown };
		return typeof caller.type === "string" ? (caller as ToolUseBlockParam["caller"]) : undefined;
	} catch {
		return undefined;
	}
}
