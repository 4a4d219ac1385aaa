/**
 * Wire quirks of OpenAI Chat Completions servers, as typed flags instead of `if (provider === ...)` branches
 *. A model's flags are resolved in three layers: the defaults for an unknown OpenAI-compatible
 * server, then the preset its provider name or base URL points at (Ollama, vLLM, llama.cpp, LM Studio,
 * OpenRouter, Groq, DeepSeek, xAI, Mistral, OpenAI itself), then the model's own `compat` entries, which win.
 *
 * `openaiCompatible({ baseUrl, model })` (compatible.ts) builds such a model in one call; by hand it is:
 *
 * @example Point a model at a local Ollama server (no key needed; the preset is found from the port):
 * ```ts
 * const model: Model = {
 *   id: "qwen3:8b", api: "openai-completions", provider: "ollama", baseUrl: "http://localhost:11434/v1",
 *   reasoning: true, input: ["text"], contextWindow: 32_768, maxTokens: 8192,
 *   cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
 * };
 * ```
 */
import type { Model } from "../../core/model.js";

/** `reasoning_effort` values the Chat Completions API knows, lowest to highest (plus `none`, "off"). */
export type ReasoningEffortValue = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** Where the server takes (and returns) reasoning text on assistant messages. */
export type ReasoningField = "reasoning_content" | "reasoning" | "reasoning_details";

/** How tool-call ids are rewritten before they are sent (rule C4). */
export type ToolCallIdFormat =
	/** Sent as recorded. */
	| "passthrough"
	/** `[A-Za-z0-9_-]`, at most 40 characters (api.openai.com rejects longer ids). */
	| "openai"
	/** Exactly 9 characters `[A-Za-z0-9]` (Mistral rejects anything else). */
	| "mistral9";

/** Every flag the Chat Completions provider reads. Each one names a server behaviour, not a server. */
export interface OpenAICompletionsCompat {
	/** The output-token cap field: OpenAI's current `max_completion_tokens`, or `max_tokens` (most servers). */
	maxTokensField: "max_completion_tokens" | "max_tokens";
	/** The system prompt goes out as role `developer` for reasoning models; otherwise always `system`. */
	supportsDeveloperRole: boolean;
	/** The server accepts a reasoning effort (rule X5); without it, thinking levels are not sent at all. */
	supportsReasoningEffort: boolean;
	/** How the effort is sent: top-level `reasoning_effort`, or OpenRouter's `reasoning: { effort }`. */
	reasoningEffortStyle: "reasoning_effort" | "reasoning_object";
	/**
	 * Efforts the server accepts; a thinking level is clamped to the nearest one at or below it. A model's
	 * own `compat.effortLevels` (the catalog's name for the same thing) takes precedence.
	 */
	reasoningEffortLevels: readonly ReasoningEffortValue[];
	/** Effort sent for thinking level `off` (e.g. `"none"`); `undefined` omits the field (model default). */
	reasoningEffortOff: ReasoningEffortValue | undefined;
	/**
	 * The assistant-message field the server accepts prior reasoning in, for replay to the same provider and
	 * model; `undefined` when it accepts none (then that reasoning is dropped).
	 */
	reasoningField: ReasoningField | undefined;
	/**
	 * Reasoning of another provider or model (which cannot go in `reasoningField`) is sent as plain text
	 * rather than dropped, so the new model still sees what was thought (rule C4).
	 */
	requiresThinkingAsText: boolean;
	/** Tool-call ids the server accepts; ids are rewritten identically in calls and results (rule C4). */
	toolCallIdFormat: ToolCallIdFormat;
	/** Send `stream_options: { include_usage: true }` (strict servers reject unknown fields). */
	supportsUsageInStreaming: boolean;
	/**
	 * Images may go inside a `role: "tool"` message. Otherwise the tool message says the image follows and a
	 * user message right after the batch's tool messages carries it.
	 */
	supportsImagesInToolResults: boolean;
	/** The model takes `temperature`; without it `options.temperature` is not sent. */
	supportsTemperature: boolean;
	/**
	 * The server rejects `temperature` for reasoning models (OpenAI's o-series and GPT-5 reasoning models):
	 * it is not sent when `model.reasoning` is true, as the Responses provider does.
	 */
	reasoningModelsRejectTemperature: boolean;
	/** Send `prompt_cache_key` from `options.sessionId`. */
	supportsPromptCacheKey: boolean;
	/** Tool messages carry the tool's `name` (some servers require it). */
	requiresToolResultName: boolean;
	/** A user message may not directly follow tool messages: a short assistant message is inserted. */
	requiresAssistantAfterToolResult: boolean;
	/** The server needs an API key (local servers do not). */
	requiresApiKey: boolean;
	/** How the key is sent: `Authorization: Bearer <key>`, or Azure OpenAI's `api-key: <key>` header. */
	apiKeyHeader: "authorization" | "api-key";
}

