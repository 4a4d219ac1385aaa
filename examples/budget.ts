// Stop a run when its spend passes a budget, with the beforeModelCall gate (SPEC X6).
import { Agent, type AgentMessage, type AssistantMessage } from "capstan";
import { scriptedModel } from "capstan/testing";

const BUDGET_USD = 0.05;
const spent = (messages: readonly AgentMessage[]) =>
	messages.reduce(
		(sum, m) => sum + (m.role === "assistant" ? (m as AssistantMessage).usage.cost.total : 0),
		0,
	);

// Every scripted reply costs $0.02 and asks for one more tool call: without a budget it would go on.
const costly = { cost: { input: 0.005, output: 0.015, cacheRead: 0, cacheWrite: 0, total: 0.02 } };
const scripted = scriptedModel(
	[{ content: [{ type: "toolCall", name: "step", arguments: {} }], usage: costly }],
	{
		onExhausted: "repeat-last",
	},
);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [
		{
			name: "step",
			description: "one step",
			parameters: { type: "object" },
			execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
		},
	],
	beforeModelCall: ({ messages }) =>
		spent(messages) >= BUDGET_USD ? { stop: true, reason: `budget of $${BUDGET_USD} reached` } : undefined,
});
agent.subscribe((e) => e.type === "agent_end" && console.log(e.outcome));
await agent.prompt("Work until done.");
console.log(`model calls: ${scripted.calls.length}, spent: $${spent(agent.state.messages).toFixed(2)}`);
