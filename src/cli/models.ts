/**
 * Which model the command talks to. In order: `--base-url` (an OpenAI-compatible server, or a catalog
 * model sent to another address when `--model provider/id` names one), `--model provider/id` from the
 * catalog, then the first provider whose key is in the environment (ANTHROPIC → OPENAI → GEMINI/GOOGLE),
 * and with none of these the scripted demo. Keys are only ever read from the environment or `--api-key`, and
 * an `--api-key` key only goes to the server of the model it was given with ({@link keyFor}).
 */
import type { Model } from "../core/model.js";
import { API_KEY_ENV_VARS, resolveApiKey } from "../providers/base/env.js";
import { redactSecrets, requestCredentials } from "../providers/base/redact.js";
import { fetchSameOrigin } from "../providers/base/redirects.js";
import { getModel, MODELS } from "../providers/models.js";
import { openaiCompatible } from "../providers/openai-completions/compatible.js";
import { isHttpUrl } from "./config.js";

/**
 * Default model per provider when the environment picks it, in auto-pick order. Anthropic's: the model its
 * models overview says to start with for most workloads (Claude Opus 5.5).
 */
export const AUTO_PICK: readonly { provider: string; id: string }[] = [
	{ provider: "anthropic", id: "claude-opus-5-5" },
	{ provider: "openai", id: "gpt-5-mini" },
	{ provider: "google", id: "gemini-2.5-flash" },
];

/** Context window assumed for a `--base-url` model when the settings give none. */
export const DEFAULT_LOCAL_CONTEXT_WINDOW = 32_768;

/** What model resolution needs to know. */
export interface ModelRequest {
	model?: string | undefined;
	baseUrl?: string | undefined;
	apiKey?: string | undefined;
	apiKeyEnv?: string | undefined;
	contextWindow?: number | undefined;
	/** Force the scripted demo. */
	demo?: boolean;
	/**
	 * `baseUrl` came only from a project's settings: no key goes to it (neither `apiKey`, `apiKeyEnv` nor a
	 * catalog provider's variable). A hosted preset's own variable still goes to that vendor's own host.
	 */
	keyless?: boolean;
}

/** The outcome: a real model, or the scripted demo with the reason it runs. */
export type ModelChoice = { kind: "real"; model: Model } | { kind: "scripted"; reason: string };

/** A model that cannot be used as asked: exit code 2 with this text. */
export class ModelError extends Error {
	override readonly name = "ModelError";
}

/** The reason printed when no model is configured. */
export const NO_KEY_NOTICE =
	"scripted demo — no API key found; set ANTHROPIC_API_KEY/OPENAI_API_KEY/GEMINI_API_KEY or --base-url for a real model";

/** Resolve the model. May ask a `--base-url` server for its model list when no id is given. */
export async function resolveModel(request: ModelRequest): Promise<ModelChoice> {
	if (request.demo)
		return { kind: "scripted", reason: "scripted demo (--demo): the loop on a scripted model" };
	if (request.baseUrl !== undefined)
		return { kind: "real", model: await maskedErrors(baseUrlModel(request), request) };
	if (request.model !== undefined) {
		const model = catalogModel(request.model);
		requireKey(model, request.apiKey);
		return { kind: "real", model };
	}
	for (const pick of AUTO_PICK) {
		const model = getModel(pick.provider, pick.id);
		// Only the environment picks: an --api-key alone does not say which provider it is for.
		if (resolveApiKey(model) !== undefined) return { kind: "real", model };
	}
	if (request.apiKey !== undefined)
		throw new ModelError("--api-key needs --model provider/id (or --base-url) to say where it goes");
	return { kind: "scripted", reason: NO_KEY_NOTICE };
}

/** `provider/id`, or a bare id found in exactly one provider's catalog. */
export function catalogModel(spec: string): Model {
	const slash = spec.indexOf("/");
	if (slash > 0) {
		const provider = spec.slice(0, slash);
		const id = spec.slice(slash + 1);
		// Said here for a command line: getModel's own text advises passing a Model object, which a flag cannot.
		const models = MODELS[provider];
		if (models === undefined)
			throw new ModelError(
				`unknown provider "${provider}" in "${spec}": the catalog has ${Object.keys(MODELS).join(", ")}; --base-url for another server`,
			);
		if (models[id] === undefined)
			throw new ModelError(
				`unknown ${provider} model "${id}": the catalog has ${Object.keys(models).join(", ")}; --base-url for another server`,
			);
		return getModel(provider, id);
	}
	const owners = Object.keys(MODELS).filter((provider) => MODELS[provider]?.[spec] !== undefined);
	const [owner] = owners;
	if (owners.length === 1 && owner !== undefined) return getModel(owner, spec);
	throw new ModelError(
		owners.length > 1
			? `model "${spec}" is in several catalogs (${owners.join(", ")}): write provider/${spec}`
			: `unknown model "${spec}": use provider/id from ${catalogSpecs().slice(0, 6).join(", ")}, … or --base-url for another server`,
	);
}

