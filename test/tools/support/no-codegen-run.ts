/**
 * Run by no-codegen.test.ts as `node --disallow-code-generation-from-strings --import tsx <this file>`: an
 * Agent on the scripted model calls a JSON Schema tool with bad arguments, then good ones, then finishes.
 * Prints one JSON line: what the tool received and the tool results the model read.
 */
import { Agent } from "../../../src/agent/agent.js";
import { scriptedModel } from "../../../src/testing/index.js";
import type { AgentTool } from "../../../src/tools/types.js";

// Proves the flag is in force: were it not, the test would pass without testing anything.
let codegenBlocked = false;
try {
	new Function("return 1");
} catch {
	codegenBlocked = true;
}

const received: unknown[] = [];
const edit: AgentTool = {
	name: "edit",
	description: "Edit a file",
	parameters: {
		type: "object",
		properties: {
			path: { type: "string", minLength: 1 },
			line: { type: "integer", minimum: 1 },
			mode: { enum: ["replace", "insert"], default: "replace" },
		},
		required: ["path", "line"],
		additionalProperties: false,
	},
	execute: async (_id, args) => {
		received.push(args);
		return { content: [{ type: "text", text: "edited" }] };
	},
};
const scripted = scriptedModel([
	{ content: [{ type: "toolCall", name: "edit", arguments: { path: "", line: "3", force: true } }] },
	{ content: [{ type: "toolCall", name: "edit", arguments: { path: "a.ts", line: 3 } }] },
	{ content: [{ type: "text", text: "done" }] },
]);
const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [edit] });
await agent.prompt("edit a.ts");
const results = agent.state.messages.flatMap((message) =>
	message.role === "toolResult"
		? [
				{
					isError: message.isError,
					text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
				},
			]
		: [],
);
console.log(JSON.stringify({ codegenBlocked, received, results }));
