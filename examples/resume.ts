// Crash resume (SPEC L6, Q4): a transcript saved right after the model asked for tools — before any result
// was written — is loaded back; continue() runs the unanswered calls first, then the loop goes on.
import { Agent, type AgentMessage } from "capstan";
import { scriptedModel } from "capstan/testing";

const saved = JSON.stringify([
	{ role: "user", content: "What is in the two files?", timestamp: 1 },
	{
		role: "assistant",
		content: [
			{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } },
			{ type: "toolCall", id: "call_2", name: "read", arguments: { path: "b.txt" } },
		],
		api: "scripted",
		provider: "scripted",
		model: "scripted-model",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "toolUse",
		timestamp: 2,
	},
]); // …the process crashed here.

const scripted = scriptedModel([
	{ content: [{ type: "text", text: "a.txt says hello, b.txt says world." }] },
]);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	messages: JSON.parse(saved) as AgentMessage[],
	tools: [
		{
			name: "read",
			description: "read a file",
			parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
			execute: async (_id, { path }: { path: string }) => ({
				content: [{ type: "text", text: path === "a.txt" ? "hello" : "world" }],
			}),
		},
	],
});
await agent.continue();
console.log(agent.state.messages.map((m) => m.role).join(" → "));
