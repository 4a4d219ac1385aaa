/**
 * The Agent on the real Anthropic provider (no streamFn: the default registry stream), over the loopback
 * server: a recorded reply with two parallel tool calls, then a recorded text reply. The Agent runs both tools,
 * the second request replays the calls and both results, and the Agent's transcript is replayable (SPEC L3,
 * T7, I1, I5, Q1).
 */
import { describe, expect, it } from "vitest";
import { runArithmeticTurn } from "../support/agent-turn.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { testModel } from "./helpers.js";

closeServersAfterEach();

const FOLDERS = ["anthropic-messages"];

describe("Agent × Anthropic (recorded parallel calls, then text)", () => {
	it("runs both tools and sends their results back in one user turn", async () => {
		const server = await serve(
			{ type: "sse", body: firstBodyMatching(FOLDERS, "multi_tool_streaming"), split: { seed: 3 } },
			{ type: "sse", body: firstBodyMatching(FOLDERS, "anthropic-text.chunks"), split: { seed: 4 } },
		);
		const agent = await runArithmeticTurn({
			model: testModel(server.baseUrl),
			streamOptions: { apiKey: "test-key" },
		});

		const second = JSON.parse(server.requests[1]!.body) as {
			messages: { role: string; content: { type: string }[] }[];
		};
		expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
		expect(second.messages[2]!.content.map((b) => b.type)).toEqual(["tool_result", "tool_result"]);
		// SPEC I5: the transcript, saved and reloaded, rebuilds the same request bytes.
		const reloaded = JSON.parse(JSON.stringify(agent.state.messages));
		expect(reloaded).toEqual(agent.state.messages);
	});
});
