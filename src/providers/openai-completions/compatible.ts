/**
 * One call to talk to any OpenAI-compatible Chat Completions server (Ollama, llama.cpp `llama-server`, vLLM,
 * LM Studio, or a hosted one), keyless where the server needs no key.
 *
 * Shape: it returns `{ model, getApiKey? }`, the two `Agent` (and `agentLoop`) options that matter, so
 * `new Agent({ ...openaiCompatible({ baseUrl, model }), tools })` reads as one line and the default registry
 * stream does the rest. The key is not in the `Model`: a model is plain data that lands in `agent.state`,
 * transcripts and logs, so a given `apiKey` travels only inside the `getApiKey` closure (which JSON drops).
 */
import type { Model, ModelCost } from "../../core/model.js";
import {
	COMPAT_PRESETS,
	type CompatPresetName,
	type OpenAICompletionsCompat,
	presetNameFor,
	type ReasoningEffortValue,
	type ReasoningField,
} from "./compat.js";
import { OPENAI_COMPLETIONS_API } from "./request.js";

/** Where each local server listens by default (its OpenAI-compatible API is under `/v1`). */
export const LOCAL_SERVER_BASE_URLS = {
	ollama: "http://localhost:11434/v1",
	llamacpp: "http://localhost:8080/v1",
	vllm: "http://localhost:8000/v1",
	lmstudio: "http://localhost:1234/v1",
} as const satisfies Partial<Record<CompatPresetName, string>>;

/** The local servers with a default base URL. */
export type LocalServerPreset = keyof typeof LOCAL_SERVER_BASE_URLS;

/**
 * Compat flags to change on top of the preset; `null` clears an optional flag the preset sets (e.g. a server
 * that takes no reasoning back: `reasoningField: null`).
 */
export type OpenAICompatibleCompat = Partial<
	Omit<OpenAICompletionsCompat, "reasoningField" | "reasoningEffortOff">
> & {
	reasoningField?: ReasoningField | null;
	reasoningEffortOff?: ReasoningEffortValue | null;
	/**
	 * Image MIME types the server takes, replacing OpenAI's (`image/png`, `image/jpeg`, `image/webp`,
	 * `image/gif`); an image of another type is sent as a short text saying it was left out.
	 */
	imageMimeTypes?: readonly string[];
};

/** Options of {@link openaiCompatible}. Only `model` is required, plus `baseUrl` unless `preset` is local. */
export interface OpenAICompatibleOptions {
	/**
	 * The server's API root, including its prefix: `http://localhost:11434/v1` (requests go to
	 * `{baseUrl}/chat/completions`; a pasted `.../chat/completions` is trimmed). Default: the local `preset`'s.
	 */
	baseUrl?: string;
	/** The model id as the server knows it (`qwen3:8b`, the `--served-model-name`, LM Studio's model key). */
	model: string;
	/** Sent as `Authorization: Bearer <key>`. Absent: no header, and no "missing key" error. */
	apiKey?: string;
	/** Name of an environment variable holding the key (e.g. `VLLM_API_KEY`); read at every call. */
	apiKeyEnv?: string;
	/**
	 * The wire quirks: `ollama`, `llamacpp`, `vllm`, `lmstudio` or a hosted one (`openrouter`, `groq`, …).
	 * Default: found from the base URL (a known host, or a local server's default port), else none (the most
	 * widely accepted subset of the API).
	 */
	preset?: CompatPresetName;
	/** The provider label on replies, in telemetry and for `getApiKey(provider)`. Default: the preset, else `"openai-compatible"`. */
	provider?: string;
	/** Display name. */
	name?: string;
	/** Context window in tokens, for the host's own bookkeeping. Default 32768. */
	contextWindow?: number;
	/**
	 * Output-token cap sent on every request that sets no `maxTokens` of its own (the model's
	 * `compat.defaultMaxTokens` and `maxTokens`). Default 0: none sent, the server's own limit applies.
	 */
	maxTokens?: number;
	/** The model reasons (thinking levels are sent where the preset supports an effort). Default false. */
	reasoning?: boolean;
	/** Input kinds the model takes. Default `["text"]`. */
	input?: ("text" | "image")[];
	/** Per-million-token prices. Default all zero (a local model costs nothing per token). */
	cost?: ModelCost;
	/** Extra HTTP headers sent with every request (no secrets: they are part of the model's data). */
	headers?: Record<string, string>;
	/** Compat flags to change on top of the preset. */
	compat?: OpenAICompatibleCompat;
}

/** What {@link openaiCompatible} returns: spread it into `new Agent({ ... })` or an `agentLoop` config. */
export interface OpenAICompatibleConfig {
	/** A Chat Completions model pointed at the server. Plain data without the key. */
	model: Model;
	/**
	 * Present only when `apiKey` was given: returns it for this model's provider label and `undefined` for
	 * any other, so a later `setModel` to another provider never receives this key.
	 */
	getApiKey?: (provider: string) => string | undefined;
}

