/**
 * `capstan/providers`: one `stream(model, context, options)` dispatching on `model.api` through the explicit
 * registry, the model catalog, and the shared scaffolding for writing a provider of your own.
 */

export * from "./base/index.js";
export { DEFAULT_BASE_URLS, getModel, listModels, MODELS } from "./models.js";
export {
	builtinProviders,
	createProviderRegistry,
	getDefaultRegistry,
	type ProviderRegistry,
	stream,
} from "./registry.js";