/** Every catalog model as `provider/id`. */
export function catalogSpecs(): string[] {
	return Object.entries(MODELS).flatMap(([provider, models]) =>
		Object.keys(models).map((id) => `${provider}/${id}`),
	);
}

/** Throw a clear error when a model's key is missing (a keyless local server is fine). */
export function requireKey(model: Model, apiKey: string | undefined): void {
	if (model.compat?.requiresApiKey === false) return;
	if (resolveApiKey(model, apiKey) !== undefined) return;
	const vars = API_KEY_ENV_VARS[model.provider] ?? [];
	throw new ModelError(
		`no API key for ${model.provider}/${model.id}: set ${vars.join(" or ") || "its key variable"} in the environment`,
	);
}

/** `provider/id` for a model. */
export function modelSpec(model: Model): string {
	return `${model.provider}/${model.id}`;
}

/**
 * An `--api-key` key and the server of the model it was given with. It is sent only to that server (same
 * provider, same base URL): a model switched to on another server uses that provider's own variable, so the
 * key never reaches a provider it was not meant for.
 */
export interface ScopedKey {
	key: string;
	provider: string;
	baseUrl: string | undefined;
}

/** The scoped key for a request to `model`, or undefined when the model is on another server. */
export function keyFor(scoped: ScopedKey | undefined, model: Model): string | undefined {
	if (scoped === undefined) return undefined;
	return scoped.provider === model.provider && scoped.baseUrl === model.baseUrl ? scoped.key : undefined;
}

/** Where `/model` and RPC `setModel` can switch to: the current model and the `--base-url` server's. */
export interface ModelPlaces {
	current: Model;
	/** The last model used on the `--base-url` server (undefined without one). */
	server: Model | undefined;
}

/**
 * The model a switch to `spec` means. With a `--base-url` server: `<its provider>/<id>` (the spelling
 * `listModels` shows) is that server's model of that id; so is a bare id while the current model is on the
 * server, and any spec the catalog does not know, so server ids with slashes (`qwen/qwen3-8b`, `hf.co/…`)
 * work; otherwise a catalog `provider/id` or bare id is the catalog model. Throws ModelError when nothing fits.
 */
export function switchModel(spec: string, places: ModelPlaces): Model {
	const { current, server } = places;
	if (server === undefined) return catalogModel(spec);
	const label = `${server.provider}/`;
	if (spec.startsWith(label) && spec.length > label.length)
		return serverModel(server, spec.slice(label.length));
	if (!spec.includes("/") && onSameServer(current, server)) return serverModel(server, spec);
	try {
		return catalogModel(spec);
	} catch {
		return serverModel(server, spec);
	}
}

/** Whether two models go to the same server (the same provider label at the same base URL). */
export function onSameServer(a: Model, b: Model): boolean {
	return a.provider === b.provider && a.baseUrl === b.baseUrl;
}

/** The server's model of `id`: a catalog model sent there keeps its catalog data, any other id the server's. */
function serverModel(server: Model, id: string): Model {
	if (id === server.id) return server;
	const address = server.baseUrl === undefined ? {} : { baseUrl: server.baseUrl };
	if (MODELS[server.provider]?.[id] !== undefined) return { ...getModel(server.provider, id), ...address };
	return { ...server, id, name: id };
}

