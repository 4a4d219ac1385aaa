/**
 * A scripted model for tests: a real `StreamFunction` that plays prepared replies as genuine rule E2 event
 * sequences through the same builder the providers use, so an agent under test sees exactly what it would
 * see from a provider — deltas, partial tool arguments, abort, errors, misbehaving streams.
 */
import { abortReasonText, errorText } from "../core/abort.js";
import { AssistantMessageBuilder } from "../core/assistant-builder.js";
import { computeCost, isPriceUnknown } from "../core/cost.js";
import { EventStream } from "../core/event-stream.js";
import type { AssistantMessageEvent, AssistantMessageEventStream } from "../core/events.js";
import type { AssistantMessage, ErrorKind, StopDetails, Usage } from "../core/messages.js";
import type { Context, Model, StreamFunction, StreamOptions } from "../core/model.js";
import { markImmutableSnapshots } from "../core/snapshot-brand.js";

/** One content block of a scripted reply. */
export type ScriptedBlock =
	| { type: "text"; text: string; signature?: string }
	| { type: "thinking"; thinking: string; signature?: string }
	| {
			type: "toolCall";
			name: string;
			/** An object (streamed as its JSON) or raw JSON text, which may be invalid on purpose (rule E4). */
			arguments?: Record<string, unknown> | string;
			/** Default: a deterministic `call_<n>`, counting this scripted model's calls without an `id` from 1. */
			id?: string;
	  };

/** One reply of the script, and how it is delivered. */
export interface ScriptedReply {
	/** The reply's blocks, streamed in order. Default: none. */
	content?: ScriptedBlock[];
	/** Default: `toolUse` when the reply has tool calls, else `stop`. */
	stopReason?: "stop" | "toolUse" | "length";
	/**
	 * Finer stop cause, e.g. `{ type: "pause_turn" }`. A `refusal` or `content_filter` ends the reply as an
	 * error message (`stopReason: "error"`, the details kept, `explanation` as the error text), rule S5; so
	 * does an `unknown_stop_reason`, with `errorKind: "malformed_response"`, as a provider's does (rule M4).
	 */
	stopDetails?: StopDetails;
	/**
	 * The reply's usage, kept on error replies too. Without a `cost`, the counts are priced by the price table
	 * of the model the call is made with (`scripted.model` unless the caller passes another) as a provider's
	 * are; the default scripted model's prices are zero.
	 */
	usage?: Partial<Usage>;
	/** The provider's response id, known once the reply starts: failed and aborted replies keep it too. */
	responseId?: string;
	/**
	 * Characters per text/thinking delta (default 4) and per tool-argument delta (default 8); a value given
	 * here applies to both.
	 */
	chunkSize?: number;
	/**
	 * Wait this long (via `setTimeout`, so fake timers control it) before each event, the first and the
	 * terminal one included. Default 0: each event still comes a microtask after the previous one, so a
	 * consumer can abort between events.
	 */
	delayMs?: number;
	/** Fail with an `error` event after `afterEvents` content events (default: after all content). */
	error?: { message: string; kind?: ErrorKind; afterEvents?: number };
	/** After the content, never finish until aborted (rule A2). */
	hang?: boolean;
	/** Keep streaming, or keep hanging, when the signal fires: a provider that ignores abort (rule I4). */
	ignoreAbort?: boolean;
	/**
	 * Misbehave (rule L12): `"sync"` — the stream function itself throws; `"async"` — after the content the
	 * stream fails, so the iterator throws and `result()` rejects, with no terminal event.
	 */
	throws?: "sync" | "async";
	/** After the content, end the stream with no terminal event and no result (rule L12). */
	endWithoutTerminal?: boolean;
}

/** What a script function receives for each call. */
export interface ScriptedCall {
	/** 0-based number of this call. */
	index: number;
	/** The model the call was made with. */
	model: Model;
	/** The context the call was made with. */
	context: Context;
	/** The options the call was made with. */
	options: StreamOptions;
}

