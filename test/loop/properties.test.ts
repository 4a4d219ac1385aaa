/**
 * Property tests of the loop's invariants (SPEC I1–I4), and the regressions they found, shrunk to plain cases.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/index.js";
import { runScript, user } from "../support/run.js";
import { assertPaired } from "../support/trace.js";

describe("regressions found by the properties", () => {
	// Shrunk from the I1 property: a refusal carrying a tool call got its placeholder result (SPEC A3), the
	// refusal was dropped from the next request (SPEC C3) but the placeholder was not, so the provider saw a
	// tool result answering a call it never made (`[user, toolResult, user]`) — a request every provider rejects.
	it("SPEC I1, C3: the results of a refused reply's tool calls are not replayed either", async () => {
		const refused = await runScript([
			{
				content: [{ type: "toolCall", name: "echo", arguments: { text: "x" } }],
				stopDetails: { type: "refusal" },
			},
		]);
		expect(refused.messages.map((m) => (m as { role: string }).role)).toEqual([
			"user",
			"assistant",
			"toolResult",
		]);
		for (const config of [{}, { transformContext: (messages: AgentMessage[]) => messages }]) {
			const next = await runScript([{ content: [{ type: "text", text: "ok" }] }], {
				messages: refused.messages,
				prompts: [user("try something else")],
				config,
			});
			const request = next.scripted.calls[0]?.context.messages ?? [];
			expect(request.map((m) => m.role)).toEqual(["user", "user"]);
			assertPaired(request);
		}
	});
});
