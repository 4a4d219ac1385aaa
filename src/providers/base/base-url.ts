/**
 * Where a provider sends its requests when the model names no `baseUrl`: the default of the model's own
 * `api` (a model may carry a dialect's api while a provider serves it), else the provider's own default.
 */
import type { Model } from "../../core/model.js";
import { DEFAULT_BASE_URLS } from "../models.js";

/** `model.baseUrl`, else the default base URL of `model.api`, else that of `ownApi`, else `""`. */
export function resolveBaseUrl(model: Model, ownApi: string): string {
	return model.baseUrl ?? DEFAULT_BASE_URLS[model.api] ?? DEFAULT_BASE_URLS[ownApi] ?? "";
}
