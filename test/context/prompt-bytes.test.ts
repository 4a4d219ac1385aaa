/**
 * Issue 4, SPEC X2 prompt-bytes test: 50 turns of the real loop on the scripted model, every request body
 * built by the real Anthropic request builder (no network). `transformContext` rewrites message 10 from turn
 * 30 on (pruning an old tool result, as hosts do), so turn 30 is the one request that may not extend the
 * previous one — and it still shares everything before message 10.
 */
import { describe, expect, it } from "vitest";
import {
	type AgentMessage,
	AppendOnlyContextManager,
	agentLoop,
	type CacheHints,
	type Message,
	type StreamFunction,
	type ToolResultMessage,
} from "../../src/index.js";
import { type AnthropicOptions, buildAnthropicRequest } from "../../src/providers/anthropic/index.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import { echoTool, user } from "../support/run.js";
import { collect } from "../support/trace.js";

const TURNS = 50;
const EDIT_TURN = 30;
const EDITED_INDEX = 10;

interface Request {
	/** The body exactly as sent, cache breakpoints included. */
	sent: string;
	/** The same body without `cache_control` markers: the bytes the provider's prefix cache is keyed on. */
	plain: string;
	messages: readonly Message[];
	hints: CacheHints | undefined;
}

/** Run the 50-turn conversation and capture every request body. */
async function capture(
	manager: AppendOnlyContextManager | undefined,
	rebuild?: (messages: AgentMessage[], turn: number) => AgentMessage[],
): Promise<Request[]> {
	const scripted = scriptedModel(
		(call) =>
			call.index < TURNS - 1
				? toolReply("echo", { text: `step ${call.index}`, step: call.index })
				: textReply("done"),
		{ model: { id: "claude-sonnet-4-5", api: "anthropic-messages", provider: "anthropic" }, now: () => 0 },
	);
	const requests: Request[] = [];
	const streamFn: StreamFunction = (model, context, options = {}) => {
		const anthropic = options as AnthropicOptions;
		requests.push({
			sent: JSON.stringify(buildAnthropicRequest(model, context, anthropic)),
			plain: JSON.stringify(buildAnthropicRequest(model, context, { ...anthropic, cacheTtl: "off" })),
			messages: context.messages,
			hints: options.cacheHints,
		});
		return scripted.stream(model, context, options);
	};
	let turn = 0;
	const transformContext = (messages: AgentMessage[]): AgentMessage[] => {
		turn++;
		if (rebuild) return rebuild(messages, turn);
		if (turn < EDIT_TURN) return messages;
		// A fresh object on every call, as a pruning pass would build it.
		const pruned = messages.slice();
		const old = pruned[EDITED_INDEX] as ToolResultMessage;
		pruned[EDITED_INDEX] = { ...old, content: [{ type: "text", text: "(output pruned)" }] };
		return pruned;
	};
	const stream = agentLoop(
		[user("Run the steps.")],
		{ systemPrompt: "You run steps.", messages: [], tools: [echoTool()] },
		{
			model: scripted.model,
			streamFn,
			now: () => 0,
			transformContext,
			...(manager ? { contextManager: manager } : {}),
		},
	);
	await collect(stream);
	return requests;
}

const encoder = new TextEncoder();

/** Bytes at the start of `next` equal to the start of `previous`. */
function sharedPrefixBytes(previous: string, next: string): number {
	const a = encoder.encode(previous);
	const b = encoder.encode(next);
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a[i] === b[i]) i++;
	return i;
}

/** Prompt-bytes reuse: bytes each request shares with the previous one, over all bytes sent. */
function reuseRatio(bodies: readonly string[]): number {
	let shared = 0;
	let total = 0;
	for (let i = 0; i < bodies.length; i++) {
		const body = bodies[i] as string;
		total += encoder.encode(body).length;
		if (i > 0) shared += sharedPrefixBytes(bodies[i - 1] as string, body);
	}
	return shared / total;
}

/** The request body up to (not including) message `index`'s wire message. */
function bodyBefore(request: Request, index: number): string {
	const head = JSON.parse(request.plain) as { messages: unknown[] };
	head.messages = head.messages.slice(0, index);
	return JSON.stringify(head).slice(0, -2);
}

