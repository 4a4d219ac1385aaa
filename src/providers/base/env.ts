/**
 * API keys: found in the environment (read through `globalThis.process?.env` so providers carry no `node:`
 * import and run unchanged on Bun, Deno, edge runtimes and browsers, where there is simply no environment).
 * `redact.ts` keeps them out of error texts (rule E3).
 */
import type { Model } from "../../core/model.js";

/** Environment variables consulted per provider name, in order. */
export const API_KEY_ENV_VARS: Readonly<Record<string, readonly string[]>> = {
	anthropic: ["ANTHROPIC_API_KEY"],
	openai: ["OPENAI_API_KEY"],
	google: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"],
	groq: ["GROQ_API_KEY"],
	xai: ["XAI_API_KEY"],
	deepseek: ["DEEPSEEK_API_KEY"],
	mistral: ["MISTRAL_API_KEY"],
	openrouter: ["OPENROUTER_API_KEY"],
	cerebras: ["CEREBRAS_API_KEY"],
	together: ["TOGETHER_API_KEY"],
	fireworks: ["FIREWORKS_API_KEY"],
	perplexity: ["PERPLEXITY_API_KEY"],
	alibaba: ["DASHSCOPE_API_KEY"],
};

/** Read one environment variable if the runtime has an environment. */
export function readEnv(name: string): string | undefined {
	const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
	const value = env?.[name];
	return value === undefined || value === "" ? undefined : value;
}

/**
 * The API key for a call: `options.apiKey` wins, then `model.compat.apiKeyEnv` (a variable name), then the
 * provider's usual variables from {@link API_KEY_ENV_VARS}.
 */
export function resolveApiKey(model: Model, explicit?: string): string | undefined {
	if (explicit) return explicit;
	const custom = model.compat?.apiKeyEnv;
	if (typeof custom === "string") {
		const value = readEnv(custom);
		if (value) return value;
	}
	for (const name of API_KEY_ENV_VARS[model.provider] ?? []) {
		const value = readEnv(name);
		if (value) return value;
	}
	return undefined;
}

/**
 * The environment variables that may hold the key for `model` (`compat.apiKeyEnv` first), joined with "or";
 * `""` when none is known for its provider.
 */
export function apiKeyEnvHint(model: Model): string {
	const custom = model.compat?.apiKeyEnv;
	const names = [
		...(typeof custom === "string" ? [custom] : []),
		...(API_KEY_ENV_VARS[model.provider] ?? []),
	];
	return names.join(" or ");
}
