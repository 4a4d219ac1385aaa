/**
 * Vertex `streamFunctionCallArguments` assembly: JSON paths, typed values, continued strings, and the
 * best-effort JSON text behind `toolcall_delta` (SPEC E4).
 */
import type { PartialArg } from "@google/genai";
import { describe, expect, it } from "vitest";
import { AssistantMessageBuilder } from "../../../src/core/assistant-builder.js";
import {
	applyPartialArg,
	buildGeminiRequest,
	type GeminiChunk,
	GeminiStreamDecoder,
	PartialArgsJsonWriter,
	parseJsonPath,
	partialArgsState,
} from "../../../src/providers/google/index.js";
import { fixtureMatching, responseBodies } from "../support/fixtures.js";
import { closeServersAfterEach, serveBodies } from "../support/loopback.js";
import { HI } from "../support/transcript.js";
import { collect, geminiModel } from "./helpers.js";

function assemble(args: PartialArg[]) {
	const state = partialArgsState();
	const writer = new PartialArgsJsonWriter();
	let json = "";
	for (const arg of args) {
		applyPartialArg(state, arg);
		json += writer.write(arg);
	}
	return { args: state.args, json, abandoned: writer.abandoned };
}

closeServersAfterEach();

describe("parseJsonPath", () => {
	it("reads dotted keys, indices and quoted keys", () => {
		expect(parseJsonPath("$.a.b[2]['c d'][\"e\"]")).toEqual(["a", "b", 2, "c d", "e"]);
		expect(parseJsonPath("a.b")).toBeUndefined();
		expect(parseJsonPath("$.a[x]")).toBeUndefined();
	});

	it("refuses __proto__ (model-chosen keys must not reach prototypes)", () => {
		expect(parseJsonPath("$.__proto__.polluted")).toBeUndefined();
		const { args } = assemble([{ jsonPath: "$.__proto__.polluted", stringValue: "yes" }]);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect(args).toEqual({});
	});
});

describe("applyPartialArg + PartialArgsJsonWriter", () => {
	it("continues strings across fragments and writes JSON text that parses to the same object", () => {
		const result = assemble([
			{ jsonPath: "$.location", stringValue: "Bos", willContinue: true },
			{ jsonPath: "$.location", stringValue: 'ton "MA"', willContinue: true },
			{ jsonPath: "$.location", stringValue: "" },
			{ jsonPath: "$.days", numberValue: 3 },
			{ jsonPath: "$.metric", boolValue: true },
			{ jsonPath: "$.note", nullValue: "NULL_VALUE" },
		]);
		expect(result.args).toEqual({ location: 'Boston "MA"', days: 3, metric: true, note: null });
		expect(JSON.parse(`${result.json}}`)).toEqual(result.args);
		expect(result.abandoned).toBe(false);
	});

	it("nested paths are assembled; the writer stops writing (the final object still arrives)", () => {
		const result = assemble([
			{ jsonPath: "$.a", stringValue: "x" },
			{ jsonPath: "$.list[0].name", stringValue: "n" },
			{ jsonPath: "$.list[1].name", stringValue: "m" },
		]);
		expect(result.args).toEqual({ a: "x", list: [{ name: "n" }, { name: "m" }] });
		expect(result.abandoned).toBe(true);
		expect(result.json).toBe('{"a":"x"');
	});
});

describe("fragments that do not fit", () => {
	it("an array index past the end is ignored: one fragment cannot make a huge array", () => {
		const { args } = assemble([
			{ jsonPath: "$.items[0]", numberValue: 1 },
			{ jsonPath: "$.items[1]", numberValue: 2 },
			{ jsonPath: "$.items[50000000]", numberValue: 3 },
			{ jsonPath: "$.other[7].x", numberValue: 4 },
			{ jsonPath: "$.items[1]", numberValue: 5 },
		]);
		expect(args).toEqual({ items: [1, 5] });
	});

	it("a call that starts while another streams keeps its fragments to itself", () => {
		const builder = new AssistantMessageBuilder({
			api: "google-generative-ai",
			provider: "google",
			model: "g",
			timestamp: 0,
		});
		const decoder = new GeminiStreamDecoder(builder, geminiModel("http://x"));
		const part = (functionCall: object) => ({
			candidates: [{ content: { role: "model", parts: [{ functionCall }] } }],
		});
		decoder.handle(
			part({
				name: "a",
				willContinue: true,
				partialArgs: [{ jsonPath: "$.q", stringValue: "A" }],
			}) as GeminiChunk,
		);
		decoder.handle(
			part({
				name: "b",
				willContinue: true,
				partialArgs: [{ jsonPath: "$.z", stringValue: "B" }],
			}) as GeminiChunk,
		);
		decoder.handle(part({}) as GeminiChunk);
		const calls = builder.message.content.map((block) =>
			block.type === "toolCall" ? [block.name, block.arguments] : [],
		);
		expect(calls).toEqual([
			["a", { q: "A" }],
			["b", { z: "B" }],
		]);
	});
});

