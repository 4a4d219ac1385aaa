/**
 * W6's scripted conversation, the same for every library: a loopback server answers 199 tool-calling replies
 * and one closing text, records every request body as sent, and a context transform prunes old tool results
 * every 50 turns. Two wires: Anthropic Messages (with `cache_control` breakpoints in the body) and OpenAI
 * Chat Completions (no markers: the wire llama.cpp, vLLM and OpenAI's own prefix caches read by raw
 * prefix). Only the wire bodies are compared, so each library's own request builder (and cache-breakpoint
 * placement) is what gets measured.
 */
import { type RecordedRequest, startReplayServer } from "../../test/providers/support/replay-server.js";

/** The wires W6 runs the conversation on: capstan's and pi-ai's API names for them. */
export const WIRES = ["anthropic-messages", "openai-completions"] as const;
export type Wire = (typeof WIRES)[number];

/** How the tables name a wire. */
export const WIRE_NAMES: Readonly<Record<Wire, string>> = {
	"anthropic-messages": "Anthropic Messages",
	"openai-completions": "Chat Completions",
};

/** The path each wire's requests go to (Anthropic base URLs are the origin, Chat Completions ones `…/v1`). */
export const WIRE_PATHS: Readonly<Record<Wire, string>> = {
	"anthropic-messages": "/v1/messages",
	"openai-completions": "/v1/chat/completions",
};

/** The model id both libraries send on the Chat Completions wire. */
export const CHAT_MODEL = "gpt-4o-mini";

/** Requests in one conversation (199 tool turns and the closing answer). */
export const TURNS = 200;
/** The transform moves its pruning cut on every 50th request. */
export const PRUNE_EVERY = 50;
/** Tool results younger than this many calls are never pruned. */
export const KEEP_RECENT = 10;

/** The system prompt, the tool and the first user message every library is given. */
export const SYSTEM_PROMPT = "You are a careful inventory assistant. Look items up one at a time.";
export const TOOL_NAME = "lookup";
export const TOOL_DESCRIPTION = "Look an inventory item up by its number";
export const PROMPT = `Look up items 1 to ${TURNS - 1}, one call each, then summarise.`;

/** A deterministic tool result of about 600 bytes, so pruning it changes real bytes. */
export function lookupResult(item: number): string {
	const lines = [`item ${item}: in stock`];
	for (let i = 0; i < 12; i++) lines.push(`  bin ${item}-${i}: ${(item * 7919 + i * 104729) % 1000} units`);
	return lines.join("\n");
}

/** The text a pruned tool result is replaced with. */
export const PRUNED_TEXT = "[old tool result pruned]";

const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function reply(turn: number, blocks: string[], stopReason: "tool_use" | "end_turn"): string {
	return [
		sse("message_start", {
			message: {
				id: `msg_${turn}`,
				type: "message",
				role: "assistant",
				model: "claude-sonnet-4-5",
				content: [],
				stop_reason: null,
				stop_sequence: null,
				usage: { input_tokens: 100 + turn, output_tokens: 1 },
			},
		}),
		...blocks,
		sse("message_delta", {
			delta: { stop_reason: stopReason, stop_sequence: null },
			usage: { output_tokens: 20 },
		}),
		sse("message_stop", {}),
	].join("");
}

function textBlock(index: number, text: string): string[] {
	return [
		sse("content_block_start", { index, content_block: { type: "text", text: "" } }),
		sse("content_block_delta", { index, delta: { type: "text_delta", text } }),
		sse("content_block_stop", { index }),
	];
}

/** Reply `turn` (1-based): a sentence and one `lookup` call, or the closing summary on the last turn. */
export function scriptedReply(turn: number): string {
	if (turn === TURNS) return reply(turn, textBlock(0, `All ${TURNS - 1} items looked up.`), "end_turn");
	return reply(
		turn,
		[
			...textBlock(0, `Looking up item ${turn}.`),
			sse("content_block_start", {
				index: 1,
				content_block: {
					type: "tool_use",
					id: `toolu_${String(turn).padStart(4, "0")}`,
					name: TOOL_NAME,
					input: {},
				},
			}),
			sse("content_block_delta", {
				index: 1,
				delta: { type: "input_json_delta", partial_json: JSON.stringify({ item: turn }) },
			}),
			sse("content_block_stop", { index: 1 }),
		],
		"tool_use",
	);
}

const chunk = (turn: number, choices: object[], extra: object = {}) =>
	`data: ${JSON.stringify({ id: `chatcmpl-${turn}`, object: "chat.completion.chunk", created: 0, model: CHAT_MODEL, choices, ...extra })}\n\n`;
const delta = (turn: number, value: object, finish: string | null = null) =>
	chunk(turn, [{ index: 0, delta: value, finish_reason: finish }]);

