/**
 * A small, hand-kept catalog of current Anthropic, OpenAI and Google models: context window, max
 * output, reasoning support and per-million prices (USD) for input / output / cache read / cache write.
 * Checked against the vendors' model and pricing pages in November 2026; the Claude 5.x and GPT-6 entries again
 * on 2026-12-07. Prices are each vendor's base (shortest-prompt) tier. Any model not listed here works
 * from an explicit `Model` object; this catalog is a convenience, not a gate.
 *
 * Compat flags used here (read by the providers, never `if (provider === ...)`):
 * - `thinkingMode: "adaptive" | "budget"` — Anthropic reasoning control: adaptive thinking + effort, or a
 *   manual `budget_tokens` (rule X5).
 * - `thinkingAlwaysOn: true` — the model always thinks; `thinkingLevel: "off"` cannot disable it.
 * - `effortLevels: string[]` — effort values the model accepts (clamping target for rule X5).
 * - `supportsTemperature: true` — the model still takes `temperature` (current Anthropic models do not).
 * - `rejectsForcedToolChoice: true` — the model errors on a forced tool choice (Claude Opus 5.5, Sonnet 5.5,
 *   Fable 5.1); a `required` or named choice is sent as `auto` instead.
 * - `supportsAutomaticCaching: false` — an Anthropic-compatible server without top-level `cache_control`
 *   (automatic caching): with a context manager the tail breakpoint goes on the last block instead (rule X2).
 */
import type { KnownApi, Model, ModelCompat, ModelCost } from "../core/model.js";

const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
const OPENAI_BASE_URL = "https://api.openai.com/v1";
const GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

function price(input: number, output: number, cacheRead: number, cacheWrite: number): ModelCost {
	return { input, output, cacheRead, cacheWrite };
}

/**
 * Anthropic prices: 5-minute cache writes cost 1.25× input; cache reads cost 0.1× input unless the model's
 * pricing gives its own rate (`cacheRead`).
 */
function anthropicPrice(input: number, output: number, cacheRead = input / 10): ModelCost {
	return price(input, output, cacheRead, input * 1.25);
}

interface Entry {
	id: string;
	name: string;
	reasoning: boolean;
	contextWindow: number;
	maxTokens: number;
	cost: ModelCost;
	compat?: ModelCompat;
}

const ADAPTIVE: ModelCompat = {
	thinkingMode: "adaptive",
	effortLevels: ["low", "medium", "high", "xhigh", "max"],
};
/** Claude Opus 5.5 and Fable 5.1: thinking cannot be disabled, and forced tool use is an error. */
const ADAPTIVE_ALWAYS_ON: ModelCompat = {
	...ADAPTIVE,
	thinkingAlwaysOn: true,
	rejectsForcedToolChoice: true,
};
const BUDGET: ModelCompat = { thinkingMode: "budget" };

const ANTHROPIC: Entry[] = [
	{
		id: "claude-fable-5-1",
		name: "Claude Fable 5.1",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		// Cache reads are 0.025× input on Fable 5.1 (platform.claude.com/docs/en/about-claude/pricing).
		cost: anthropicPrice(10, 50, 0.25),
		compat: ADAPTIVE_ALWAYS_ON,
	},
	{
		id: "claude-opus-5-5",
		name: "Claude Opus 5.5",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		// Cache reads are 0.05× input on Opus 5.5 (platform.claude.com/docs/en/models/opus-5-5/overview).
		cost: anthropicPrice(4, 20, 0.2),
		compat: ADAPTIVE_ALWAYS_ON,
	},
	{
		id: "claude-sonnet-5-5",
		name: "Claude Sonnet 5.5",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		cost: anthropicPrice(2, 10),
		compat: { ...ADAPTIVE, rejectsForcedToolChoice: true },
	},
	{
		id: "claude-opus-5",
		name: "Claude Opus 5",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		cost: anthropicPrice(5, 25),
		compat: ADAPTIVE,
	},
	{
		id: "claude-sonnet-5",
		name: "Claude Sonnet 5",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		cost: anthropicPrice(2, 10),
		compat: ADAPTIVE,
	},
	{
		id: "claude-opus-4-6",
		name: "Claude Opus 4.6",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		cost: anthropicPrice(5, 25),
		compat: { thinkingMode: "adaptive", effortLevels: ["low", "medium", "high", "max"] },
	},
	{
		id: "claude-sonnet-4-6",
		name: "Claude Sonnet 4.6",
		reasoning: true,
		contextWindow: 1_000_000,
		maxTokens: 128_000,
		cost: anthropicPrice(3, 15),
		compat: { thinkingMode: "adaptive", effortLevels: ["low", "medium", "high", "max"] },
	},
	{
		id: "claude-sonnet-4-5",
		name: "Claude Sonnet 4.5",
		reasoning: true,
		contextWindow: 200_000,
		maxTokens: 64_000,
		cost: anthropicPrice(3, 15),
		compat: BUDGET,
	},
	{
		id: "claude-haiku-4-5",
		name: "Claude Haiku 4.5",
		reasoning: true,
		contextWindow: 200_000,
		maxTokens: 64_000,
		cost: anthropicPrice(1, 5),
		compat: BUDGET,
	},
];

