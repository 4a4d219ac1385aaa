/**
 * Vertex `streamFunctionCallArguments` assembly: JSON paths, typed values, continued strings, and the
 * best-effort JSON text behind `toolcall_delta` (SPEC E4).
 */
import type { PartialArg } from "@google/genai";
import { describe, expect, it } from "vitest";
import {
	applyPartialArg,
	buildGeminiRequest,
	PartialArgsJsonWriter,
	parseJsonPath,
	partialArgsState,
} from "../../../src/providers/google/index.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { startReplayServer } from "../support/replay-server.js";
import { collect, geminiModel, hello } from "./helpers.js";

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

describe("streamed Vertex calls emit toolcall_delta with partial arguments (SPEC E4)", () => {
	it("google-stream-tool-call-arguments: deltas show the location growing, the end has the whole object", async () => {
		const fixture = fixturesFor(["google-vertex"]).find((f) => f.file.includes("tool-call-arguments"))!;
		const server = await startReplayServer([
			{ type: "sse", body: responseBodies(fixture)[0]!, split: { seed: 9 } },
		]);
		try {
			const { events } = await collect(geminiModel(server.baseUrl), hello);
			const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.arguments] : []));
			expect(deltas[0]).toEqual({ location: "Boston" });
			const ends = events.flatMap((event) =>
				event.type === "toolcall_end" ? [event.toolCall.arguments] : [],
			);
			expect(ends).toEqual([{ location: "Boston" }, { location: "San Francisco" }]);
		} finally {
			await server.close();
		}
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
