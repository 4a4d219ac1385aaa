/**
 * Run by crash.test.ts in a child process: a scripted agent whose reply calls a fast and a slow tool, with
 * its session recorded in the folder given as argv[2]. It prints every message as its `message_end` fires
 * ("shown" to the user), then `SLOW_STARTED` once the slow tool runs, and waits to be killed.
 */
import { Agent, type AgentTool } from "../../src/index.js";
import { createSessionFile, recordSession } from "../../src/sessions/index.js";
import { scriptedModel } from "../../src/testing/index.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: crash-child.ts <session dir>");

const tool = (name: string, ms: number, onStart?: () => void): AgentTool => ({
	name,
	description: name,
	parameters: { type: "object", properties: {} },
	async execute() {
		onStart?.();
		await new Promise((resolve) => setTimeout(resolve, ms));
		return { content: [{ type: "text", text: `${name} done` }] };
	},
});

const scripted = scriptedModel([
	{
		content: [
			{ type: "toolCall", name: "fast", id: "call_fast" },
			{ type: "toolCall", name: "slow", id: "call_slow" },
		],
	},
]);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [tool("fast", 0), tool("slow", 60_000, () => process.stdout.write("SLOW_STARTED\n"))],
});
const file = createSessionFile({ cwd: dir, dir, model: scripted.model });
recordSession(agent, file);
agent.subscribe((event) => {
	if (event.type === "message_end") process.stdout.write(`SHOWN ${JSON.stringify(event.message)}\n`);
});
process.stdout.write(`SESSION ${file.path}\n`);
await agent.prompt("run both tools");
