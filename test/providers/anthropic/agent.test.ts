/**
 * The Agent on the real Anthropic provider (no streamFn: the default registry stream), over the loopback
 * server: a recorded reply with two parallel tool calls, then a recorded text reply. The Agent runs both tools,
 * the second request replays the calls and both results, and the Agent's transcript is replayable (SPEC L3,
 * T7, I1, I5, Q1).
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { assertPaired } from "../../support/trace.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { arithmeticTool } from "../support/transcript.js";
import { testModel } from "./helpers.js";

closeServersAfterEach();

const FOLDERS = ["anthropic-messages"];

describe("Agent × Anthropic (recorded parallel calls, then text)", () => {
	it("runs both tools and sends their results back in one user turn", async () => {
		const server = await serve(
			{ type: "sse", body: firstBodyMatching(FOLDERS, "multi_tool_streaming"), split: { seed: 3 } },
			{ type: "sse", body: firstBodyMatching(FOLDERS, "anthropic-text.chunks"), split: { seed: 4 } },
		);
		const agent = new Agent({
			model: testModel(server.baseUrl),
			tools: [arithmeticTool("add", (a, b) => a + b), arithmeticTool("multiply", (a, b) => a * b)],
			streamOptions: { apiKey: "test-key" },
		});
		const statuses: string[] = [];
		agent.subscribe((e) => e.type === "tool_execution_end" && statuses.push(`${e.toolName}:${e.status}`));
		await agent.prompt("Add 2 and 3, and multiply them.");

		expect(agent.state.error).toBeUndefined();
		expect(statuses.sort()).toEqual(["add:ok", "multiply:ok"]);
		expect(agent.state.messages.map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"toolResult",
			"assistant",
		]);
		assertPaired(agent.state.messages);

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
