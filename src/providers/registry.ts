/**
 * The explicit provider registry: a map from wire API (`model.api`) to stream function. Nothing registers
 * itself as an import side effect; the built-in list below is the single place a provider is wired in (one
 * line each), and hosts build their own registry with `createProviderRegistry` for custom APIs.
 */
import type { AssistantMessageEventStream } from "../core/events.js";
import type { Context, Model, StreamFunction, StreamOptions } from "../core/model.js";
import { streamAnthropic } from "./anthropic/index.js";
import { ProviderError } from "./base/errors.js";
import { runProviderStream } from "./base/run-stream.js";
import { streamGoogle } from "./google/index.js";
import { streamOpenAICompletions } from "./openai-completions/stream.js";
import { streamOpenAIResponses } from "./openai-responses/index.js";

/** A registry of stream functions keyed by wire API. */
export interface ProviderRegistry {
	/** Dispatch on `model.api`; an unknown api yields an `error` message (rule E3), never a throw. */
	stream: StreamFunction;
	/** The stream function for `api`, if registered. */
	get(api: string): StreamFunction | undefined;
	/** Registered api names. */
	apis(): string[];
}

/** Build a registry from an explicit `api → stream function` table (copied; later edits do not leak in). */
export function createProviderRegistry(entries: Record<string, StreamFunction>): ProviderRegistry {
	const table = new Map<string, StreamFunction>(Object.entries(entries));
	const stream: StreamFunction = (model, context, options) => {
		const provider = model ? table.get(model.api) : undefined;
		if (!provider || !model) return unknownApiStream(model, options, [...table.keys()]);
		try {
			return provider(model, context, options);
		} catch (error) {
			// A stream function must not throw (rule E3); defend against one that does anyway.
			return runProviderStream(
				model,
				options,
				async () => {
					throw error instanceof ProviderError
						? error
						: new ProviderError("internal", `provider threw: ${String((error as Error)?.message ?? error)}`);
				},
				{ requireApiKey: false },
			);
		}
	};
	return { stream, get: (api) => table.get(api), apis: () => [...table.keys()] };
}

function unknownApiStream(
	model: Model,
	options: StreamOptions | undefined,
	known: string[],
): AssistantMessageEventStream {
	return runProviderStream(
		model,
		options,
		async () => {
			throw new ProviderError(
				"invalid_request",
				`No provider registered for api "${model.api}" (registered: ${known.join(", ") || "none"}). Set model.api to one of those, or pass your stream function as streamFn (or a registry's stream: createProviderRegistry({ "${model.api}": yourStreamFunction, ...builtinProviders() }).stream).`,
				{ retryable: false },
			);
		},
		{ requireApiKey: false },
	);
}

/**
 * The built-in providers, one line each. Add yours here (the only registration point), e.g.
 * `"openai-responses": streamOpenAIResponses,`.
 */
export function builtinProviders(): Record<string, StreamFunction> {
	return {
		"anthropic-messages": streamAnthropic,
		"openai-completions": streamOpenAICompletions,
		"openai-responses": streamOpenAIResponses,
		"google-generative-ai": streamGoogle,
	};
}

let defaultRegistry: ProviderRegistry | undefined;

/** The registry of built-in providers, built on first use. */
export function getDefaultRegistry(): ProviderRegistry {
	defaultRegistry ??= createProviderRegistry(builtinProviders());
	return defaultRegistry;
}

/** Stream a reply from any built-in provider, dispatching on `model.api` (the loop's default stream function). */
export function stream(model: Model, context: Context, options?: StreamOptions): AssistantMessageEventStream {
	return getDefaultRegistry().stream(model, context, options);
}
