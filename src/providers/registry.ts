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
		let result: AssistantMessageEventStream;
		try {
			result = provider(model, context, options);
		} catch (error) {
			// A stream function must not throw (rule E3); defend against one that does anyway.
			return failedStream(
				model,
				options,
				error instanceof ProviderError
					? error
					: new ProviderError("internal", `provider threw: ${String((error as Error)?.message ?? error)}`),
			);
		}
		// Nor hand back something that is not a stream (an `async` stream function returns a promise): the
		// caller's `result()` or `for await` would throw.
		if (isEventStream(result)) return result;
		const promise = typeof (result as { then?: unknown } | undefined)?.then === "function";
		// A rejected promise from an async one would otherwise surface as an unhandled rejection.
		if (promise) (result as unknown as PromiseLike<unknown>).then(undefined, () => {});
		const what = promise ? "a promise" : result === null ? "null" : typeof result;
		return failedStream(
			model,
			options,
			new ProviderError(
				"internal",
				`the stream function for api "${model.api}" returned ${what}, not an event stream (it must return the stream synchronously, not be async)`,
			),
		);
	};
	return { stream, get: (api) => table.get(api), apis: () => [...table.keys()] };
}

/** True for a stream the caller can iterate and ask for its `result()`. */
function isEventStream(value: unknown): value is AssistantMessageEventStream {
	if (value === null || typeof value !== "object") return false;
	const stream = value as Partial<AssistantMessageEventStream>;
	return typeof stream[Symbol.asyncIterator] === "function" && typeof stream.result === "function";
}

/** A stream that ends at once with `error` as its error message (rule E3). */
function failedStream(
	model: Model,
	options: StreamOptions | undefined,
	error: ProviderError,
): AssistantMessageEventStream {
	return runProviderStream(
		model,
		options,
		async () => {
			throw error;
		},
		{ requireApiKey: false },
	);
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
 * The built-in providers as a fresh `api → stream function` table. To add your own API, build a registry with
 * it: `createProviderRegistry({ ...builtinProviders(), "my-api": streamMyApi })`. (In capstan's source this
 * list, one line each, is the only place a built-in provider is wired in.)
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
