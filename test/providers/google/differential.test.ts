/**
 * Differential check against `@google/genai` 2.x on the same recorded bytes, served by the same loopback
 * server. The SDK has no accumulator for streams (`generateContentStream` yields raw chunks), so we compare
 * what its `GenerateContentResponse` getters read chunk by chunk — `.text` and `.functionCalls`, summed over
 * the chunks — with our final message. Where the SDK is wrong, the recording decides (issue 3): ours must
 * match the recording, and the SDK's case is listed below as a known fault.
 */
import { GoogleGenAI } from "@google/genai";
import { describe, expect, it } from "vitest";
import { textOf } from "../support/content.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { HI } from "../support/transcript.js";
import { GEMINI_FOLDERS, geminiFacts } from "./facts.js";
import { collect, geminiModel } from "./helpers.js";

const FIXTURES = fixturesFor(GEMINI_FOLDERS);

/** Fixture → how the SDK's chunk-by-chunk reading goes wrong on it (confirmed by this test). */
const KNOWN_SDK_FAULTS: Record<string, RegExp> = {
	// Vertex `streamFunctionCallArguments`: `.functionCalls` hands out every fragment as a call of its own
	// (nameless `partialArgs` pieces, empty `{}` terminators) and never assembles the arguments.
	"google-vertex/google-stream-tool-call-arguments.chunks.txt": /\{"name":"","arguments":\{\}\}/,
	"google-vertex/google-stream-no-args-tool-call.chunks.txt": /\{"name":"","arguments":\{\}\}/,
	// A bare JSON error body after the events: the SDK throws a JSON framing error, losing both the content
	// streamed so far and the server's error (499 CANCELLED) — ours keeps the text and reports the error.
	"google-vertex/streaming-failure-error-mid-stream.txt": /Incomplete JSON segment/,
};

interface Comparable {
	text: string;
	toolCalls: { name: string; arguments: unknown }[];
}

async function readWithSdk(baseUrl: string): Promise<Comparable> {
	const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl } });
	const stream = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hi" });
	let text = "";
	const toolCalls: Comparable["toolCalls"] = [];
	for await (const chunk of stream) {
		text += chunk.text ?? "";
		for (const call of chunk.functionCalls ?? [])
			toolCalls.push({ name: call.name ?? "", arguments: call.args ?? {} });
	}
	return { text, toolCalls };
}

closeServersAfterEach();

describe("Gemini: differential check against @google/genai 2.x chunk getters", () => {
	for (const fixture of FIXTURES) {
		it(fixture.file, async () => {
			const [body] = responseBodies(fixture);
			const script = { type: "sse" as const, body: body!, split: { seed: 5 } };
			const server = await serve(script, script);
			let sdk: Comparable | Error;
			try {
				sdk = await readWithSdk(server.baseUrl);
			} catch (error) {
				sdk = error as Error;
			}
			const { message } = await collect(geminiModel(server.baseUrl), HI);
			const ours: Comparable = {
				text: textOf(message),
				toolCalls: message.content.flatMap((block) =>
					block.type === "toolCall" ? [{ name: block.name, arguments: block.arguments }] : [],
				),
			};
			const fault = KNOWN_SDK_FAULTS[fixture.file];
			if (fault) {
				const facts = geminiFacts(body!);
				expect(ours.text).toBe(facts.text);
				expect(ours.toolCalls).toEqual(
					facts.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })),
				);
				expect(sdk instanceof Error ? sdk.message : JSON.stringify(sdk)).toMatch(fault);
				return;
			}
			if (sdk instanceof Error) throw sdk;
			expect(ours).toEqual(sdk);
		});
	}
});