/** `reasoning.effort` values per OpenAI model family (rule X5 clamping; read by the Responses provider). */
const OPENAI_EFFORT_NONE_TO_XHIGH: ModelCompat = { effortLevels: ["none", "low", "medium", "high", "xhigh"] };
const OPENAI_EFFORT_MINIMAL_TO_HIGH: ModelCompat = { effortLevels: ["minimal", "low", "medium", "high"] };
/** GPT-6.2 rejects `none`: `off` clamps to `low` (rule X5). */
const OPENAI_EFFORT_LOW_TO_MAX: ModelCompat = { effortLevels: ["low", "medium", "high", "xhigh", "max"] };
const OPENAI_EFFORT_NONE_TO_MAX: ModelCompat = {
	effortLevels: ["none", "low", "medium", "high", "xhigh", "max"],
};

/**
 * OpenAI prices for prompts up to 272K input tokens (longer requests cost 2× input and cache, 1.5× output);
 * `cacheWrite` is the 30-minute cache write, where the model's page lists one.
 */
const OPENAI: Entry[] = [
	{
		id: "gpt-6.2-sol",
		name: "GPT-6.2 Sol",
		reasoning: true,
		contextWindow: 1_050_000,
		maxTokens: 128_000,
		cost: price(2, 10, 0.1, 2.5),
		compat: OPENAI_EFFORT_LOW_TO_MAX,
	},
	{
		id: "gpt-6.1-terra",
		name: "GPT-6.1 Terra",
		reasoning: true,
		contextWindow: 1_050_000,
		maxTokens: 128_000,
		cost: price(1, 5, 0.05, 1.25),
		compat: OPENAI_EFFORT_NONE_TO_MAX,
	},
	{
		id: "gpt-6-luna",
		name: "GPT-6 Luna",
		reasoning: true,
		contextWindow: 1_050_000,
		maxTokens: 128_000,
		cost: price(0.1, 0.5, 0.01, 0.125),
		compat: OPENAI_EFFORT_NONE_TO_MAX,
	},
	{
		id: "gpt-5.4",
		name: "GPT-5.4",
		reasoning: true,
		contextWindow: 1_050_000,
		maxTokens: 128_000,
		cost: price(2.5, 15, 0.25, 0),
		compat: OPENAI_EFFORT_NONE_TO_XHIGH,
	},
	{
		id: "gpt-5.4-mini",
		name: "GPT-5.4 mini",
		reasoning: true,
		contextWindow: 400_000,
		maxTokens: 128_000,
		cost: price(0.75, 4.5, 0.075, 0),
		compat: OPENAI_EFFORT_NONE_TO_XHIGH,
	},
	{
		id: "gpt-5.2",
		name: "GPT-5.2",
		reasoning: true,
		contextWindow: 400_000,
		maxTokens: 128_000,
		cost: price(1.75, 14, 0.175, 0),
		compat: OPENAI_EFFORT_NONE_TO_XHIGH,
	},
	{
		id: "gpt-5",
		name: "GPT-5",
		reasoning: true,
		contextWindow: 400_000,
		maxTokens: 128_000,
		cost: price(1.25, 10, 0.125, 0),
		compat: OPENAI_EFFORT_MINIMAL_TO_HIGH,
	},
	{
		id: "gpt-5-mini",
		name: "GPT-5 mini",
		reasoning: true,
		contextWindow: 400_000,
		maxTokens: 128_000,
		cost: price(0.25, 2, 0.025, 0),
		compat: OPENAI_EFFORT_MINIMAL_TO_HIGH,
	},
	{
		id: "gpt-4.1",
		name: "GPT-4.1",
		reasoning: false,
		contextWindow: 1_047_576,
		maxTokens: 32_768,
		cost: price(2, 8, 0.5, 0),
	},
];

