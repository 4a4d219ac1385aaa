/**
 * `capstan/ai-sdk`: any AI SDK language model (`LanguageModelV2`, AI SDK 5; `LanguageModelV3`, AI SDK 6) as a
 * capstan model and stream function, so community providers (Bedrock, Mistral, Ollama, …) plug into an
 * `Agent` without glue:
 *
 * ```ts
 * const agent = new Agent({ ...aiSdkModel(bedrock("anthropic.claude-sonnet-4")), tools });
 * ```
 *
 * The model's `doStream` parts become rule E2 events through the shared builder; failures (thrown, rejected or
 * streamed as `error` parts) become error messages, never throws (rule E3); abort reaches `doStream` as its
 * `abortSignal` and ends the stream `aborted` at once. `@ai-sdk/provider` is an optional peer dependency used
 * for types only.
 */
import type {
	LanguageModelV2,
	LanguageModelV2CallOptions,
	LanguageModelV3,
	LanguageModelV3CallOptions,
	SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { AssistantMessageEventStream } from "../core/events.js";
import { optionalMaxTokens } from "../core/max-tokens.js";
import type { Context, Model, StreamFunction, ThinkingLevel } from "../core/model.js";
import {
	type ProviderCallContext,
	type ProviderStreamOptions,
	runProviderStream,
} from "../providers/base/run-stream.js";
import { type AnyStreamPart, StreamPartDecoder } from "./decode.js";
import { classifyAiSdkError } from "./errors.js";
import { AI_SDK_API } from "./metadata.js";
import { type SpecVersion, toPrompt, toToolChoice, toTools } from "./prompt.js";

export { AI_SDK_API } from "./metadata.js";

/** An AI SDK language model of either supported specification. */
export type AiSdkLanguageModel = LanguageModelV2 | LanguageModelV3;

/** AI SDK per-provider options (`{ anthropic: { thinking: … } }`), the same shape in V2 and V3. */
export type AiSdkProviderOptions = SharedV3ProviderOptions;

/** How `aiSdkModel` describes the model and what it adds to every call. */
export interface AiSdkModelOptions {
	/**
	 * Model facts capstan cannot read from an AI SDK model (limits, prices for cost, image input, reasoning).
	 * Defaults: text and image input, no reasoning, 128k context, 16k output, prices unknown (cost zero). As for
	 * every provider, a call sends `maxOutputTokens` only when `maxTokens` or `compat.defaultMaxTokens` is set;
	 * otherwise the AI SDK provider's own default applies. Images go only as PNG, JPEG or WebP, the types every
	 * major API takes (another type goes as a short text saying it was left out, rule C4); list the types the
	 * model's API takes in `compat.imageMimeTypes` to send others, e.g.
	 * `{ compat: { imageMimeTypes: ["image/png", "image/jpeg", "image/webp", "image/gif"] } }`.
	 */
	model?: Partial<Omit<Model, "api" | "provider" | "id">>;
	/** Provider options sent on every call (`providerOptions` of the AI SDK call). */
	providerOptions?: AiSdkProviderOptions;
	/**
	 * Provider options for a thinking level (rule X5). The AI SDK has no unified reasoning switch, each
	 * provider names it differently, so the host maps it, e.g.
	 * `(level) => level === "off" ? undefined : { anthropic: { thinking: { type: "enabled", budgetTokens: 8000 } } }`.
	 * Merged over `providerOptions` per provider.
	 */
	thinking?: (level: ThinkingLevel) => AiSdkProviderOptions | undefined;
}

/** What `aiSdkModel` returns: spread it into `new Agent({...})` or an `agentLoop` config. */
export interface AiSdkBridge {
	/** The capstan model: `api` `"ai-sdk"`, `provider` and `id` from the AI SDK model. */
	model: Model;
	/** The stream function calling the AI SDK model's `doStream`. */
	streamFn: StreamFunction;
}

/**
 * A capstan model and stream function for an AI SDK language model (V2 or V3).
 *
 * @example
 * ```ts
 * const agent = new Agent({ ...aiSdkModel(openai("gpt-5")), systemPrompt: "Be brief." });
 * ```
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): AiSdkBridge {
	const model: Model = {
		reasoning: false,
		input: ["text", "image"],
		contextWindow: 128_000,
		maxTokens: 16_384,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		...options.model,
		id: languageModel.modelId,
		api: AI_SDK_API,
		provider: languageModel.provider,
	};
	return { model, streamFn: aiSdkStreamFunction(languageModel, options) };
}

/**
 * The stream function alone, for hosts that build their `Model` themselves. It calls `languageModel` whatever
 * the `model` argument says (the `model` supplies prices and identity for the message).
 */
export function aiSdkStreamFunction(
	languageModel: AiSdkLanguageModel,
	options: Omit<AiSdkModelOptions, "model"> = {},
): StreamFunction {
	return (
		model: Model,
		context: Context,
		streamOptions?: ProviderStreamOptions,
	): AssistantMessageEventStream =>
		runProviderStream(
			model,
			streamOptions,
			async (builder, ctx) => {
				const call = callOptions(languageModel, context, ctx, options);
				const result = await doStream(languageModel, call).catch((error: unknown) => {
					throw classifyAiSdkError(error);
				});
				// The AI SDK model answers `doStream` once the server answered the request.
				ctx.markAccepted();
				const decoder = new StreamPartDecoder(builder, model);
				const reader = result.stream.getReader();
				// A model that ignores its abortSignal must not keep this attempt waiting: cancelling the reader
				// settles the pending read.
				const cancel = (): void => void reader.cancel().catch(() => {});
				ctx.signal.addEventListener("abort", cancel, { once: true });
				try {
					for (;;) {
						const next = await reader.read().catch((error: unknown) => {
							throw classifyAiSdkError(error);
						});
						if (next.done || builder.isFinished) break;
						decoder.push(next.value);
					}
				} finally {
					ctx.signal.removeEventListener("abort", cancel);
					// Stops the provider's request when the reply ended early (an error part, an abort).
					cancel();
				}
				if (!builder.isFinished) decoder.end();
			},
			// The AI SDK model resolves its own credentials.
			{ requireApiKey: false },
		);
}

function specVersion(languageModel: AiSdkLanguageModel): SpecVersion {
	return languageModel.specificationVersion === "v2" ? "v2" : "v3";
}

function callOptions(
	languageModel: AiSdkLanguageModel,
	context: Context,
	ctx: ProviderCallContext,
	options: Omit<AiSdkModelOptions, "model">,
): LanguageModelV3CallOptions {
	const { model, options: streamOptions } = ctx;
	const call: LanguageModelV3CallOptions = {
		prompt: toPrompt(context, {
			model,
			provider: languageModel.provider,
			version: specVersion(languageModel),
		}),
		abortSignal: ctx.signal,
	};
	const tools = toTools(context.tools);
	if (tools) call.tools = tools;
	const toolChoice = toToolChoice(streamOptions.toolChoice);
	if (toolChoice && tools) call.toolChoice = toolChoice;
	if (streamOptions.temperature !== undefined) call.temperature = streamOptions.temperature;
	const maxTokens = optionalMaxTokens(model, streamOptions.maxTokens);
	if (maxTokens !== undefined) call.maxOutputTokens = maxTokens;
	if (streamOptions.headers) call.headers = streamOptions.headers;
	const thinking =
		streamOptions.thinkingLevel === undefined ? undefined : options.thinking?.(streamOptions.thinkingLevel);
	const providerOptions = mergeProviderOptions(options.providerOptions, thinking);
	if (providerOptions) call.providerOptions = providerOptions;
	return call;
}

function mergeProviderOptions(
	base: AiSdkProviderOptions | undefined,
	extra: AiSdkProviderOptions | undefined,
): AiSdkProviderOptions | undefined {
	if (!base || !extra) return base ?? extra;
	const merged: AiSdkProviderOptions = { ...base };
	for (const [provider, values] of Object.entries(extra))
		merged[provider] = { ...merged[provider], ...values };
	return merged;
}

/**
 * One `doStream` call on either version. The V3 call options are also valid V2 options (the prompt was built
 * for the model's version), which the cast to V2 states.
 */
async function doStream(
	languageModel: AiSdkLanguageModel,
	call: LanguageModelV3CallOptions,
): Promise<{ stream: ReadableStream<AnyStreamPart> }> {
	if (languageModel.specificationVersion === "v2")
		return languageModel.doStream(call as unknown as LanguageModelV2CallOptions);
	return languageModel.doStream(call);
}
