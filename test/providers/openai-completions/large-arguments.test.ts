/**
 * SPEC E4 (and the core issue's W3) through a real provider: 1 MB of tool arguments streamed in small deltas
 * through the loopback server. The work per delta must not grow with the arguments already received, so the
 * time for 1 MB stays within a small multiple of four times the time for 256 KB. The payload is the common
 * large case, a file's content in one string. (A huge flat array is not linear today: the core parser copies
 * each open container per snapshot, so a 1 MB array still being written costs O(n²); reported to the core.)
 */
import { expect, it } from "vitest";
import { callsOf } from "../support/content.js";
import { serverForFile } from "../support/loopback.js";
import { collect, testModel } from "./helpers.js";
import { chunk, DONE } from "./synthetic.js";

const server = serverForFile();

/** A stream whose one tool call writes a file of about `bytes` bytes (escapes included), in ~200-byte deltas. */
function bigToolCall(bytes: number): { body: string; args: Record<string, unknown> } {
	const line = 'const café = "naïve";\tx\n';
	const args = { path: "big.ts", content: line.repeat(Math.ceil(bytes / line.length)) };
	const json = JSON.stringify(args);
	let body = chunk({
		tool_calls: [{ index: 0, id: "call_big", type: "function", function: { name: "write", arguments: "" } }],
	});
	for (let offset = 0; offset < json.length; offset += 200)
		body += chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(offset, offset + 200) } }] });
	return { body: body + chunk({}, "tool_calls") + DONE, args };
}

async function timeOne(bytes: number): Promise<number> {
	const { body, args } = bigToolCall(bytes);
	server.enqueue({ type: "sse", body, split: false });
	const started = performance.now();
	const { message } = await collect(testModel(`${server.baseUrl}/v1`));
	const elapsed = performance.now() - started;
	expect(callsOf(message)[0]?.arguments).toEqual(args);
	return elapsed;
}

it("1 MB of streamed tool arguments decodes in linear time", async () => {
	await timeOne(64 * 1024); // warm-up (JIT, sockets)
	const small = Math.min(await timeOne(256 * 1024), await timeOne(256 * 1024));
	const large = await timeOne(1024 * 1024);
	// Linear: ~4×. Quadratic re-parsing would be ~16×. The bound leaves room for noise on a busy machine.
	expect(large).toBeLessThan(small * 10 + 200);
});