describe("prompt bytes over 50 turns (issue 4, SPEC X2)", () => {
	it("SPEC X2: every request but turn 30's extends the previous one; turn 30 shares everything before message 10", async () => {
		const requests = await capture(new AppendOnlyContextManager());
		expect(requests).toHaveLength(TURNS);
		for (let n = 2; n <= TURNS; n++) {
			const previous = requests[n - 2] as Request;
			const current = requests[n - 1] as Request;
			const extends_ = current.plain.startsWith(previous.plain.slice(0, -2));
			expect({ turn: n, extends: extends_ }).toEqual({ turn: n, extends: n !== EDIT_TURN });
		}
		const before = requests[EDIT_TURN - 2] as Request;
		const edited = requests[EDIT_TURN - 1] as Request;
		const head = bodyBefore(before, EDITED_INDEX);
		expect(head.length).toBeGreaterThan(1000);
		expect(edited.plain.startsWith(head)).toBe(true);
		expect(edited.plain.startsWith(bodyBefore(before, EDITED_INDEX + 1))).toBe(false);
		// Messages 0..9 are the very objects sent at turn 29.
		for (let i = 0; i < EDITED_INDEX; i++) expect(edited.messages[i]).toBe(before.messages[i]);
	});

	it("SPEC X2: the hints tell the provider how much is unchanged, and the breakpoints follow them", async () => {
		const requests = await capture(new AppendOnlyContextManager());
		requests.forEach((request, i) => {
			const turn = i + 1;
			const previousLength = i === 0 ? 0 : (requests[i - 1] as Request).messages.length;
			expect(request.hints).toEqual({
				stablePrefixChanged: turn === 1,
				unchangedMessages: turn === EDIT_TURN ? EDITED_INDEX : previousLength,
			});
		});
		// From turn 30 on the one message breakpoint is the anchor at the end of messages 0..9, where cached
		// bytes stop; the moving tail is the server's (top-level cache_control).
		for (let turn = 1; turn <= TURNS; turn++) {
			const sent = JSON.parse((requests[turn - 1] as Request).sent) as {
				cache_control?: unknown;
				messages: { content: { cache_control?: unknown }[] }[];
			};
			const marked = sent.messages.flatMap((m, i) =>
				m.content.flatMap((block, j) => (block.cache_control ? [`m${i}.${j}`] : [])),
			);
			expect({ turn, marked }).toEqual({ turn, marked: turn < EDIT_TURN ? [] : [`m${EDITED_INDEX - 1}.0`] });
			expect(sent.cache_control).toEqual({ type: "ephemeral" });
		}
	});

	it("SPEC X2: as sent, markers included, every request but turn 30's extends the previous one", async () => {
		const requests = await capture(new AppendOnlyContextManager());
		for (let n = 2; n <= TURNS; n++) {
			const previous = (requests[n - 2] as Request).sent;
			const extends_ = (requests[n - 1] as Request).sent.startsWith(previous.slice(0, -2));
			expect({ turn: n, extends: extends_ }).toEqual({ turn: n, extends: n !== EDIT_TURN });
		}
	});

	it("SPEC X2: a host that rebuilds its messages (keys reordered) still sends the earlier bytes", async () => {
		// E.g. a transcript reloaded from a store that does not keep key order: new objects, equal content.
		const reorder = (value: unknown): unknown => {
			if (Array.isArray(value)) return value.map(reorder);
			if (value === null || typeof value !== "object") return value;
			return Object.fromEntries(
				Object.entries(value)
					.reverse()
					.map(([k, v]) => [k, reorder(v)]),
			);
		};
		const rebuild = (messages: AgentMessage[], turn: number) =>
			turn % 2 === 0 ? (messages.map(reorder) as AgentMessage[]) : messages;
		const extending = (requests: Request[]) =>
			requests.slice(1).filter((r, i) => r.plain.startsWith((requests[i] as Request).plain.slice(0, -2)))
				.length;
		expect(extending(await capture(new AppendOnlyContextManager(), rebuild))).toBe(TURNS - 1);
		expect(extending(await capture(undefined, rebuild))).toBeLessThan(TURNS / 10);
	});

	it("measures the prompt-bytes reuse ratio", async () => {
		const managed = await capture(new AppendOnlyContextManager());
		const unmanaged = await capture(undefined);
		// Anthropic excludes `cache_control` from its cache key, so the marker-free bytes are what its prefix
		// cache reuses; a raw-prefix cache reads the bytes as sent. With the manager no marker moves inside
		// the body (fixed anchor, server-placed tail), so both measures agree.
		const ratios = {
			"cache-keyed bytes, with manager": reuseRatio(managed.map((r) => r.plain)),
			"cache-keyed bytes, without manager": reuseRatio(unmanaged.map((r) => r.plain)),
			"bytes as sent, with manager": reuseRatio(managed.map((r) => r.sent)),
			"bytes as sent, without manager": reuseRatio(unmanaged.map((r) => r.sent)),
		};
		console.log(
			`prompt-bytes reuse over ${TURNS} turns (message ${EDITED_INDEX} rewritten from turn ${EDIT_TURN}):\n${Object.entries(
				ratios,
			)
				.map(([name, ratio]) => `  ${name}: ${(ratio * 100).toFixed(2)}%`)
				.join("\n")}`,
		);
		expect(ratios["cache-keyed bytes, with manager"]).toBeGreaterThan(0.9);
		expect(ratios["cache-keyed bytes, with manager"]).toBeGreaterThanOrEqual(
			ratios["cache-keyed bytes, without manager"],
		);
		expect(ratios["bytes as sent, with manager"]).toBeGreaterThanOrEqual(
			ratios["bytes as sent, without manager"],
		);
	});
});
