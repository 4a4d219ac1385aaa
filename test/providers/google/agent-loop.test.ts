/**
 * The real agent loop on the Gemini provider, over the loopback server: a recorded Vertex reply with two
 * parallel function calls, then a recorded text reply. The loop runs both tools and the follow-up request
 * carries the signed calls and both function responses in one user turn (SPEC L3, T7, I5).
 */
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../../src/index.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { arithmeticTool } from "../support/transcript.js";
import { GEMINI_FOLDERS } from "./facts.js";
import { geminiModel } from "./helpers.js";

closeServersAfterEach();

describe("agentLoop × Gemini (recorded parallel calls, then text)", () => {
	it("runs both calls, sends both responses in one user turn, and ends with the text reply", async () => {
		const pick = (name: string) => firstBodyMatching(GEMINI_FOLDERS, name);
		const server = await serve(
			{ type: "sse", body: pick("multi_tool_streaming"), split: { seed: 1 } },
			{ type: "sse", body: pick("google-text.chunks"), split: { seed: 2 } },
		);
		const run = agentLoop(
			[{ role: "user", content: "Add 2 and 3, and multiply them.", timestamp: 1 }],
			{
				messages: [],
				tools: [arithmeticTool("add", (a, b) => a + b), arithmeticTool("multiply", (a, b) => a * b)],
			},
			{ model: geminiModel(server.baseUrl), streamOptions: { apiKey: "test-key" } },
		);
		for await (const _event of run) {
			// drain
		}
		const messages = await run.result();
		expect(messages.map((m) => ("role" in m ? m.role : "?"))).toEqual([
			"user",
			"assistant",
			"toolResult",
			"toolResult",
			"assistant",
		]);
		const second = JSON.parse(server.requests[1]!.body) as {
			contents: { role: string; parts: Record<string, unknown>[] }[];
		};
		expect(second.contents.map((c) => c.role)).toEqual(["user", "model", "user"]);
		expect(second.contents[1]!.parts[0]).toMatchObject({
			functionCall: { name: "add", args: { a: 2, b: 3 } },
			thoughtSignature: expect.any(String),
		});
		expect(second.contents[2]!.parts).toEqual([
			{ functionResponse: { name: "add", response: { output: "5" } } },
			{ functionResponse: { name: "multiply", response: { output: "6" } } },
		]);
		const last = messages.at(-1);
		expect(last?.role === "assistant" && last.stopReason).toBe("stop");
	});
});
