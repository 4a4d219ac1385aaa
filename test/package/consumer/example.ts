// One example run against the installed package: an offline agent on the scripted model calls a tool,
// gets its result back and answers. Exits non-zero when the run does not go as scripted.
import { Agent, type AgentTool } from "capstan";
import { scriptedModel, textReply, toolReply } from "capstan/testing";

const add: AgentTool<{ a: number; b: number }> = {
	name: "add",
	description: "Add two numbers",
	parameters: {
		type: "object",
		properties: { a: { type: "number" }, b: { type: "number" } },
		required: ["a", "b"],
	},
	execute: async (_id, { a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
};

const scripted = scriptedModel([toolReply("add", { a: 2, b: 3 }), textReply("2 + 3 = 5")]);
const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [add] });
const results: string[] = [];
agent.subscribe((event) => {
	if (event.type === "tool_execution_end") results.push(`${event.toolName}:${event.status}`);
	if (event.type === "agent_end") results.push(event.outcome.type);
});
await agent.prompt("What is 2 + 3?");
const roles = agent.state.messages.map((message) => message.role).join(" ");
const toolResult = agent.state.messages.find((message) => message.role === "toolResult");
const answer = toolResult?.role === "toolResult" ? toolResult.content[0] : undefined;
const expected = "add:ok completed | user assistant toolResult assistant | 5";
const actual = `${results.join(" ")} | ${roles} | ${answer?.type === "text" ? answer.text : "?"}`;
console.log(`example: ${actual}`);
if (actual !== expected) {
	console.error(`expected: ${expected}`);
	process.exit(1);
}
