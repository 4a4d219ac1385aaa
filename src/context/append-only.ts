/**
 * Rule X2: append-only context for providers' prefix caches. A provider caches the longest byte prefix it saw
 * before (Anthropic cache breakpoints, OpenAI/DeepSeek automatic prefix caching, local KV caches). A request
 * that re-serializes its history from rebuilt objects can shift bytes anywhere — a reordered key, a rewritten
 * old message — and every token after that point is recomputed. The manager keeps what was sent:
 *
 * - a **stable prefix** (system prompt + wire tool specs), returned as the very same objects until its
 *   fingerprint changes;
 * - an **append-only log** of messages, synced per call by comparing per-message digests: the longest
 *   unchanged prefix keeps the objects sent before (so the same bytes), only what follows the first changed
 *   message is taken from the new list, and a shorter list (compaction) starts the log afresh.
 *
 * - a **cache anchor** (`context.cacheAnchor`): a message count after which a provider that places cache
 *   breakpoints keeps a fixed one. It stays where it was set — so the bytes up to it, marker included, are
 *   the same request after request — and moves only where the bytes before the previous request's end change
 *   anyway (a rewrite: it goes to the end of the unchanged messages, whose cache entry it reads back) or where
 *   one call appends more blocks than the provider's cache lookback bridges (it goes to the previous
 *   request's end, whose entry the new tail cannot reach; the one move that costs earlier bytes, bought for a
 *   full cache read). The moving tail breakpoint is the provider's.
 *
 * Messages are treated as immutable snapshots: a digest is computed once per message object and
 * memoized, so a message mutated in place after it was synced is not noticed — replace it instead (the loop
 * and the default conversion do). One manager serves one conversation; give an `Agent` its own and it keeps
 * the provider's cache warm across prompts.
 */
import type { Message } from "../core/messages.js";
import type { CacheHints, Context, ToolSpec } from "../core/model.js";

/** A string hash for digests; the default is cyrb53 (53-bit, fast, not cryptographic). Injectable to count or replace it. */
export type DigestHash = (text: string) => number | string;

/** Options of an {@link AppendOnlyContextManager}. */
export interface AppendOnlyContextOptions {
	/** The hash over a message's canonical JSON. Default: cyrb53. */
	hash?: DigestHash;
	/**
	 * Content blocks a provider's cache lookback bridges: a call that appends this many or more moves the
	 * cache anchor to the previous request's end. Default {@link CACHE_LOOKBACK_BLOCKS} (Anthropic's ~20).
	 */
	lookbackBlocks?: number;
}

/**
 * Anthropic's documented cache lookback: a breakpoint reads an earlier cache entry that ends at most about 20
 * content blocks before it. Counted here on capstan messages (a tool result or a string prompt is one block).
 */
export const CACHE_LOOKBACK_BLOCKS = 20;

/** The frozen stable prefix: what precedes the messages in every request. */
export interface StablePrefix {
	/** The system prompt as first sent. */
	readonly systemPrompt?: string;
	/** The tool list as first sent. */
	readonly tools?: readonly ToolSpec[];
}

/** What one {@link AppendOnlyContextManager.syncMessages} did. */
export interface MessageSync {
	/** The log after the sync (frozen). The same array as before when nothing changed. */
	readonly messages: readonly Message[];
	/** Leading messages kept from the previous log: same objects, same bytes. */
	readonly unchanged: number;
	/** Whether the log differs from the previous one. */
	readonly changed: boolean;
	/** Whether a shorter list (compaction) started the log afresh. */
	readonly reset: boolean;
}

/** Input of {@link AppendOnlyContextManager.build}: the provider-bound context of one call. */
export interface AppendOnlyBuildInput {
	/** This call's system prompt; a change from the frozen one starts a new stable prefix. */
	systemPrompt?: string;
	/** This call's tools; a change from the frozen list starts a new stable prefix. */
	tools?: readonly ToolSpec[];
	/** This call's messages, synced into the append-only log. */
	messages: readonly Message[];
}

/** Output of {@link AppendOnlyContextManager.build}: the context to send and the cache hints for it. */
export interface AppendOnlyBuild extends CacheHints {
	/** Frozen; the same object as the previous build's when nothing changed. */
	readonly context: Context;
	/** Whether a shorter list (compaction) started the log afresh. */
	readonly reset: boolean;
}

const EMPTY: readonly Message[] = Object.freeze([]);

