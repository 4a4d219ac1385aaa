// An Agent with one tool, a prompt, a steer while the tool runs, and an abort.
// Runs offline on the scripted model; with ANTHROPIC_API_KEY set it talks to Claude instead.
import { Agent, type AgentTool } from "capstan";
import { getModel } from "capstan/providers";
import { scriptedModel } from "capstan/testing";

const search: AgentTool<{ query: string }> = {
	name: "search",
	description: "Search the project docs",
	parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
	interruptible: true, // a steer may cancel it mid-flight
	execute: (_id, { query }, signal) =>
		new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => resolve({ content: [{ type: "text", text: `3 hits for ${query}` }] }),
				1000,
			);
			signal.addEventListener("abort", () => {
				clearTimeout(timer);
				reject(new Error("cancelled"));
			});
		}),
};
const scripted = scriptedModel([
	{
		content: [
			{ type: "text", text: "Searching." },
			{ type: "toolCall", name: "search", arguments: { query: "capstan" } },
		],
	},
	{ content: [{ type: "toolCall", name: "search", arguments: { query: "winch" } }] },
]);
const live = process.env.ANTHROPIC_API_KEY ? getModel("anthropic", "claude-sonnet-4-5") : undefined;
const agent = new Agent({
	model: live ?? scripted.model,
	streamFn: live ? undefined : scripted.stream,
	tools: [search],
});

agent.subscribe((event) => {
	if (event.type === "tool_execution_start")
		console.log(`→ ${event.toolName}(${JSON.stringify(event.args)})`);
	if (event.type === "tool_execution_end") console.log(`← ${event.toolName}: ${event.status}`);
	if (event.type === "agent_end") console.log("outcome:", event.outcome);
});
const run = agent.prompt("Find the docs about capstan.");
setTimeout(() => agent.steer("Actually, look for 'winch' instead."), 200); // interrupts the first search
setTimeout(() => agent.abort("user pressed Esc"), 700); // aborts the second one
await run;
console.log(agent.state.messages.map((m) => m.role).join(" → "));
