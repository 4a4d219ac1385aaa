/**
 * The prompt-bytes property over a live conversation (implicit / prompt caching): each request's message
 * array begins, byte for byte, with the previous request's. These drive the conversation turn by turn and
 * read the arrays back from the requests the loopback server recorded.
 */
import { expect } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import { serve } from "./loopback.js";
import type { ReplayServer } from "./replay-server.js";

/** A per-test server answering `turns` requests with `bodies` in rotation, turn `i` cut with seed `i`. */
export function serveTurns(bodies: readonly Uint8Array[], turns: number): Promise<ReplayServer> {
	return serve(
		...Array.from({ length: turns }, (_, i) => ({
			type: "sse" as const,
			body: bodies[i % bodies.length]!,
			split: { seed: i },
		})),
	);
}

/** Append the next user turn: a result (`"<turn>"`) for each tool call of the last reply, else a new question. */
export function appendNextTurn(messages: Message[], turn: number): void {
	const last = messages.at(-1);
	const calls = last?.role === "assistant" ? last.content.filter((block) => block.type === "toolCall") : [];
	if (calls.length === 0) messages.push({ role: "user", content: `question ${turn}`, timestamp: turn });
	for (const call of calls)
		if (call.type === "toolCall")
			messages.push({
				role: "toolResult",
				toolCallId: call.id,
				toolName: call.name,
				content: [{ type: "text", text: `${turn}` }],
				isError: false,
				timestamp: turn,
			});
}

/** The `"<key>":[…]` array that ends a JSON request body, as text; fails unless the array is the last key. */
export function trailingArray(body: string, key: string): string {
	const at = body.indexOf(`"${key}":[`);
	expect(at).toBeGreaterThan(0);
	expect(body.endsWith("]}")).toBe(true);
	return body.slice(at, -2);
}

/** Each text begins with the one before it and is longer. */
export function expectGrowingPrefixes(texts: readonly string[]): void {
	for (let i = 1; i < texts.length; i++) {
		expect(texts[i]!.startsWith(texts[i - 1]!)).toBe(true);
		expect(texts[i]!.length).toBeGreaterThan(texts[i - 1]!.length);
	}
}
