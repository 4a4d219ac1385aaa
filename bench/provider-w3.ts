/**
 * W3 through a real provider (issue 3, "Measure"): one tool call whose arguments are one string of N bytes,
 * streamed by the Anthropic decoder as 64-byte `input_json_delta` events over an in-memory `fetch` (real SSE
 * bytes, real parser, real builder). The growth exponent over 16 KB → 1 MB must stay ≤ 1.1 (linear).
 */
import type { Model } from "../src/core/model.js";
import { streamAnthropic } from "../src/providers/anthropic/index.js";
import { median } from "./core.js";

const model: Model = {
	id: "claude-bench",
	api: "anthropic-messages",
	provider: "anthropic",
	baseUrl: "http://bench.invalid",
	reasoning: false,
	input: ["text"],
	contextWindow: 200_000,
	maxTokens: 8192,
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

function sseBody(bytes: number): Uint8Array {
	const json = JSON.stringify({ data: "x".repeat(bytes) });
	const event = (type: string, data: object) =>
		`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
	const parts = [
		event("message_start", {
			message: {
				id: "msg_1",
				type: "message",
				role: "assistant",
				model: model.id,
				content: [],
				stop_reason: null,
				usage: { input_tokens: 10, output_tokens: 1 },
			},
		}),
		event("content_block_start", {
			index: 0,
			content_block: { type: "tool_use", id: "toolu_1", name: "noop", input: {} },
		}),
	];
	for (let i = 0; i < json.length; i += 64) {
		parts.push(
			event("content_block_delta", {
				index: 0,
				delta: { type: "input_json_delta", partial_json: json.slice(i, i + 64) },
			}),
		);
	}
	parts.push(event("content_block_stop", { index: 0 }));
	parts.push(event("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 100 } }));
	parts.push(event("message_stop", {}));
	return new TextEncoder().encode(parts.join(""));
}

async function decodeOnce(body: Uint8Array): Promise<number> {
	const fetchFn = (async () =>
		new Response(body as Uint8Array<ArrayBuffer>, { status: 200 })) as typeof fetch;
	const start = performance.now();
	const stream = streamAnthropic(model, { messages: [] }, { apiKey: "k", fetch: fetchFn });
	for await (const _event of stream) {
		// every toolcall_delta carries best-effort partial arguments
	}
	const message = await stream.result();
	if (message.stopReason !== "toolUse") throw new Error(`unexpected stop: ${message.errorMessage}`);
	return performance.now() - start;
}

/** Milliseconds per size and the growth exponent from the smallest to the largest size. */
export async function providerW3(sizes = [16, 64, 256, 1024].map((k) => k * 1024), rounds = 5) {
	const rows: { bytes: number; ms: number }[] = [];
	for (const bytes of sizes) {
		const body = sseBody(bytes);
		await decodeOnce(body);
		const samples: number[] = [];
		for (let r = 0; r < rounds; r++) samples.push(await decodeOnce(body));
		rows.push({ bytes, ms: median(samples) });
	}
	const first = rows[0]!;
	const last = rows[rows.length - 1]!;
	return { rows, exponent: Math.log(last.ms / first.ms) / Math.log(last.bytes / first.bytes) };
}
