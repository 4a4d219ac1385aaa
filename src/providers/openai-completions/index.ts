/**
 * OpenAI Chat Completions and OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter,
 * Groq, DeepSeek, xAI, Mistral, …): request building, stream decoding, compat flags, one entry.
 */
export {
	COMPAT_PRESETS,
	type CompatPresetName,
	compatFor,
	DEFAULT_COMPAT,
	type OpenAICompletionsCompat,
	presetNameFor,
	type ReasoningEffortValue,
	type ReasoningField,
	resolveCompat,
	type ToolCallIdFormat,
} from "./compat.js";
export {
	LOCAL_SERVER_BASE_URLS,
	type LocalServerPreset,
	type OpenAICompatibleCompat,
	type OpenAICompatibleConfig,
	type OpenAICompatibleOptions,
	openaiCompatible,
} from "./compatible.js";
export { ChatCompletionsDecoder, classifyOpenAIErrorBody, FINISH_REASONS } from "./decode.js";
export { REASONING_DETAILS_BLOCK, type ReasoningDetail } from "./reasoning-details.js";
export {
	buildOpenAICompletionsRequest,
	OPENAI_COMPLETIONS_API,
	type OpenAICompletionsOptions,
	type OpenAICompletionsRequest,
	reasoningEffort,
	toWireToolChoice,
	type WireAssistantMessage,
	type WireMessage,
	type WireToolMessage,
} from "./request.js";
export { chatCompletionsUrl, streamOpenAICompletions } from "./stream.js";
export { wireToolCallId } from "./tool-ids.js";
export { normalizeUsage } from "./usage.js";
