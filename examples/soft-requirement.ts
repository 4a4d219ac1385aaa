// A soft tool requirement (SPEC X1): ask for `plan` before anything else without forcing tool_choice up
// front. The scripted model takes a detour first; the loop skips it and forces `plan` for exactly one call.
import { Agent, type AgentTool, type SoftToolRequirement } from "capstan";
import { scriptedModel } from "capstan/testing";

const tool = (name: string): AgentTool => ({
	name,
	description: `the ${name} tool`,
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: `${name}: done` }] }),
});
const planFirst: SoftToolRequirement = {
	soft: true,
	id: "plan-first",
	toolName: "plan",
	reminder: [{ role: "user", content: "Before editing anything, call `plan`.", timestamp: Date.now() }],
};
const scripted = scriptedModel([
	{ content: [{ type: "toolCall", name: "edit", arguments: {} }] }, // the detour: not run
	{ content: [{ type: "toolCall", name: "plan", arguments: {} }] }, // complies (tool_choice was forced)
	{ content: [{ type: "text", text: "Planned; ready to edit." }] },
]);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [tool("plan"), tool("edit")],
	getToolChoice: () => planFirst,
});
agent.subscribe((e) => e.type === "tool_execution_end" && console.log(`${e.toolName}: ${e.status}`));
await agent.prompt("Refactor the parser.");
console.log(
	"tool_choice per call:",
	scripted.calls.map((c) => JSON.stringify(c.options.toolChoice ?? "auto")).join(", "),
);