const DEFAULT_CONTEXT_WINDOW = 32_768;
const FREE: ModelCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/**
 * Everything an Agent needs to talk to an OpenAI-compatible Chat Completions server, in one call. The compat
 * preset comes from `preset` or the base URL; a server given no `apiKey` (or `apiKeyEnv`) gets no
 * `Authorization` header and no "missing key" error, except a hosted preset, whose key may still come from its
 * usual environment variable. Throws a `TypeError` naming the problem on an unusable base URL or option.
 *
 * @example
 * ```ts
 * const agent = new Agent({ ...openaiCompatible({ baseUrl: "http://localhost:11434/v1", model: "qwen3:8b" }), tools });
 * const vllm = openaiCompatible({ preset: "vllm", model: "Qwen/Qwen3-8B", apiKey: "token-abc123" });
 * ```
 */
export function openaiCompatible(options: OpenAICompatibleOptions): OpenAICompatibleConfig {
	if (typeof options !== "object" || options === null)
		throw new TypeError('openaiCompatible: pass an options object, e.g. { baseUrl, model: "qwen3:8b" }');
	if (typeof options.model !== "string" || options.model.trim() === "")
		throw new TypeError(
			"openaiCompatible: `model` must be the model id the server serves (e.g. qwen3:8b), got " +
				shown(options.model),
		);
	const baseUrl = checkedBaseUrl(options);
	const preset = options.preset ?? presetNameFor(baseUrl);
	const provider = options.provider ?? preset ?? "openai-compatible";
	const hasKey = nonEmpty(options.apiKey) || nonEmpty(options.apiKeyEnv);
	const hosted = preset !== undefined && COMPAT_PRESETS[preset].requiresApiKey !== false;
	const maxTokens = tokenCount("maxTokens", options.maxTokens, 0);
	const compat: Record<string, unknown> = {
		...(preset === undefined ? {} : { preset }),
		...(nonEmpty(options.apiKeyEnv) ? { apiKeyEnv: options.apiKeyEnv } : {}),
		...(maxTokens > 0 ? { defaultMaxTokens: maxTokens } : {}),
		...options.compat,
		// A key given (or a hosted server, whose key comes from its variable) is required: a lost key then fails
		// before sending, with advice, instead of as the server's 401.
		requiresApiKey: options.compat?.requiresApiKey ?? (hasKey || hosted),
	};
	const model: Model = {
		id: options.model,
		api: OPENAI_COMPLETIONS_API,
		provider,
		baseUrl,
		reasoning: options.reasoning ?? false,
		input: options.input ? [...options.input] : ["text"],
		contextWindow: tokenCount("contextWindow", options.contextWindow, DEFAULT_CONTEXT_WINDOW),
		maxTokens,
		cost: { ...(options.cost ?? FREE) },
		compat,
		...(options.name === undefined ? {} : { name: options.name }),
		...(options.headers ? { headers: { ...options.headers } } : {}),
	};
	const key = options.apiKey;
	if (!nonEmpty(key)) return { model };
	return { model, getApiKey: (asked) => (asked === provider ? key : undefined) };
}

function isLocal(preset: CompatPresetName): preset is LocalServerPreset {
	return Object.hasOwn(LOCAL_SERVER_BASE_URLS, preset);
}

/** The base URL to use: given or the local preset's, absolute http(s), without trailing `/` or endpoint. */
function checkedBaseUrl(options: OpenAICompatibleOptions): string {
	const given = options.baseUrl;
	if (given === undefined) {
		if (options.preset !== undefined && isLocal(options.preset))
			return LOCAL_SERVER_BASE_URLS[options.preset];
		throw new TypeError(
			'openaiCompatible: `baseUrl` is required (e.g. "http://localhost:11434/v1"), unless `preset` is one of ' +
				Object.keys(LOCAL_SERVER_BASE_URLS).join(", "),
		);
	}
	let url: URL | undefined;
	try {
		url = typeof given === "string" ? new URL(given) : undefined;
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
		throw new TypeError(
			`openaiCompatible: \`baseUrl\` must be an absolute http(s) URL such as "http://localhost:11434/v1", got ${shown(given)}`,
		);
	return given.replace(/\/+$/, "").replace(/\/chat\/completions$/, "");
}

function tokenCount(name: string, value: number | undefined, fallback: number): number {
	if (value === undefined) return fallback;
	if (!Number.isInteger(value) || value < 0)
		throw new TypeError(
			`openaiCompatible: \`${name}\` must be a whole number of tokens ≥ 0, got ${shown(value)}`,
		);
	return value;
}

function nonEmpty(value: string | undefined): value is string {
	return typeof value === "string" && value !== "";
}

function shown(value: unknown): string {
	return typeof value === "string" ? JSON.stringify(value) : String(value);
}
