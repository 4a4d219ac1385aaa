import { describe, expect, it } from "vitest";
import { readSseEvents } from "../../../src/providers/base/sse.js";
import { allFixtures, recordedEvents, responseBodies } from "../support/fixtures.js";
import { serverForFile } from "../support/loopback.js";

const server = serverForFile();

async function readAll(body: ReadableStream<Uint8Array>) {
	const events: { event: string | undefined; data: string }[] = [];
	for await (const event of readSseEvents(body)) events.push({ event: event.event, data: event.data });
	return events;
}

describe("readSseEvents over real HTTP", () => {
	// Every recorded body of every API, re-split at random offsets (inside UTF-8 characters, between CR and
	// LF): the events read over fetch equal the events of the whole body parsed at once.
	for (const fixture of allFixtures()) {
		it(`${fixture.file}`, async () => {
			for (const [index, body] of responseBodies(fixture).entries()) {
				for (const seed of [1, 2]) {
					server.enqueue({ type: "sse", body, split: { seed: seed * 31 + index, pieces: 40 } });
					const response = await fetch(`${server.baseUrl}/stream`);
					expect(await readAll(response.body as ReadableStream<Uint8Array>)).toEqual(recordedEvents(body));
				}
			}
		});
	}

	it("decodes a multi-byte character split across chunks and CR/LF split across chunks", async () => {
		const bytes = new TextEncoder().encode('data: {"t":"héllo — 日本 🎉"}\r\n\r\ndata: second\r\n\r\n');
		const pieces = Array.from(bytes, (byte) => new Uint8Array([byte]));
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				for (const piece of pieces) controller.enqueue(piece);
				controller.close();
			},
		});
		expect(await readAll(body)).toEqual([
			{ event: undefined, data: '{"t":"héllo — 日本 🎉"}' },
			{ event: undefined, data: "second" },
		]);
	});

	it("delivers a last event that lacks its trailing blank line", async () => {
		const body = new Response("data: one\n\ndata: [DONE]\n").body as ReadableStream<Uint8Array>;
		expect((await readAll(body)).map((event) => event.data)).toEqual(["one", "[DONE]"]);
	});

	it("reports non-SSE lines to onInvalidLine", async () => {
		const lines: string[] = [];
		const body = new Response('data: one\n\n{"error": 1}\n').body as ReadableStream<Uint8Array>;
		for await (const _ of readSseEvents(body, { onInvalidLine: (line) => lines.push(line) })) {
			// drain
		}
		expect(lines).toEqual(['{"error": 1}']);
	});

	it("stopping early cancels the body; an abort stops before the next event", async () => {
		let cancelled = false;
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(new TextEncoder().encode("data: 1\n\ndata: 2\n\n"));
			},
			cancel() {
				cancelled = true;
			},
		});
		for await (const _event of readSseEvents(body)) break;
		expect(cancelled).toBe(true);

		const abort = new AbortController();
		const seen: string[] = [];
		const twoEvents = new Response("data: 1\n\ndata: 2\n\n").body as ReadableStream<Uint8Array>;
		await expect(
			(async () => {
				for await (const event of readSseEvents(twoEvents, { signal: abort.signal })) {
					seen.push(event.data);
					abort.abort(new Error("stop"));
				}
			})(),
		).rejects.toThrow("stop");
		expect(seen).toEqual(["1"]);
	});
});