describe("streamed Vertex calls emit toolcall_delta with partial arguments (SPEC E4)", () => {
	it("google-stream-tool-call-arguments: deltas show the location growing, the end has the whole object", async () => {
		const fixture = fixtureMatching(["google-vertex"], "tool-call-arguments");
		const server = await serveBodies(responseBodies(fixture).slice(0, 1), { seed: 9 });
		const { events } = await collect(geminiModel(server.baseUrl), HI);
		const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.arguments] : []));
		expect(deltas[0]).toEqual({ location: "Boston" });
		const ends = events.flatMap((event) => (event.type === "toolcall_end" ? [event.toolCall.arguments] : []));
		expect(ends).toEqual([{ location: "Boston" }, { location: "San Francisco" }]);
	});

	it("compat.streamFunctionCallArguments asks for streamed arguments", () => {
		const body = buildGeminiRequest(
			geminiModel("http://x", { compat: { streamFunctionCallArguments: true } }),
			{
				messages: [],
				tools: [{ name: "f", description: "", parameters: {} }],
			},
		);
		expect(body.toolConfig).toEqual({ functionCallingConfig: { streamFunctionCallArguments: true } });
	});
});

describe("W3 through Vertex streamed arguments (SPEC E4)", () => {
	it("1 MB of string fragments assembles in linear time", () => {
		const fragment = "x".repeat(100);
		const args: PartialArg[] = Array.from({ length: 10_000 }, () => ({
			jsonPath: "$.text",
			stringValue: fragment,
			willContinue: true,
		}));
		args.push({ jsonPath: "$.text", stringValue: "" });
		const began = performance.now();
		const result = assemble(args);
		const elapsed = performance.now() - began;
		expect((result.args.text as string).length).toBe(1_000_000);
		expect(JSON.parse(`${result.json}}`)).toEqual(result.args);
		expect(elapsed).toBeLessThan(3000);
	});
});

describe("W3 through the Gemini decoder (SPEC E4)", () => {
	it("1 MB of streamed string arguments, with a toolcall_delta per fragment, stays linear", () => {
		const builder = new AssistantMessageBuilder({
			api: "google-generative-ai",
			provider: "google",
			model: "m",
			timestamp: 0,
		});
		const decoder = new GeminiStreamDecoder(builder, geminiModel("http://x"));
		const chunk = (part: Record<string, unknown>, finishReason?: string) => ({
			candidates: [
				{
					content: { role: "model", parts: [{ functionCall: part }] },
					...(finishReason ? { finishReason } : {}),
				},
			],
		});
		const began = performance.now();
		decoder.handle(chunk({ name: "write", willContinue: true }) as GeminiChunk);
		for (let i = 0; i < 10_000; i++)
			decoder.handle(
				chunk({
					partialArgs: [{ jsonPath: "$.text", stringValue: "y".repeat(100), willContinue: true }],
					willContinue: true,
				}) as GeminiChunk,
			);
		decoder.handle(
			chunk({ partialArgs: [{ jsonPath: "$.text", stringValue: "" }], willContinue: true }) as GeminiChunk,
		);
		decoder.handle(chunk({}, "STOP") as GeminiChunk);
		expect(decoder.finish()).toBe(true);
		const elapsed = performance.now() - began;
		const call = builder.message.content[0];
		expect(call?.type === "toolCall" && (call.arguments.text as string).length).toBe(1_000_000);
		expect(builder.message.stopReason).toBe("toolUse");
		expect(elapsed).toBeLessThan(3000);
	});
});