/**
 * Gemini 3 validates thought signatures on the current turn's function calls; calls from another model
 * carry none, so they get Google's documented placeholder.
 */
const GEMINI_3: ModelCompat = { toolCallSignaturePlaceholder: "skip_thought_signature_validator" };

const GOOGLE: Entry[] = [
	{
		id: "gemini-3.1-pro-preview",
		name: "Gemini 3.1 Pro (preview)",
		reasoning: true,
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: price(2, 12, 0.2, 0),
		compat: { ...GEMINI_3, thinkingLevels: ["low", "medium", "high"] },
	},
	{
		id: "gemini-3-flash-preview",
		name: "Gemini 3 Flash (preview)",
		reasoning: true,
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: price(0.5, 3, 0.05, 0),
		compat: { ...GEMINI_3, thinkingLevels: ["minimal", "low", "medium", "high"] },
	},
	{
		id: "gemini-3.1-flash-lite",
		name: "Gemini 3.1 Flash-Lite",
		reasoning: true,
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: price(0.25, 1.5, 0.025, 0),
		compat: { ...GEMINI_3, thinkingLevels: ["minimal", "low", "medium", "high"] },
	},
	{
		id: "gemini-2.5-pro",
		name: "Gemini 2.5 Pro",
		reasoning: true,
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: price(1.25, 10, 0.125, 0),
		compat: { thinkingAlwaysOn: true, maxThinkingBudget: 32_768 },
	},
	{
		id: "gemini-2.5-flash",
		name: "Gemini 2.5 Flash",
		reasoning: true,
		contextWindow: 1_048_576,
		maxTokens: 65_536,
		cost: price(0.3, 2.5, 0.03, 0),
		compat: { maxThinkingBudget: 24_576 },
	},
];

function toModels(entries: Entry[], provider: string, api: KnownApi, baseUrl: string): Record<string, Model> {
	const models: Record<string, Model> = {};
	for (const entry of entries) {
		const model: Model = {
			id: entry.id,
			name: entry.name,
			api,
			provider,
			baseUrl,
			reasoning: entry.reasoning,
			input: ["text", "image"],
			contextWindow: entry.contextWindow,
			maxTokens: entry.maxTokens,
			cost: entry.cost,
		};
		if (entry.compat) model.compat = entry.compat;
		models[entry.id] = model;
	}
	return models;
}

/** The catalog: provider name → model id → `Model`. Treat as read-only; copy before changing a model. */
export const MODELS: Readonly<Record<string, Readonly<Record<string, Model>>>> = {
	anthropic: toModels(ANTHROPIC, "anthropic", "anthropic-messages", ANTHROPIC_BASE_URL),
	openai: toModels(OPENAI, "openai", "openai-responses", OPENAI_BASE_URL),
	google: toModels(GOOGLE, "google", "google-generative-ai", GOOGLE_BASE_URL),
};

/** Default base URL per wire API, used when a `Model` has no `baseUrl`. */
export const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
	"anthropic-messages": ANTHROPIC_BASE_URL,
	"openai-completions": OPENAI_BASE_URL,
	"openai-responses": OPENAI_BASE_URL,
	"google-generative-ai": GOOGLE_BASE_URL,
};

/**
 * A catalog model by provider and id, as a fresh copy. Throws a clear error for an unknown provider or id
 * (a programming error at setup time, not a provider failure); use an explicit `Model` object for any model
 * the catalog does not list.
 */
export function getModel(provider: string, id: string): Model {
	const models = MODELS[provider];
	if (!models) {
		throw new Error(
			`Unknown provider "${provider}" (catalog: ${Object.keys(MODELS).join(", ")}). Pass an explicit Model object for other providers, or for an OpenAI-compatible server use openaiCompatible({ baseUrl, model }) from "capstan/openai".`,
		);
	}
	const model = models[id];
	if (!model) {
		throw new Error(
			`Unknown ${provider} model "${id}" (catalog: ${Object.keys(models).join(", ")}). Pass an explicit Model object for other models.`,
		);
	}
	return structuredClone(model);
}

/** Every catalog model of a provider (fresh copies), or of all providers. */
export function listModels(provider?: string): Model[] {
	const providers = provider === undefined ? Object.keys(MODELS) : [provider];
	return providers.flatMap((name) =>
		Object.values(MODELS[name] ?? {}).map((model) => structuredClone(model)),
	);
}
