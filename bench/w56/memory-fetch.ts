/**
 * The one transport of W5, the same for every library: a `fetch` replacement that answers every request with
 * the corpus as a 200 `text/event-stream` `Response` over a `ReadableStream`, one 16 KiB chunk per pull (as a
 * socket would hand it over), straight from memory — so only decoding is measured, never the network.
 */

/** Bytes per chunk of the response body. */
export const CHUNK_BYTES = 16 * 1024;

/** A `fetch` that serves `body` for every request; `requests()` counts what it answered. */
export function memoryFetch(body: Uint8Array): { fetch: typeof fetch; requests(): number } {
	let requests = 0;
	const fetchFn = async (_input: unknown, init?: { signal?: AbortSignal | null }) => {
		requests++;
		let offset = 0;
		const stream = new ReadableStream<Uint8Array>({
			pull(controller) {
				if (init?.signal?.aborted) return controller.error(init.signal.reason);
				if (offset >= body.length) return controller.close();
				controller.enqueue(body.subarray(offset, offset + CHUNK_BYTES));
				offset += CHUNK_BYTES;
			},
		});
		return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
	};
	return { fetch: fetchFn as typeof fetch, requests: () => requests };
}

/** Install `fetchFn` as the global `fetch` (for clients that take no `fetch` option); returns the undo. */
export function installGlobalFetch(fetchFn: typeof fetch): () => void {
	const original = globalThis.fetch;
	globalThis.fetch = fetchFn;
	return () => {
		globalThis.fetch = original;
	};
}

/** One streaming request over the corpus through a library; resolves to the text characters it decoded. */
export type Decode = (fetchFn: typeof fetch) => Promise<number>;
