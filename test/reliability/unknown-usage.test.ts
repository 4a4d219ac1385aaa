/**
 * Hardening item 6: usage that never arrived reads as unknown, not as a free call. A Chat Completions stream
 * cut after `finish_reason` (no usage chunk, no `[DONE]`) completes, but its usage says `unknown: true` (the
 * zeros are placeholders, and so is the cost) — on every provider; run summaries and OTel spans carry the
 * unknown on instead of adding a silent 0 (SPEC M5).
 */
import { SpanStatusCode } from "@opentelemetry/api";
import {
	BasicTracerProvider,
	InMemorySpanExporter,
	SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../src/index.js";
import { openTelemetry } from "../../src/otel.js";
import type { AgentEvent } from "../../src/protocol/events.js";
import { frameEvents } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import type { TestApi } from "../providers/support/models.js";
import { testModel } from "../providers/support/models.js";
import { callApi, FAST, FOLDER, textBody } from "./support.js";

closeServersAfterEach();

// SYNTHETIC replies without any usage, in each API's documented event shapes.
const NO_USAGE: Record<TestApi, object[]> = {
	"anthropic-messages": [
		{
			type: "message_start",
			message: { id: "m1", type: "message", role: "assistant", content: [], model: "m", stop_reason: null },
		},
		{ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
		{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
		{ type: "content_block_stop", index: 0 },
		{ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null } },
		{ type: "message_stop" },
	],
	"openai-completions": [
		{
			id: "c1",
			object: "chat.completion.chunk",
			choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }],
		},
		{ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
	],
	"openai-responses": [
		{
			type: "response.created",
			response: { id: "r1", status: "in_progress", output: [] },
			sequence_number: 0,
		},
		{
			type: "response.output_item.added",
			output_index: 0,
			item: { id: "i1", type: "message", role: "assistant", content: [], status: "in_progress" },
			sequence_number: 1,
		},
		{
			type: "response.content_part.added",
			item_id: "i1",
			output_index: 0,
			content_index: 0,
			part: { type: "output_text", text: "", annotations: [] },
			sequence_number: 2,
		},
		{
			type: "response.output_text.delta",
			item_id: "i1",
			output_index: 0,
			content_index: 0,
			delta: "Hi",
			sequence_number: 3,
		},
		{
			type: "response.output_text.done",
			item_id: "i1",
			output_index: 0,
			content_index: 0,
			text: "Hi",
			sequence_number: 4,
		},
		{
			type: "response.output_item.done",
			output_index: 0,
			item: {
				id: "i1",
				type: "message",
				role: "assistant",
				status: "completed",
				content: [{ type: "output_text", text: "Hi", annotations: [] }],
			},
			sequence_number: 5,
		},
		{
			type: "response.completed",
			response: { id: "r1", status: "completed", output: [] },
			sequence_number: 6,
		},
	],
	"google-generative-ai": [
		{ candidates: [{ content: { role: "model", parts: [{ text: "Hi" }] }, finishReason: "STOP" }] },
	],
};

describe("usage that never arrived is unknown, not zero (hardening item 6)", () => {
	for (const api of Object.keys(NO_USAGE) as TestApi[]) {
		it(`${api}: a reply without usage completes with usage.unknown and cost.unknown`, async () => {
			const server = await serve({
				type: "sse",
				body: frameEvents(FOLDER[api], NO_USAGE[api]),
				split: false,
			});
			const { message } = await callApi(api, server.baseUrl);
			expect(message.stopReason).toBe("stop");
			expect(message.usage.unknown).toBe(true);
			expect(message.usage.cost.unknown).toBe(true);
		});

		it(`${api}: a recorded reply with usage is not marked unknown`, async () => {
			const server = await serve({ type: "sse", body: textBody(api), split: false });
			const { message } = await callApi(api, server.baseUrl);
			expect(message.usage.unknown).toBeUndefined();
			expect(message.usage.cost.unknown).toBeUndefined();
			expect(message.usage.totalTokens).toBeGreaterThan(0);
		});
	}

	it("openai-completions: cut after finish_reason (no usage chunk, no [DONE]) → complete, usage unknown", async () => {
		const server = await serve({
			type: "sse",
			body: frameEvents(FOLDER["openai-completions"], NO_USAGE["openai-completions"]).replace(
				/data: \[DONE\]\s*$/,
				"",
			),
			split: false,
		});
		const { message } = await callApi("openai-completions", server.baseUrl);
		expect(message.stopReason).toBe("stop");
		expect(message.usage).toMatchObject({ unknown: true, totalTokens: 0, cost: { unknown: true, total: 0 } });
	});

	it("a reset mid-stream before usage → usage unknown; an HTTP 401 (nothing billed) → usage known zero", async () => {
		const body = frameEvents(FOLDER["openai-completions"], NO_USAGE["openai-completions"].slice(0, 1));
		const server = await serve({ type: "reset", partial: body }, { type: "http", status: 401, body: "{}" });
		const cut = await callApi("openai-completions", server.baseUrl);
		expect(cut.message.errorKind).toBe("network");
		expect(cut.message.usage.unknown).toBe(true);
		const refused = await callApi("openai-completions", server.baseUrl);
		expect(refused.message.errorKind).toBe("auth");
		expect(refused.message.usage.unknown).toBeUndefined();
	});

	it("the run summary and the OTel spans carry the unknown on instead of a silent zero", async () => {
		const server = await serve({
			type: "sse",
			body: frameEvents(FOLDER["openai-completions"], NO_USAGE["openai-completions"]),
			split: false,
		});
		const exporter = new InMemorySpanExporter();
		const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
		const events: AgentEvent[] = [];
		const stream = agentLoop(
			[{ role: "user", content: "hi", timestamp: 1 }],
			{ messages: [], tools: [] },
			{
				model: testModel("openai-completions", server.baseUrl),
				streamOptions: { apiKey: "k", ...FAST },
				telemetry: { sinks: [openTelemetry(provider.getTracer("t"))] },
			},
		);
		for await (const event of stream) events.push(event);
		const end = events.at(-1);
		if (end?.type !== "agent_end") throw new Error("no agent_end");
		expect(end.summary?.usage.unknown).toBe(true);
		expect(end.summary?.usage.cost.unknown).toBe(true);
		const spans = exporter.getFinishedSpans();
		const chat = spans.find((span) => span.name.startsWith("chat"));
		const run = spans.find((span) => span.name.startsWith("invoke_agent"));
		expect(chat?.status.code).not.toBe(SpanStatusCode.ERROR);
		expect(chat?.attributes["capstan.usage.unknown"]).toBe(true);
		expect(chat?.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
		expect(chat?.attributes["capstan.usage.cost"]).toBeUndefined();
		expect(run?.attributes["capstan.usage.unknown"]).toBe(true);
	});
});
