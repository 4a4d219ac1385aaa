/**
 * The OpenAI Responses provider end to end over the loopback server: the prompt-bytes property across ten
 * turns, error paths (SPEC E3, A8), and hand-written streams for cases no real recording covers (marked
 * SYNTHETIC, as the fixtures README asks).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context } from "../../../src/core/model.js";
import {
	buildResponsesRequest,
	streamOpenAIResponses,
} from "../../../src/providers/openai-responses/index.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { type ReplayServer, type ScriptedResponse, startReplayServer } from "../support/replay-server.js";
import { assertEventShape, collect, hello, responsesModel, textOf } from "./helpers.js";

let server: ReplayServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function serve(...script: ScriptedResponse[]): Promise<ReplayServer> {
	server = await startReplayServer(script);
	return server;
}

/** SSE body from events (named, as api.openai.com sends them). SYNTHETIC streams only. */
function sse(...events: Record<string, unknown>[]): string {
	return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

const created = { type: "response.created", response: { id: "resp_syn", status: "in_progress", output: [] } };
const messageAdded = {
	type: "response.output_item.added",
	output_index: 0,
	item: { id: "msg_syn", type: "message", role: "assistant", status: "in_progress", content: [] },
};
const partAdded = {
	type: "response.content_part.added",
	output_index: 0,
	content_index: 0,
	part: { type: "output_text", text: "", annotations: [] },
};
const delta = (text: string) => ({
	type: "response.output_text.delta",
	output_index: 0,
	content_index: 0,
	delta: text,
});
const usage = {
	input_tokens: 10,
	input_tokens_details: { cached_tokens: 4 },
	output_tokens: 5,
	output_tokens_details: { reasoning_tokens: 2 },
	total_tokens: 15,
};

describe("prompt bytes: ten turns keep the input prefix byte for byte (prompt caching)", () => {
	it("each request's input begins with the previous request's input", async () => {
		const fixture = fixturesFor(["openai-responses"]).find((f) =>
			f.file.includes("reasoning-encrypted-content"),
		);
		const bodies = responseBodies(fixture!);
		const turns = 10;
		const s = await serve(
			...Array.from({ length: turns }, (_, i) => ({
				type: "sse" as const,
				body: bodies[i % bodies.length]!,
				split: { seed: i },
			})),
		);
		const model = responsesModel(s.baseUrl, { id: "gpt-5.1-codex-max" });
		const messages: Message[] = [];
		const context: Context = {
			systemPrompt: "Use the calculator.",
			messages,
			tools: [{ name: "calculator", description: "math", parameters: { type: "object" } }],
		};
		for (let turn = 0; turn < turns; turn++) {
			const last = messages.at(-1);
			const calls = last?.role === "assistant" ? last.content.filter((b) => b.type === "toolCall") : [];
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
			const { message } = await collect(model, context, { thinkingLevel: "high", sessionId: "conv-1" });
			expect(message.stopReason === "stop" || message.stopReason === "toolUse").toBe(true);
			messages.push(message);
		}
		const inputs = s.requests.map((request) => {
			const at = request.body.indexOf('"input":[');
			expect(at).toBeGreaterThan(0);
			// `input` is the last key: the body ends with the input array and the closing brace.
			expect(request.body.endsWith("]}")).toBe(true);
			return request.body.slice(at, -2);
		});
		expect(inputs).toHaveLength(turns);
		for (let i = 1; i < inputs.length; i++) {
			expect(inputs[i]!.startsWith(inputs[i - 1]!)).toBe(true);
			expect(inputs[i]!.length).toBeGreaterThan(inputs[i - 1]!.length);
			// Everything before `input` is identical too.
			expect(s.requests[i]!.body.slice(0, 200)).toBe(s.requests[0]!.body.slice(0, 200));
		}
		// The replayed reasoning item carries its encrypted content unchanged.
		expect(s.requests[1]!.body).toContain('"encrypted_content":"gAAAAABpPDIV');
	});
});

describe("request over the wire", () => {
	it("POSTs to {baseUrl}/responses with a bearer key and the exact body", async () => {
		const s = await serve({
			type: "sse",
			body: sse(created, {
				type: "response.completed",
				response: { id: "resp_syn", status: "completed", output: [], usage },
			}),
		});
		await collect(responsesModel(`${s.baseUrl}/v1/`), hello, { apiKey: "sk-test" });
		expect(s.requests[0]?.method).toBe("POST");
		expect(s.requests[0]?.path).toBe("/v1/responses");
		expect(s.requests[0]?.headers.authorization).toBe("Bearer sk-test");
		expect(JSON.parse(s.requests[0]!.body).store).toBe(false);
	});
});

describe("error paths (SPEC E3, A8): failures are data, never throws", () => {
	it("401 → auth, not retried", async () => {
		const s = await serve({
			type: "http",
			status: 401,
			body: JSON.stringify({ error: { message: "Incorrect API key", code: "invalid_api_key" } }),
		});
		const { message, events } = await collect(responsesModel(s.baseUrl), hello);
		expect(assertEventShape(events)).toBeUndefined();
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("auth");
		expect(message.errorMessage).toContain("Incorrect API key");
		expect(s.requests).toHaveLength(1);
	});

	it("429 with retry-after → retried after the server's delay, reported through onRetry", async () => {
		const ok = sse(created, messageAdded, partAdded, delta("hi"), {
			type: "response.completed",
			response: { id: "resp_syn", status: "completed", output: [], usage },
		});
		const s = await serve(
			{
				type: "http",
				status: 429,
				headers: { "retry-after": "0" },
				body: JSON.stringify({ error: { message: "slow down", code: "rate_limit_exceeded" } }),
			},
			{ type: "sse", body: ok },
		);
		const retries: unknown[] = [];
		const { message } = await collect(responsesModel(s.baseUrl), hello, {
			onRetry: (info) => retries.push(info),
		});
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toBe("hi");
		expect(retries).toEqual([
			{ attempt: 1, delayMs: 0, errorKind: "rate_limit", errorMessage: expect.stringContaining("slow down") },
		]);
	});

	it("429 insufficient_quota → rate_limit, not retried (waiting does not help)", async () => {
		const s = await serve({
			type: "http",
			status: 429,
			body: JSON.stringify({ error: { message: "quota", code: "insufficient_quota" } }),
		});
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.errorKind).toBe("rate_limit");
		expect(s.requests).toHaveLength(1);
	});

	it("500 then success → one retry, the reply arrives", async () => {
		const ok = sse(created, messageAdded, partAdded, delta("fine"), {
			type: "response.completed",
			response: { id: "resp_syn", status: "completed", output: [], usage },
		});
		const s = await serve({ type: "http", status: 500, body: "{}" }, { type: "sse", body: ok });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(textOf(message)).toBe("fine");
		expect(s.requests).toHaveLength(2);
	});

	it("400 context_length_exceeded → context_overflow, not retried", async () => {
		const s = await serve({
			type: "http",
			status: 400,
			body: JSON.stringify({
				error: {
					message: "Your input exceeds the context window of this model.",
					type: "invalid_request_error",
					code: "context_length_exceeded",
				},
			}),
		});
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.errorKind).toBe("context_overflow");
		expect(s.requests).toHaveLength(1);
	});

	it("a connection reset before any byte is retried", async () => {
		const ok = sse(created, messageAdded, partAdded, delta("back"), {
			type: "response.completed",
			response: { id: "resp_syn", status: "completed", output: [], usage },
		});
		const s = await serve({ type: "reset" }, { type: "sse", body: ok });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(textOf(message)).toBe("back");
	});

	it("missing API key → auth error, no request", async () => {
		const s = await serve();
		const stream = streamOpenAIResponses(responsesModel(s.baseUrl, { provider: "nobody-has-this" }), hello);
		const message = await stream.result();
		expect(message.errorKind).toBe("auth");
		expect(s.requests).toHaveLength(0);
	});

	it("a stream without its terminal event → error 'stream ended unexpectedly', content kept", async () => {
		const s = await serve({ type: "sse", body: sse(created, messageAdded, partAdded, delta("partial")) });
		const { message, events } = await collect(responsesModel(s.baseUrl), hello);
		expect(assertEventShape(events)).toBeUndefined();
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("stream ended unexpectedly");
		expect(textOf(message)).toBe("partial");
		expect(message.stopDetails?.type).toBe("stream_interrupted_after_content");
	});

	it("a reply cut off mid-item never replays the unfinished item; finished parts keep their item ids", async () => {
		const reasoningAdded = {
			type: "response.output_item.added",
			output_index: 0,
			item: { id: "rs_cut", type: "reasoning", summary: [], encrypted_content: "partial" },
		};
		const messageAt1 = { ...messageAdded, output_index: 1 };
		const body = sse(
			created,
			reasoningAdded,
			messageAt1,
			{ ...partAdded, output_index: 1 },
			{ ...delta("cut"), output_index: 1 },
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("error");
		expect(message.content[0]).toMatchObject({
			type: "providerBlock",
			data: { id: "rs_cut", status: "in_progress" },
		});
		const input = buildResponsesRequest(responsesModel(s.baseUrl), { messages: [message] }).input;
		expect(input).toEqual([
			{
				type: "message",
				role: "assistant",
				content: [{ type: "output_text", text: "cut", annotations: [] }],
				status: "completed",
				id: "msg_syn",
			},
		]);
	});

	it("an abort mid-stream → aborted with the text so far (SPEC A1, A2)", async () => {
		const s = await serve({ type: "hang", partial: sse(created, messageAdded, partAdded, delta("half a")) });
		const controller = new AbortController();
		const stream = streamOpenAIResponses(responsesModel(s.baseUrl), hello, {
			apiKey: "k",
			signal: controller.signal,
		});
		for await (const event of stream) if (event.type === "text_delta") controller.abort("user pressed stop");
		const message = await stream.result();
		expect(message.stopReason).toBe("aborted");
		expect(message.errorMessage).toBe("user pressed stop");
		expect(textOf(message)).toBe("half a");
	});

	it("a stalled stream → timeout (idleTimeoutMs)", async () => {
		const s = await serve({
			type: "hang",
			partial: sse(created, messageAdded, partAdded, delta("and then")),
		});
		const { message } = await collect(responsesModel(s.baseUrl), hello, { idleTimeoutMs: 50 });
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("timeout");
		expect(textOf(message)).toBe("and then");
	});

	it("SYNTHETIC: an `error` event mid-stream → error with the content so far, classified", async () => {
		const body = sse(
			created,
			messageAdded,
			partAdded,
			delta("so far"),
			{ type: "error", code: "server_error", message: "The server had an error", param: null },
			{
				type: "response.failed",
				response: { id: "resp_syn", status: "failed", error: { code: "server_error", message: "x" } },
			},
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("error");
		expect(message.errorKind).toBe("server");
		expect(message.errorMessage).toBe("The server had an error");
		expect(textOf(message)).toBe("so far");
		expect(s.requests).toHaveLength(1);
	});

	it("SYNTHETIC: response.failed before any content → classified error (retried when transient)", async () => {
		const failed = sse(created, {
			type: "response.failed",
			response: {
				id: "resp_syn",
				status: "failed",
				error: { code: "invalid_prompt", message: "bad prompt" },
			},
		});
		const s = await serve({ type: "sse", body: failed });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toBe("bad prompt");
	});
});

describe("SYNTHETIC terminal cases no recording covers (SPEC M4, S5)", () => {
	it("response.incomplete max_output_tokens → length, with a cut tool call closed with an argumentsError", async () => {
		const body = sse(
			created,
			{
				type: "response.output_item.added",
				output_index: 0,
				item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "write", arguments: "" },
			},
			{
				type: "response.function_call_arguments.delta",
				output_index: 0,
				item_id: "fc_1",
				delta: '{"text":"abc',
			},
			{
				type: "response.incomplete",
				response: {
					id: "resp_syn",
					status: "incomplete",
					incomplete_details: { reason: "max_output_tokens" },
					output: [],
					usage,
				},
			},
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("length");
		const call = message.content.find((block) => block.type === "toolCall");
		expect(call?.type === "toolCall" && call.argumentsError).toMatch(/Invalid JSON/);
		expect(message.usage.input).toBe(6);
		expect(message.usage.cacheRead).toBe(4);
	});

	it("response.incomplete content_filter → error + stopDetails content_filter", async () => {
		const body = sse(created, messageAdded, partAdded, delta("Once upon"), {
			type: "response.incomplete",
			response: {
				id: "resp_syn",
				status: "incomplete",
				incomplete_details: { reason: "content_filter" },
				output: [],
				usage,
			},
		});
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("error");
		expect(message.stopDetails).toEqual({ type: "content_filter", raw: "content_filter" });
		expect(textOf(message)).toBe("Once upon");
	});

	it("an unknown incomplete reason → error with the raw value kept", async () => {
		const body = sse(created, {
			type: "response.incomplete",
			response: {
				id: "resp_syn",
				status: "incomplete",
				incomplete_details: { reason: "solar_flare" },
				output: [],
			},
		});
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("error");
		expect(message.stopDetails).toEqual({ type: "unknown_stop_reason", raw: "solar_flare" });
	});

	it("refusal.delta → a refusal turn: error + stopDetails refusal with the explanation", async () => {
		const body = sse(
			created,
			messageAdded,
			{
				type: "response.content_part.added",
				output_index: 0,
				content_index: 0,
				part: { type: "refusal", refusal: "" },
			},
			{ type: "response.refusal.delta", output_index: 0, content_index: 0, delta: "I can't help" },
			{
				type: "response.refusal.done",
				output_index: 0,
				content_index: 0,
				refusal: "I can't help with that.",
			},
			{ type: "response.completed", response: { id: "resp_syn", status: "completed", output: [], usage } },
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("error");
		expect(message.stopDetails).toEqual({ type: "refusal", explanation: "I can't help with that." });
		expect(textOf(message)).toBe("I can't help with that.");
	});

	it("an item whose output_item.done never came is settled from the terminal response's output, by id", async () => {
		const searchAdded = {
			type: "response.output_item.added",
			output_index: 0,
			item: { id: "ws_1", type: "web_search_call", status: "in_progress" },
		};
		const finalItem = {
			id: "ws_1",
			type: "web_search_call",
			status: "completed",
			action: { type: "search", query: "q" },
		};
		const body = sse(created, searchAdded, {
			type: "response.completed",
			response: { id: "resp_syn", status: "completed", output: [finalItem], usage },
		});
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("stop");
		expect(message.content).toEqual([{ type: "providerBlock", api: "openai-responses", data: finalItem }]);
	});

	it("unknown event types are ignored safely", async () => {
		const body = sse(
			created,
			{ type: "response.future_thing.delta", output_index: 7, delta: 1 },
			messageAdded,
			partAdded,
			delta("ok"),
			{ type: "response.completed", response: { id: "resp_syn", status: "completed", output: [], usage } },
		);
		const s = await serve({ type: "sse", body });
		const { message } = await collect(responsesModel(s.baseUrl), hello);
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toBe("ok");
	});
});
