/**
 * The split-invariance property (SPEC E2) for any provider: the final message and the event trace do not
 * depend on where the network cut the bytes (inside multi-byte characters, between CR and LF, inside JSON),
 * over real HTTP through the loopback server. fast-check picks the cut seeds and counts.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { AssistantMessage } from "../../../src/core/messages.js";
import type { Model, StreamFunction } from "../../../src/core/model.js";
import { collectStream } from "./collect.js";
import type { SplitOptions } from "./replay-server.js";
import { startReplayServer } from "./replay-server.js";

/** How a test builds its model once the server's address is known. */
export type ModelAt = (baseUrl: string) => Model;

/** Serve `body` once, cut by `split`, and decode it: the message (timestamp zeroed) and the event-type trace. */
async function decodeOnce(
	stream: StreamFunction,
	modelAt: ModelAt,
	body: Uint8Array,
	split: SplitOptions | false,
): Promise<{ message: AssistantMessage; trace: string }> {
	const server = await startReplayServer([{ type: "sse", body, split }]);
	try {
		const { events, message } = await collectStream(
			stream(
				modelAt(server.baseUrl),
				{ messages: [{ role: "user", content: "hi", timestamp: 1 }] },
				{ apiKey: "k" },
			),
		);
		return { message: { ...message, timestamp: 0 }, trace: events.map((event) => event.type).join(" ") };
	} finally {
		await server.close();
	}
}

/** Assert that `body` decodes to the same message and trace whole and cut at a dozen random sets of offsets. */
export async function expectSplitInvariant(
	stream: StreamFunction,
	modelAt: ModelAt,
	body: Uint8Array,
): Promise<void> {
	const whole = await decodeOnce(stream, modelAt, body, false);
	await fc.assert(
		fc.asyncProperty(
			fc.integer({ min: 1, max: 2 ** 31 - 1 }),
			fc.integer({ min: 2, max: 400 }),
			async (seed, pieces) => {
				const cut = await decodeOnce(stream, modelAt, body, { seed, pieces });
				expect(cut.message).toEqual(whole.message);
				expect(cut.trace).toBe(whole.trace);
			},
		),
		{ numRuns: 12 },
	);
}