/** Names of the built-in presets. */
export type CompatPresetName =
	| "openai"
	| "azure"
	| "ollama"
	| "vllm"
	| "llamacpp"
	| "lmstudio"
	| "openrouter"
	| "groq"
	| "deepseek"
	| "xai"
	| "mistral";

/** Flags for a server we know nothing about: the most widely accepted subset of the API. */
export const DEFAULT_COMPAT: Readonly<OpenAICompletionsCompat> = {
	maxTokensField: "max_tokens",
	supportsDeveloperRole: false,
	supportsReasoningEffort: false,
	reasoningEffortStyle: "reasoning_effort",
	reasoningEffortLevels: ["low", "medium", "high"],
	reasoningEffortOff: undefined,
	reasoningField: undefined,
	requiresThinkingAsText: true,
	toolCallIdFormat: "openai",
	supportsUsageInStreaming: true,
	supportsImagesInToolResults: false,
	supportsTemperature: true,
	reasoningModelsRejectTemperature: false,
	supportsPromptCacheKey: false,
	requiresToolResultName: false,
	requiresAssistantAfterToolResult: false,
	requiresApiKey: true,
	apiKeyHeader: "authorization",
};

const LOCAL = { requiresApiKey: false } as const;

const OPENAI: Partial<OpenAICompletionsCompat> = {
	maxTokensField: "max_completion_tokens",
	supportsDeveloperRole: true,
	supportsReasoningEffort: true,
	reasoningEffortLevels: ["minimal", "low", "medium", "high"],
	reasoningModelsRejectTemperature: true,
	supportsPromptCacheKey: true,
};

/** Per-server differences from {@link DEFAULT_COMPAT}. */
export const COMPAT_PRESETS: Readonly<Record<CompatPresetName, Partial<OpenAICompletionsCompat>>> = {
	openai: OPENAI,
	// Azure OpenAI: the same models; the key goes in `api-key`. Put the deployment path and `?api-version=`
	// in `baseUrl` (e.g. `https://res.openai.azure.com/openai/deployments/gpt-5?api-version=2025-04-01-preview`).
	azure: { ...OPENAI, apiKeyHeader: "api-key" },
	// Ollama: `reasoning_effort` incl. "none", reasoning returned and accepted in `reasoning`.
	ollama: {
		...LOCAL,
		supportsReasoningEffort: true,
		reasoningEffortOff: "none",
		reasoningField: "reasoning",
	},
	vllm: { ...LOCAL, supportsReasoningEffort: true },
	// llama.cpp server: returns `reasoning_content` and takes it back on assistant messages.
	llamacpp: { ...LOCAL, reasoningField: "reasoning_content" },
	lmstudio: { ...LOCAL },
	// OpenRouter: `reasoning: {effort}`; reasoning must go back as `reasoning_details` (with signatures).
	openrouter: {
		supportsReasoningEffort: true,
		reasoningEffortStyle: "reasoning_object",
		reasoningEffortLevels: ["minimal", "low", "medium", "high", "xhigh"],
		reasoningEffortOff: "none",
		reasoningField: "reasoning_details",
		toolCallIdFormat: "passthrough",
	},
	groq: {
		maxTokensField: "max_completion_tokens",
		supportsReasoningEffort: true,
	},
	// DeepSeek: thinking is chosen by model; its tool loops need `reasoning_content` replayed.
	deepseek: { reasoningField: "reasoning_content" },
	// xAI grok-3-mini accepts only low/high.
	xai: {
		maxTokensField: "max_completion_tokens",
		supportsReasoningEffort: true,
		reasoningEffortLevels: ["low", "high"],
	},
	// Mistral validates strictly: no unknown fields, 9-character ids, no user right after a tool message.
	mistral: {
		toolCallIdFormat: "mistral9",
		supportsUsageInStreaming: false,
		requiresToolResultName: true,
		requiresAssistantAfterToolResult: true,
	},
};

