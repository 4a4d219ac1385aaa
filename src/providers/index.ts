/**
 * `capstan/providers`: one `stream(model, context, options)` dispatching on `model.api` through the explicit
 * registry, the model catalog, `openaiCompatible(...)` for any OpenAI-compatible server, and the shared
 * scaffolding for writing a provider of your own.
 */

export * from "./base/index.js";
export { DEFAULT_BASE_URLS, getModel, listModels, MODELS } from "./models.js";
export {
	LOCAL_SERVER_BASE_URLS,
	type LocalServerPreset,
	type OpenAICompatibleCompat,
	type OpenAICompatibleConfig,
	type OpenAICompatibleOptions,
	openaiCompatible,
} from "./openai-completions/compatible.js";
export {
	builtinProviders,
	createProviderRegistry,
	getDefaultRegistry,
	type ProviderRegistry,
	stream,
} from "./registry.js";