/** Reply `turn` on the Chat Completions wire: the same sentence and `lookup` call, or the closing summary. */
export function scriptedChatReply(turn: number): string {
	const last = turn === TURNS;
	return [
		delta(turn, { role: "assistant", content: "" }),
		delta(turn, { content: last ? `All ${TURNS - 1} items looked up.` : `Looking up item ${turn}.` }),
		...(last
			? []
			: [
					delta(turn, {
						tool_calls: [
							{
								index: 0,
								id: `call_${String(turn).padStart(4, "0")}`,
								type: "function",
								function: { name: TOOL_NAME, arguments: "" },
							},
						],
					}),
					delta(turn, {
						tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ item: turn }) } }],
					}),
				]),
		delta(turn, {}, last ? "stop" : "tool_calls"),
		chunk(turn, [], {
			usage: { prompt_tokens: 100 + turn, completion_tokens: 20, total_tokens: 120 + turn },
		}),
		"data: [DONE]\n\n",
	].join("");
}

/** A loopback server scripted with the whole conversation; `requests` holds the bodies as received. */
export function startConversationServer(wire: Wire = "anthropic-messages") {
	const reply = wire === "anthropic-messages" ? scriptedReply : scriptedChatReply;
	return startReplayServer(
		Array.from({ length: TURNS }, (_, i) => ({
			type: "sse" as const,
			body: reply(i + 1),
			split: false as const,
		})),
	);
}

/** The shape both libraries' transcript messages share, as far as the transform needs it. */
interface PrunableMessage {
	role: string;
	content?: unknown;
}

/**
 * The context transform under test, generic over the library's message type: on every 50th call it moves
 * the cut to all tool results but the latest {@link KEEP_RECENT}; on every call it returns the transcript with
 * the tool results before the cut replaced by new pruned copies (a transform's output is not written back,
 * so the copies are rebuilt each call — same content, new objects). `pruningTurns` lists the calls that
 * moved the cut: those requests necessarily differ early and are left out of the target.
 */
export function pruningTransform<M extends PrunableMessage>() {
	let calls = 0;
	let cut = 0;
	const pruningTurns: number[] = [];
	const transform = (messages: M[]): M[] => {
		calls++;
		if (calls % PRUNE_EVERY === 0) {
			const results = messages.filter((message) => message.role === "toolResult").length;
			const next = Math.max(0, results - KEEP_RECENT);
			if (next > cut) pruningTurns.push(calls);
			cut = Math.max(cut, next);
		}
		let ordinal = 0;
		return messages.map((message) => {
			if (message.role !== "toolResult" || ordinal++ >= cut) return message;
			return { ...message, content: [{ type: "text", text: PRUNED_TEXT }] };
		});
	};
	return { transform, pruningTurns, calls: () => calls };
}

/** Bytes two buffers share from their start. */
export function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a[i] === b[i]) i++;
	return i;
}

/** Per request from the second on: how much of the previous request's wire body it repeats as its prefix. */
export interface TurnShare {
	/** 1-based request number. */
	turn: number;
	/** Common prefix ÷ the previous body's length: the part a prefix cache could reuse. */
	ofPrevious: number;
	/** Common prefix ÷ this body's length. */
	ofCurrent: number;
	/** As `ofPrevious`, with every `cache_control` marker removed from both bodies first. */
	ofPreviousUnmarked: number;
	bytes: number;
}

/**
 * A body without its `cache_control` markers. Anthropic's cache matches the content up to a breakpoint, not
 * the markers themselves (the usual pattern moves the last breakpoint every turn and still hits), so this is
 * the part of the body its prefix cache can match — the wire bytes themselves differ where a marker moved.
 */
export function withoutCacheMarkers(body: string): string {
	return body.replace(/,"cache_control":\{[^{}]*\}/g, "").replace(/"cache_control":\{[^{}]*\},/g, "");
}

function share(previous: string, current: string): { common: number; of: number } {
	const a = Buffer.from(previous, "utf8");
	const common = commonPrefixLength(a, Buffer.from(current, "utf8"));
	return { common, of: common / a.length };
}

/** The shares of a recorded conversation (requests in order). */
export function prefixShares(requests: readonly RecordedRequest[]): TurnShare[] {
	const bodies = requests.map((request) => request.body);
	const unmarked = bodies.map(withoutCacheMarkers);
	const shares: TurnShare[] = [];
	for (let i = 1; i < bodies.length; i++) {
		const current = bodies[i] as string;
		const wire = share(bodies[i - 1] as string, current);
		const bytes = Buffer.byteLength(current, "utf8");
		shares.push({
			turn: i + 1,
			ofPrevious: wire.of,
			ofCurrent: wire.common / bytes,
			ofPreviousUnmarked: share(unmarked[i - 1] as string, unmarked[i] as string).of,
			bytes,
		});
	}
	return shares;
}

/** One library's conversation on one wire: every request's shares and which requests moved the pruning cut. */
export interface Conversation {
	wire: Wire;
	shares: TurnShare[];
	pruningTurns: number[];
}

/**
 * The whole script ran (every reply consumed, every request on the wire's path) and the transform ran once
 * per request.
 */
export function checkConversation(
	requests: readonly RecordedRequest[],
	transformCalls: number,
	wire: Wire = "anthropic-messages",
): void {
	if (requests.length !== TURNS)
		throw new Error(`expected ${TURNS} requests, the server saw ${requests.length}`);
	if (transformCalls !== TURNS) throw new Error(`transform ran ${transformCalls}× for ${TURNS} requests`);
	const stray = requests.find((request) => request.path !== WIRE_PATHS[wire]);
	if (stray) throw new Error(`a ${wire} request went to ${stray.path}, not ${WIRE_PATHS[wire]}`);
}
