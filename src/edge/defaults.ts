import { EventStream } from "../core/event-stream.js";
import type { AssistantMessageEventStream } from "../core/events.js";
import type { StreamFunction } from "../core/model.js";
import { hasImmutableSnapshots, markImmutableSnapshots } from "../core/snapshot-brand.js";
import type { ReplyGuardResolver } from "../protocol/reply-guard.js";

type Registry = typeof import("../providers/registry.js");

let registry: Registry | undefined;
let loading: Promise<Registry> | undefined;

/**
 * The provider registry's `stream`, loaded on the first model call that needs it: the default stream function
 * of `agentLoop` and `Agent`. Importing `capstan` therefore loads no provider module; a run that brings its own
 * `streamFn` never loads one at all. Once the registry is loaded, calls go straight to it.
 */
export const registryStream: StreamFunction = (model, context, options) => {
	if (registry) return registry.stream(model, context, options);
	const out: AssistantMessageEventStream = new EventStream();
	loading ??= import("../providers/registry.js").then((loaded) => {
		registry = loaded;
		return loaded;
	});
	loading.then(
		(loaded) => pipe(loaded.stream(model, context, options), out),
		(error: unknown) => out.fail(error), // the loop closes it as an `internal` error message (rule L12)
	);
	return out;
};

/** Relay the first call's stream. Once `out` is failed (abort), pushes are ignored; the provider stops on the signal. */
async function pipe(from: AssistantMessageEventStream, out: AssistantMessageEventStream): Promise<void> {
	// The relay passes events through untouched, so it keeps the source's snapshot guarantee (rule L5). Marked
	// before the first event: the loop asks at its first event.
	if (hasImmutableSnapshots(from)) markImmutableSnapshots(out);
	try {
		for await (const event of from) out.push(event);
		out.end(await from.result());
	} catch (error) {
		out.fail(error);
	}
}

/**
 * The reply guards built-in providers' models ask for (`providers/reply-guards.ts`, e.g. rule X4's Harmony
 * guard), loaded only for a model that carries compat flags: the default `replyGuard` of `agentLoop` and
 * `Agent`.
 */
export const providerReplyGuard: ReplyGuardResolver = (model) => {
	if (model.compat === undefined || Object.keys(model.compat).length === 0) return undefined;
	return import("../providers/reply-guards.js").then((guards) => guards.defaultReplyGuard(model));
};