/**
 * Rule X2: a stable prefix plus an append-only message log. Call {@link AppendOnlyContextManager.build} once per model call with the
 * normalized context (the loop does when `AgentLoopConfig.contextManager` is set); hand
 * `{stablePrefixChanged, unchangedMessages}` to the provider as `StreamOptions.cacheHints`.
 */
export class AppendOnlyContextManager {
	private readonly hash: DigestHash;
	private readonly digests = new WeakMap<object, string>();
	private prefix: StablePrefix | undefined;
	private log: readonly Message[] = EMPTY;
	private lastContext: Context | undefined;
	private hashCalls = 0;
	private readonly lookbackBlocks: number;
	private anchor: number | undefined;

	/** Create a manager for one conversation. */
	constructor(options: AppendOnlyContextOptions = {}) {
		this.hash = options.hash ?? cyrb53;
		const lookback = options.lookbackBlocks ?? CACHE_LOOKBACK_BLOCKS;
		if (!Number.isInteger(lookback) || lookback < 1)
			throw new RangeError(`lookbackBlocks must be a positive integer, got ${String(lookback)}`);
		this.lookbackBlocks = lookback;
	}

	/** The message count the fixed cache breakpoint follows, once one was placed (see the class comment). */
	get cacheAnchor(): number | undefined {
		return this.anchor;
	}

	/** The current message log (frozen). */
	get messages(): readonly Message[] {
		return this.log;
	}

	/** The current stable prefix, once one was synced. */
	get stablePrefix(): StablePrefix | undefined {
		return this.prefix;
	}

	/** How many digests were computed so far (each object at most once). */
	get digestCount(): number {
		return this.hashCalls;
	}

	/**
	 * Sync the stable prefix. Returns the frozen prefix — the previous one, same objects, while the system
	 * prompt and every tool spec digest are unchanged — and whether it changed. A changed tool list leaves
	 * the message log alone.
	 */
	syncStablePrefix(
		systemPrompt: string | undefined,
		tools: readonly ToolSpec[] | undefined,
	): { prefix: StablePrefix; changed: boolean } {
		const previous = this.prefix;
		const incoming = tools && tools.length > 0 ? tools : undefined;
		if (previous && previous.systemPrompt === systemPrompt && this.sameTools(previous.tools, incoming))
			return { prefix: previous, changed: false };
		const prefix: StablePrefix = Object.freeze({
			...(systemPrompt !== undefined ? { systemPrompt } : {}),
			...(incoming ? { tools: Object.freeze(incoming.slice()) } : {}),
		});
		this.prefix = prefix;
		return { prefix, changed: true };
	}

	/**
	 * Sync the message log with the messages of this call: keep the longest prefix whose digests match (the
	 * previous objects, so the previous bytes), take the rest from `messages`. A list shorter than the log
	 * (compaction) resets it. An identical re-sync returns the same frozen array and hashes nothing new.
	 */
	syncMessages(messages: readonly Message[]): MessageSync {
		const log = this.log;
		if (messages.length < log.length) {
			this.log = Object.freeze(messages.slice());
			return { messages: this.log, unchanged: 0, changed: true, reset: true };
		}
		const unchanged = this.longestUnchangedPrefix(log, messages);
		if (unchanged === log.length && messages.length === log.length)
			return { messages: log, unchanged, changed: false, reset: false };
		// Kept entries are the log's own objects, so their bytes are the bytes sent before.
		const next = messages.slice();
		for (let i = 0; i < unchanged; i++) next[i] = log[i] as Message;
		this.log = Object.freeze(next);
		return { messages: this.log, unchanged, changed: true, reset: false };
	}

	/**
	 * One model call: sync the stable prefix and the log and assemble the frozen context to send, with what a
	 * provider needs to place its cache breakpoints.
	 */
	build(input: AppendOnlyBuildInput): AppendOnlyBuild {
		const { prefix, changed: stablePrefixChanged } = this.syncStablePrefix(input.systemPrompt, input.tools);
		const previousLength = this.log.length;
		const sync = this.syncMessages(input.messages);
		const anchor = this.nextAnchor(stablePrefixChanged, sync, previousLength);
		let context = this.lastContext;
		if (!context || stablePrefixChanged || sync.changed || anchor !== this.anchor) {
			context = Object.freeze({
				...(prefix.systemPrompt !== undefined ? { systemPrompt: prefix.systemPrompt } : {}),
				// Frozen arrays typed as the mutable wire shape: providers only read them.
				...(prefix.tools ? { tools: prefix.tools as ToolSpec[] } : {}),
				messages: sync.messages as Message[],
				...(anchor !== undefined ? { cacheAnchor: anchor } : {}),
			});
			this.lastContext = context;
		}
		this.anchor = anchor;
		return { context, stablePrefixChanged, unchangedMessages: sync.unchanged, reset: sync.reset };
	}

