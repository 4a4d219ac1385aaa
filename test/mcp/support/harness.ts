/** Connects the bridge to the test servers and drives a real `Agent` on the scripted model. */
import { resolve } from "node:path";
import { Agent, type AgentEvent, type AgentTool, type ToolResultMessage } from "../../../src/index.js";
import type { McpServersConfig } from "../../../src/mcp/index.js";
import { type Script, scriptedModel } from "../../../src/testing/index.js";
import { REPO_ROOT } from "../../providers/support/fixtures.js";

const TSX = resolve(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");
const STDIO_SERVER = resolve(REPO_ROOT, "test/mcp/support/stdio-server.ts");

/** The stdio test server as an `mcpServers` entry: node with the tsx loader, stderr kept out of the output. */
export function stdioServerConfig(name = "test"): McpServersConfig {
	return { mcpServers: { [name]: { command: process.execPath, args: ["--import", TSX, STDIO_SERVER] } } };
}

/** A scripted tool call reply. */
export function callReply(name: string, args: Record<string, unknown> = {}) {
	return { content: [{ type: "toolCall" as const, name, arguments: args }] };
}

/** A scripted text reply. */
export function textReply(text: string) {
	return { content: [{ type: "text" as const, text }] };
}

/** An agent on a scripted model with these tools, recording its events. */
export function agentWith(tools: AgentTool[], script: Script) {
	const scripted = scriptedModel(script);
	const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools });
	const events: AgentEvent[] = [];
	agent.subscribe((event) => events.push(event));
	const toolResults = () =>
		agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
	return { agent, scripted, events, toolResults };
}

/** The text of a tool result. */
export function resultText(result: ToolResultMessage): string {
	return result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}