async function baseUrlModel(request: ModelRequest): Promise<Model> {
	const baseUrl = (request.baseUrl ?? "").replace(/\/+$/, "");
	if (!isHttpUrl(baseUrl))
		throw new ModelError(
			`--base-url must be an http:// or https:// URL, as in http://localhost:11434/v1 (got "${baseUrl}")`,
		);
	const spec = request.model;
	const slash = spec?.indexOf("/") ?? -1;
	// `--model anthropic/claude-…` with a base URL: the catalog model (its wire API) at another address.
	if (spec !== undefined && slash > 0 && MODELS[spec.slice(0, slash)] !== undefined) {
		if (request.keyless)
			throw new ModelError(
				`${baseUrl} is named only by the project's capstan.json, and ${spec} would be sent your ${spec.slice(0, slash)} key there: pass --base-url ${baseUrl} (or set baseUrl in your own settings) to use that server with your key`,
			);
		const model = { ...catalogModel(spec), baseUrl };
		requireKey(model, request.apiKey);
		return model;
	}
	if (request.keyless && request.apiKey !== undefined)
		throw new ModelError(
			`--api-key would go to ${baseUrl}, which only the project's capstan.json names: pass --base-url ${baseUrl} to send it there`,
		);
	const id = spec ?? (await firstServerModel(baseUrl, request));
	try {
		// Keyless unless a key is given or the host is a hosted preset (then its usual variable).
		return openaiCompatible({
			baseUrl,
			model: id,
			...(request.apiKey === undefined ? {} : { apiKey: request.apiKey }),
			...(request.apiKeyEnv === undefined || request.keyless ? {} : { apiKeyEnv: request.apiKeyEnv }),
			contextWindow: request.contextWindow ?? DEFAULT_LOCAL_CONTEXT_WINDOW,
		}).model;
	} catch (error) {
		throw new ModelError(`--base-url ${baseUrl}: ${(error as Error).message}`);
	}
}

/**
 * `resolving`, whose errors show `--base-url` with its credentials masked (rule E3): the messages name the
 * server, and fetch quotes a URL with a password whole.
 */
async function maskedErrors(resolving: Promise<Model>, request: ModelRequest): Promise<Model> {
	try {
		return await resolving;
	} catch (error) {
		if (!(error instanceof ModelError)) throw error;
		const key = request.apiKey ?? (request.apiKeyEnv ? process.env[request.apiKeyEnv] : undefined);
		throw new ModelError(redactSecrets(error.message, [key, ...requestCredentials(request.baseUrl, [])]));
	}
}

/** `baseUrl` as shown to a person: its password and credential query values masked. */
export function shownBaseUrl(baseUrl: string): string {
	return redactSecrets(baseUrl, requestCredentials(baseUrl, []));
}

/** Ask an OpenAI-compatible server (`GET /models`) which model it serves; Ollama and LM Studio need one named. */
async function firstServerModel(baseUrl: string, request: ModelRequest): Promise<string> {
	const headers: Record<string, string> = {};
	const key = request.keyless
		? undefined
		: (request.apiKey ?? (request.apiKeyEnv ? process.env[request.apiKeyEnv] : undefined));
	if (key) headers.authorization = `Bearer ${key}`;
	try {
		// The key stays with the server it was given for: a redirect elsewhere is refused, not followed.
		const response = await fetchSameOrigin(
			fetch,
			`${baseUrl}/models`,
			{ headers, signal: AbortSignal.timeout(5000) },
			{ fixHint: "pass the address it redirects to as --base-url" },
		);
		if (!response.ok) throw new Error(`HTTP ${response.status}`);
		const body = (await response.json()) as { data?: { id?: unknown }[] };
		const id = body.data?.find((entry) => typeof entry.id === "string")?.id;
		if (typeof id === "string") return id;
		throw new Error("it lists no model");
	} catch (error) {
		// Nobody answered: naming a model would not help, the server is not there (yet).
		const unreachable = connectionProblem(error);
		if (unreachable)
			throw new ModelError(
				`cannot reach ${baseUrl} (${unreachable}): is the server running at that address? (--model <id> names its model without asking it)`,
			);
		throw new ModelError(
			`cannot ask ${baseUrl}/models which model to use (${failure(error)}): pass --model <id>`,
		);
	}
}

/** An error's message with its cause's: fetch says only "fetch failed", its cause why (`bad port`, TLS). */
function failure(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	const cause = (error as { cause?: unknown } | undefined)?.cause;
	return cause instanceof Error && cause.message !== "" ? `${message}: ${cause.message}` : message;
}

/** Why a request got no answer at all (`ECONNREFUSED`, `ENOTFOUND`, a timeout), or undefined when it got one. */
function connectionProblem(error: unknown): string | undefined {
	if (error instanceof Error && error.name === "TimeoutError") return "no answer within 5 s";
	const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
	if (code === "ECONNREFUSED") return "connection refused";
	return typeof code === "string" && /^(ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET)$/.test(code)
		? code
		: undefined;
}
