// Intent tracing (SPEC C5) and thinking levels (SPEC X5). With `intentTracing`, every tool gets a required
// `i` ("concise intent") field; it is removed before validation and reported on tool_execution_start.
// The thinking level is read before every model call, so changing it mid-run applies to the next call.
import { Agent, type AgentTool } from "capstan";
import { scriptedModel } from "capstan/testing";

const search: AgentTool<{ query: string }> = {
	name: "search",
	description: "search the web",
	parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
	execute: async (_id, { query }) => {
		agent.setThinkingLevel("high"); // e.g. the host decides the task got harder
		return { content: [{ type: "text", text: `results for ${query} (the tool never sees "i")` }] };
	},
};
const scripted = scriptedModel([
	{
		content: [
			{ type: "toolCall", name: "search", arguments: { i: "find the release date", query: "capstan 1.0" } },
		],
	},
	{ content: [{ type: "text", text: "It shipped in May." }] },
]);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [search],
	intentTracing: true,
	thinkingLevel: "low",
});
agent.subscribe(
	(e) =>
		e.type === "tool_execution_start" &&
		console.log(`${e.toolName} — intent: ${e.intent}; args: ${JSON.stringify(e.args)}`),
);
await agent.prompt("When was capstan 1.0 released?");
const wire = scripted.calls[0]?.context.tools?.[0]?.parameters as { properties: object };
console.log("wire schema properties:", Object.keys(wire.properties).join(", "));
console.log("thinking level per call:", scripted.calls.map((c) => c.options.thinkingLevel).join(", "));
