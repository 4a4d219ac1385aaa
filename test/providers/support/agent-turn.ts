/**
 * The end-to-end turn the provider suites share: an Agent with `add` and `multiply` asked to use both, over a
 * recorded parallel-calls reply and a recorded text reply. Both tools must run, every call must be paired and
 * the transcript must be user, assistant, two results, assistant.
 */
import { expect } from "vitest";
import { Agent, type AgentOptions } from "../../../src/agent/agent.js";
import { assertPaired } from "../../support/trace.js";
import { arithmeticTool } from "./transcript.js";

/** Run the two-tool turn on an Agent built from `options` (its tools are supplied) and check its shape. */
export async function runArithmeticTurn(options: Omit<AgentOptions, "tools">): Promise<Agent> {
	const agent = new Agent({
		...options,
		tools: [arithmeticTool("add", (a, b) => a + b), arithmeticTool("multiply", (a, b) => a * b)],
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
	return agent;
}
