/**
 * Terminal cases no real Responses recording covers (fixtures README, "Not covered"), as hand-written
 * streams marked SYNTHETIC (SPEC M4, S5).
 */
import { describe, expect, it } from "vitest";
import { textOf } from "../support/content.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { HI } from "../support/transcript.js";
import { collect, responsesModel } from "./helpers.js";
import { created, delta, messageAdded, partAdded, sse, usage } from "./synthetic.js";

closeServersAfterEach();

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
		const { message } = await collect(responsesModel(s.baseUrl), HI);
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
		const { message } = await collect(responsesModel(s.baseUrl), HI);
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
		const { message } = await collect(responsesModel(s.baseUrl), HI);
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
		const { message } = await collect(responsesModel(s.baseUrl), HI);
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
		const { message } = await collect(responsesModel(s.baseUrl), HI);
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
		const { message } = await collect(responsesModel(s.baseUrl), HI);
		expect(message.stopReason).toBe("stop");
		expect(textOf(message)).toBe("ok");
	});
});