const HOST_PRESETS: readonly [RegExp, CompatPresetName][] = [
	[/\.openai\.azure\.com$/, "azure"],
	[/(^|\.)openai\.com$/, "openai"],
	[/(^|\.)openrouter\.ai$/, "openrouter"],
	[/(^|\.)groq\.com$/, "groq"],
	[/(^|\.)deepseek\.com$/, "deepseek"],
	[/(^|\.)x\.ai$/, "xai"],
	[/(^|\.)mistral\.ai$/, "mistral"],
];

/** Default ports of the local servers (their usual `baseUrl`s). */
const PORT_PRESETS: Readonly<Record<string, CompatPresetName>> = {
	"11434": "ollama",
	"8000": "vllm",
	"8080": "llamacpp",
	"1234": "lmstudio",
};

function isPresetName(value: string): value is CompatPresetName {
	return Object.hasOwn(COMPAT_PRESETS, value);
}

/** The preset a provider name (`"ollama"`, `"llama.cpp"`) or base URL points at, if any. */
export function presetNameFor(baseUrlOrProvider: string): CompatPresetName | undefined {
	const name = baseUrlOrProvider.toLowerCase().replace(/[^a-z]/g, "");
	if (isPresetName(name)) return name;
	if (name === "azureopenai") return "azure";
	let url: URL;
	try {
		url = new URL(baseUrlOrProvider);
	} catch {
		return undefined;
	}
	for (const [pattern, preset] of HOST_PRESETS) if (pattern.test(url.hostname)) return preset;
	return PORT_PRESETS[url.port];
}

/** Full flags for a provider name or base URL: the defaults plus the matching preset. */
export function compatFor(baseUrlOrProvider: string | undefined): OpenAICompletionsCompat {
	const preset = baseUrlOrProvider === undefined ? undefined : presetNameFor(baseUrlOrProvider);
	return { ...DEFAULT_COMPAT, ...(preset ? COMPAT_PRESETS[preset] : {}) };
}

/**
 * The flags for `model`: the preset named by `compat.preset`, else the one its `baseUrl` points at (the
 * server actually spoken to: a known host, or a local server's default port), else the one its `provider`
 * names, else OpenAI's when there is no base URL (the default endpoint); then every well-typed flag of
 * `model.compat` on top (`null` clears `reasoningField` / `reasoningEffortOff`). An ill-typed flag is
 * ignored rather than sent.
 */
export function resolveCompat(model: Model): OpenAICompletionsCompat {
	const own = model.compat ?? {};
	const explicit = typeof own.preset === "string" && isPresetName(own.preset) ? own.preset : undefined;
	const preset =
		explicit ??
		(model.baseUrl === undefined ? undefined : presetNameFor(model.baseUrl)) ??
		presetNameFor(model.provider) ??
		(model.baseUrl === undefined ? "openai" : undefined);
	const base: OpenAICompletionsCompat = { ...DEFAULT_COMPAT, ...(preset ? COMPAT_PRESETS[preset] : {}) };
	const merged: Record<string, unknown> = { ...base };
	for (const key of Object.keys(DEFAULT_COMPAT) as (keyof OpenAICompletionsCompat)[]) {
		const value = own[key];
		if (value === undefined) continue;
		const optional = key === "reasoningEffortOff" || key === "reasoningField";
		// `null` clears an optional flag (a preset's value cannot be removed with `undefined` in JSON).
		if (optional && value === null) merged[key] = undefined;
		else if (
			key === "reasoningEffortLevels"
				? Array.isArray(value)
				: typeof value === (optional ? "string" : typeof base[key])
		)
			merged[key] = value;
	}
	return merged as unknown as OpenAICompletionsCompat;
}