	/** Forget everything: the next build starts a new prefix and a new log (e.g. a new conversation). */
	reset(): void {
		this.prefix = undefined;
		this.log = EMPTY;
		this.lastContext = undefined;
		this.anchor = undefined;
	}

	/**
	 * Where the fixed breakpoint goes for this call. A marker removed before the previous request's end breaks
	 * that request's bytes there, so it moves only where they break anyway or where staying reads too little:
	 * - a new stable prefix or a new log: nothing before any message is cached under the new prefix — none;
	 * - a rewrite (the first change is before the previous end): the end of the unchanged messages, whose
	 *   cache entry (an earlier request's end) this request reads back there, and the old marker sat in the
	 *   rewritten bytes or before the break;
	 * - an append wider than the lookback: the previous end, which the new tail cannot reach;
	 * - otherwise it stays (none until the first of those).
	 */
	private nextAnchor(prefixChanged: boolean, sync: MessageSync, previousLength: number): number | undefined {
		if (prefixChanged || sync.reset) return undefined;
		if (sync.unchanged < previousLength) return sync.unchanged > 0 ? sync.unchanged : undefined;
		if (previousLength > 0 && this.anchor !== previousLength) {
			let appended = 0;
			for (let i = previousLength; i < sync.messages.length; i++)
				appended += blockCount(sync.messages[i] as Message);
			if (appended >= this.lookbackBlocks) return previousLength;
		}
		return this.anchor;
	}

	/** The digest of a message or tool spec: hash and length of its canonical JSON, memoized per object. */
	digestOf(value: Message | ToolSpec): string {
		let digest = this.digests.get(value);
		if (digest === undefined) {
			const json = canonicalJson(value);
			this.hashCalls++;
			digest = `${this.hash(json)}:${json.length}`;
			this.digests.set(value, digest);
		}
		return digest;
	}

	private longestUnchangedPrefix(log: readonly Message[], messages: readonly Message[]): number {
		let k = 0;
		// Identity first: a loop appending to its transcript is settled without hashing anything, and a single
		// rebuilt message (a pruning transformContext) costs two digests, not one per later message.
		while (k < log.length) {
			const incoming = messages[k] as Message;
			const kept = log[k] as Message;
			if (incoming !== kept && this.digestOf(incoming) !== this.digestOf(kept)) break;
			k++;
		}
		return k;
	}

	private sameTools(stored: readonly ToolSpec[] | undefined, incoming: readonly ToolSpec[] | undefined) {
		if (!stored || !incoming) return stored === incoming;
		if (stored.length !== incoming.length) return false;
		for (let i = 0; i < stored.length; i++) {
			const a = stored[i] as ToolSpec;
			const b = incoming[i] as ToolSpec;
			if (a !== b && this.digestOf(a) !== this.digestOf(b)) return false;
		}
		return true;
	}
}

/** Content blocks a message takes on the wire, as a provider's cache lookback counts them (approximately). */
function blockCount(message: Message): number {
	if (message.role === "toolResult") return 1;
	return typeof message.content === "string" ? 1 : message.content.length;
}

/**
 * JSON with object keys sorted, so two messages that differ only in key order share a digest (and the one
 * sent first keeps being sent). Arrays keep their order; `undefined` members are dropped as by `JSON.stringify`.
 */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, sortKeys) ?? "null";
}

function sortKeys(_key: string, value: unknown): unknown {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
	// No prototype: assigning an own `__proto__` key (valid JSON, e.g. in parsed tool arguments) to a plain
	// object would set its prototype instead, silently dropping the key from the digest.
	const sorted: Record<string, unknown> = Object.create(null);
	for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
	return sorted;
}

/**
 * cyrb53: a fast, well-distributed 53-bit string hash (public domain, bryc). Deterministic on every runtime
 * and free of `node:crypto`, which the core must not need. Not cryptographic: digests only detect edits.
 */
export function cyrb53(text: string, seed = 0): number {
	let h1 = 0xdeadbeef ^ seed;
	let h2 = 0x41c6ce57 ^ seed;
	for (let i = 0; i < text.length; i++) {
		const ch = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ ch, 2654435761);
		h2 = Math.imul(h2 ^ ch, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
	h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
	h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
