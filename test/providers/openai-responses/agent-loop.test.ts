/**
 * The real agent loop on the OpenAI Responses provider, over the loopback server replaying a recorded
 * four-step tool conversation (gpt-5.1-codex-max, store=false): the loop runs the calculator three times and
 * every follow-up request replays the encrypted reasoning item, the function calls and their outputs
 * (SPEC L3, I5; dispatch through the registry on `model.api`).
 */
import { describe, expect, it } from "vitest";
import { agentLoop } from "../../../src/index.js";
import type { AgentTool } from "../../../src/tools/types.js";
import { fixtureMatching, responseBodies } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { responsesModel } from "./helpers.js";

closeServersAfterEach();

const calculator: AgentTool<{ a: number; b: number; op: string }> = {
	name: "calculator",
	description: "Basic arithmetic",
	parameters: {
		type: "object",
		properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } },
		required: ["a", "b", "op"],
	},
	execute: async (_id, { a, b, op }) => ({
		content: [{ type: "text", text: String(op === "add" ? a + b : a * b) }],
	}),
};

describe("agentLoop × OpenAI Responses (recorded multi-step tool run)", () => {
	it("runs three tool turns and a final answer; each request replays what came before", async () => {
		const fixture = fixtureMatching(["openai-responses"], "reasoning-encrypted-content");
		const server = await serve(
			...responseBodies(fixture).map((body, i) => ({ type: "sse" as const, body, split: { seed: i } })),
		);
		const model = responsesModel(server.baseUrl, { id: "gpt-5.1-codex-max" });
		const run = agentLoop(
			[{ role: "user", content: "Compute ((12 + 7) * 3) * 10 with the calculator.", timestamp: 1 }],
			{ systemPrompt: "Use tools.", messages: [], tools: [calculator] },
			{ model, streamOptions: { apiKey: "test-key", sessionId: "s-1" } },
		);
		const types: string[] = [];
		for await (const event of run) types.push(event.type);
		const messages = await run.result();
		expect(messages.map((m) => ("role" in m ? m.role : "?"))).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"toolResult",
			"assistant",
			"toolResult",
			"assistant",
		]);
		const results = messages.flatMap((m) =>
			m.role === "toolResult" ? [m.content[0]?.type === "text" ? m.content[0].text : ""] : [],
		);
		expect(results).toEqual(["19", "57", "570"]);
		const last = messages.at(-1);
		expect(last?.role === "assistant" && last.content.at(-1)).toMatchObject({
			type: "text",
			text: "The final result is **570**.",
		});
		expect(types.at(-1)).toBe("agent_end");

		const bodies = server.requests.map(
			(request) => JSON.parse(request.body) as { input: { type?: string; call_id?: string }[] },
		);
		expect(bodies).toHaveLength(4);
		const second = bodies[1]!.input;
		expect(second.map((item) => item.type)).toEqual([
			"message",
			"reasoning",
			"function_call",
			"function_call_output",
		]);
		expect(second[2]?.call_id).toBe("call_AB6AaRZ1FYZB2RwS6A5vbdqn");
		expect(second[3]?.call_id).toBe("call_AB6AaRZ1FYZB2RwS6A5vbdqn");
		expect(bodies[3]!.input).toHaveLength(8);
	});
});