/** A script: replies in call order, or a function choosing the reply for each call. */
export type Script = readonly ScriptedReply[] | ((call: ScriptedCall) => ScriptedReply);

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
	/** Overrides for the model returned as `model`. */
	model?: Partial<Model>;
	/**
	 * When the script array runs out: an error reply saying so (default), or replay the last reply. A script
	 * function that returns no reply always gets the error reply.
	 */
	onExhausted?: "error" | "repeat-last";
	/**
	 * Keep every call in `calls` (default true). Benchmarks turn it off: a long run's record holds one copy
	 * of the growing transcript per call, which is the recorder's cost, not the loop's.
	 */
	record?: boolean;
	/** Clock for message timestamps (default `Date.now`); pass `() => 0` for byte-stable transcripts. */
	now?: () => number;
}

/** A scripted model: the `model` to put in your config, the `stream` function, and a record of every call. */
export interface ScriptedModel {
	/** The scripted model (`provider: "scripted"`, zero prices), with the `model` overrides applied. */
	model: Model;
	/** The stream function that plays the script, one reply per call. */
	stream: StreamFunction;
	/** Every call, in order: context with a copied `messages` array, options shallow-copied. */
	calls: ScriptedCall[];
}

const DEFAULT_MODEL: Model = {
	id: "scripted-model",
	name: "Scripted model",
	api: "scripted",
	provider: "scripted",
	reasoning: true,
	input: ["text", "image"],
	contextWindow: 128_000,
	maxTokens: 16_384,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

/**
 * Create a scripted model: a real stream function that plays `script` one reply per call.
 *
 * Text and thinking arrive in several deltas, tool arguments as small JSON pieces, tool call ids are
 * deterministic (`call_1`, `call_2`, … — rule L13). An abort ends the reply at once with an `aborted` error
 * message carrying the abort reason (rule A1, A5) unless the reply sets `ignoreAbort`. Running out of script
 * yields an error message, never a throw (rule E3).
 *
 * @example
 * ```ts
 * import { agentLoop, tool } from "capstan";
 * import { scriptedModel, textReply, toolReply } from "capstan/testing";
 *
 * const readFile = tool({
 *   name: "read_file",
 *   description: "Read a file",
 *   parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
 *   execute: async (_id, { path }) => ({ content: [{ type: "text", text: `${path}: hello` }] }),
 * });
 * const scripted = scriptedModel([
 *   toolReply("read_file", { path: "README.md" }),
 *   textReply("The README says hello."),
 * ]);
 * const prompt = { role: "user" as const, content: "Summarize the README", timestamp: Date.now() };
 * const stream = agentLoop([prompt], { messages: [], tools: [readFile] }, {
 *   model: scripted.model,
 *   streamFn: scripted.stream,
 * });
 * const added = await stream.result(); // user → assistant → toolResult → assistant
 * console.log(scripted.calls[1]?.context.messages.at(-1)?.role); // "toolResult": the second call saw the result
 * ```
 */
export function scriptedModel(script: Script, options: ScriptedModelOptions = {}): ScriptedModel {
	const model: Model = { ...DEFAULT_MODEL, ...options.model };
	const calls: ScriptedCall[] = [];
	const ids = { next: 1 };
	const now = options.now ?? Date.now;
	let callCount = 0;
	const stream: StreamFunction = (callModel, context, streamOptions = {}) => {
		const record = options.record !== false;
		const call: ScriptedCall = {
			index: callCount++,
			model: callModel,
			// The copies keep the record true to the call; without a record there is nothing to protect.
			context: record ? { ...context, messages: [...context.messages] } : context,
			options: record ? { ...streamOptions } : streamOptions,
		};
		if (record) calls.push(call);
		const reply = priced(chooseReply(script, call, options.onExhausted ?? "error"), callModel);
		if (reply.throws === "sync") throw new Error(reply.error?.message ?? "scripted stream function threw");
		const events: AssistantMessageEventStream = new EventStream<AssistantMessageEvent, AssistantMessage>();
		markImmutableSnapshots(events); // only the builder pushes into it (rule L5)
		const builder = new AssistantMessageBuilder(
			{ api: callModel.api, provider: callModel.provider, model: callModel.id, timestamp: now() },
			events,
		);
		new ScriptedPlayback(reply, builder, events, streamOptions.signal, ids).begin();
		return events;
	};
	return { model, stream, calls };
}

/**
 * Rule M5: a reply's token counts priced by the model's price table, as a provider's are — unless the script
 * gives the cost itself, or the model has no prices (the default scripted model's are all zero).
 */
function priced(reply: ScriptedReply, model: Model): ScriptedReply {
	const { usage } = reply;
	if (!usage || usage.cost !== undefined || isPriceUnknown(model.cost)) return reply;
	const counts = {
		input: usage.input ?? 0,
		output: usage.output ?? 0,
		cacheRead: usage.cacheRead ?? 0,
		cacheWrite: usage.cacheWrite ?? 0,
	};
	return { ...reply, usage: { ...usage, cost: computeCost(counts, model.cost) } };
}

function chooseReply(
	script: Script,
	call: ScriptedCall,
	onExhausted: "error" | "repeat-last",
): ScriptedReply {
	let reply: ScriptedReply | undefined;
	if (typeof script === "function") {
		try {
			reply = script(call);
		} catch (error) {
			return {
				error: { message: `scripted model: the script threw: ${errorText(error)}`, kind: "internal" },
			};
		}
	} else
		reply = script[call.index] ?? (onExhausted === "repeat-last" ? script[script.length - 1] : undefined);
	if (reply) return reply;
	// A script function that runs out (`(call) => replies[call.index]`) is out of script too: an error reply.
	const message =
		typeof script === "function"
			? `scripted model: the script function returned no reply for call #${call.index + 1}`
			: `scripted model: the script has ${script.length} replies, but call #${call.index + 1} was made`;
	return { error: { message, kind: "internal" } };
}

/** A plain text reply. */
export function textReply(text: string, extra: Omit<ScriptedReply, "content"> = {}): ScriptedReply {
	return { ...extra, content: [{ type: "text", text }] };
}

/** A reply calling one tool, optionally after some text; ends with `toolUse`. */
export function toolReply(
	name: string,
	args: Record<string, unknown> | string = {},
	extra: Omit<ScriptedReply, "content"> & { text?: string; id?: string } = {},
): ScriptedReply {
	const { text, id, ...rest } = extra;
	const call: ScriptedBlock = {
		type: "toolCall",
		name,
		arguments: args,
		...(id === undefined ? {} : { id }),
	};
	return { ...rest, content: text === undefined ? [call] : [{ type: "text", text }, call] };
}

/** A reply that fails like a provider error before any content (rule E3). */
export function errorReply(message: string, kind?: ErrorKind): ScriptedReply {
	return { error: kind ? { message, kind } : { message } };
}

const REFUSALS: Record<string, string> = {
	refusal: "The model refused to respond",
	content_filter: "The response was blocked by a content filter",
};

/** Rule S5, M4: the stop details a provider ends as an `error` reply, with that reply's text and kind. */
function errorStop(details: StopDetails): { message: string; kind?: ErrorKind } | undefined {
	if (details.type === "unknown_stop_reason") {
		const message = `provider returned an unknown stop reason: ${details.raw ?? "none"}`;
		return { message: details.explanation ?? message, kind: "malformed_response" };
	}
	const refusal = Object.hasOwn(REFUSALS, details.type) ? REFUSALS[details.type] : undefined;
	return refusal === undefined ? undefined : { message: details.explanation ?? refusal };
}

/** Plays one reply: one event per step, paced by `delayMs` or a microtask, raced by one abort listener. */
class ScriptedPlayback {
	private stopped = false;
	private wake: (() => void) | undefined;
	private readonly onAbort = (): void => {
		if (this.reply.ignoreAbort) return;
		this.stopped = true;
		this.wake?.();
		this.builder.fail("aborted", abortReasonText(this.signal?.reason), "aborted");
	};

	constructor(
		private readonly reply: ScriptedReply,
		private readonly builder: AssistantMessageBuilder,
		private readonly events: AssistantMessageEventStream,
		private readonly signal: AbortSignal | undefined,
		private readonly ids: { next: number },
	) {}

	begin(): void {
		if (this.signal?.aborted && !this.reply.ignoreAbort) {
			this.onAbort();
			return;
		}
		// Rule A2: one listener per stream, removed when the playback settles.
		this.signal?.addEventListener("abort", this.onAbort, { once: true });
		this.run()
			.catch((error: unknown) =>
				this.builder.fail("error", `scripted model: ${errorText(error)}`, "internal"),
			)
			.finally(() => this.signal?.removeEventListener("abort", this.onAbort));
	}

	private async run(): Promise<void> {
		const { reply, builder } = this;
		if (!(await this.pause())) return;
		builder.start();
		// A provider learns the id from its first chunk, so its failed and aborted replies carry it too.
		if (reply.responseId !== undefined) builder.setResponseId(reply.responseId);
		const steps = this.steps();
		const limit = Math.min(reply.error?.afterEvents ?? steps.length, steps.length);
		for (let i = 0; i < limit; i++) {
			if (!(await this.pause())) return;
			steps[i]?.();
		}
		if (reply.hang && !(await this.hang())) return;
		if (!(await this.pause())) return;
		if (reply.throws === "async") {
			this.events.fail(new Error(reply.error?.message ?? "scripted stream threw"));
			return;
		}
		if (reply.endWithoutTerminal) {
			this.events.end();
			return;
		}
		// Usage first: a reply that fails after its content was still generated, and billed.
		if (reply.usage) builder.setUsage(reply.usage);
		if (reply.error) {
			builder.fail("error", reply.error.message, reply.error.kind);
			return;
		}
		builder.setStopDetails(reply.stopDetails);
		const failure = reply.stopDetails && errorStop(reply.stopDetails);
		if (failure) {
			builder.fail("error", failure.message, failure.kind);
			return;
		}
		const hasToolCalls = reply.content?.some((block) => block.type === "toolCall") ?? false;
		builder.done(reply.stopReason ?? (hasToolCalls ? "toolUse" : "stop"));
	}

	/** The content as single-event steps, so `error.afterEvents` counts events exactly. */
	private steps(): (() => void)[] {
		const { builder } = this;
		const steps: (() => void)[] = [];
		const textChunk = this.reply.chunkSize ?? 4;
		const argsChunk = this.reply.chunkSize ?? 8;
		for (const block of this.reply.content ?? []) {
			let index = -1;
			if (block.type === "text") {
				steps.push(() => {
					index = builder.startText();
				});
				for (const piece of slices(block.text, textChunk)) steps.push(() => builder.appendText(index, piece));
				steps.push(() => {
					if (block.signature !== undefined) builder.setTextSignature(index, block.signature);
					builder.endText(index);
				});
			} else if (block.type === "thinking") {
				steps.push(() => {
					index = builder.startThinking();
				});
				for (const piece of slices(block.thinking, textChunk))
					steps.push(() => builder.appendThinking(index, piece));
				steps.push(() => {
					if (block.signature !== undefined) builder.appendThinkingSignature(index, block.signature);
					builder.endThinking(index);
				});
			} else {
				const id = block.id ?? `call_${this.ids.next++}`;
				const json =
					typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments ?? {});
				steps.push(() => {
					index = builder.startToolCall(id, block.name);
				});
				for (const piece of slices(json, argsChunk))
					steps.push(() => builder.appendToolCallArguments(index, piece));
				steps.push(() => builder.endToolCall(index));
			}
		}
		return steps;
	}

	/** Wait before the next event; false when the playback was stopped meanwhile. */
	private async pause(): Promise<boolean> {
		const ms = this.reply.delayMs ?? 0;
		if (ms > 0 && !this.stopped) {
			await new Promise<void>((resolve) => {
				const timer = setTimeout(done, ms);
				const self = this;
				function done(): void {
					clearTimeout(timer);
					self.wake = undefined;
					resolve();
				}
				this.wake = done;
			});
		} else await Promise.resolve(); // still yield, so a consumer can abort between events
		return !this.stopped && !this.builder.isFinished;
	}

	private async hang(): Promise<boolean> {
		if (!this.stopped)
			await new Promise<void>((resolve) => {
				this.wake = resolve;
			});
		return !this.stopped;
	}
}

/** Split text into pieces of about `size` code units, never between the halves of a surrogate pair. */
function slices(text: string, size: number): string[] {
	const step = Math.max(1, Math.floor(size));
	const pieces: string[] = [];
	for (let start = 0; start < text.length; ) {
		let end = Math.min(start + step, text.length);
		const code = text.charCodeAt(end - 1);
		if (code >= 0xd800 && code <= 0xdbff && end < text.length) end++;
		pieces.push(text.slice(start, end));
		start = end;
	}
	return pieces;
}
