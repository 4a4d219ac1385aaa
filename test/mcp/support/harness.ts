/** Connects the bridge to the test servers and drives a real `Agent` on the scripted model. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Agent, type AgentEvent, type AgentTool, type ToolResultMessage } from "../../../src/index.js";
import type { McpServersConfig } from "../../../src/mcp/index.js";
import { type Script, scriptedModel } from "../../../src/testing/index.js";
import { REPO_ROOT } from "../../providers/support/fixtures.js";

const TSX = resolve(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");
const STDIO_SERVER = resolve(REPO_ROOT, "test/mcp/support/stdio-server.ts");

/**
 * The stdio test server as an `mcpServers` entry: node with the tsx loader, stderr kept out of the output; `env`
 * sets its switches (stdio-server.ts).
 */
export function stdioServerConfig(name = "test", env?: Record<string, string>): McpServersConfig {
	const command = { command: process.execPath, args: ["--import", TSX, STDIO_SERVER] };
	return { mcpServers: { [name]: env ? { ...command, env } : command } };
}

/**
 * Whether process `pid` runs: it exists (signal 0 reaches it) and is not a zombie — an orphan that died stays
 * one where nobody reaps it (a container's pid 1 may not), which signal 0 cannot tell from a live process.
 */
export function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
	} catch {
		return true; // no /proc (not Linux): signal 0 has the last word
	}
}

/** Whether `done` came true, polling a bounded while (a signal and the exit it causes take a moment). */
export async function eventually(done: () => boolean): Promise<boolean> {
	for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
	return done();
}

/** Whether process `pid` has ended, polling a bounded while. */
export function hasEnded(pid: number): Promise<boolean> {
	return eventually(() => !isRunning(pid));
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

/** The text of a tool result (a transcript's, or one a tool returned). */
export function resultText(result: Pick<ToolResultMessage, "content">): string {
	return result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}

/** Run `tool` on its own, outside any loop: call id "1", a signal never aborted, no transcript. */
export function executeAlone(tool: AgentTool, args: Record<string, unknown> = {}) {
	const signal = new AbortController().signal;
	return tool.execute("1", args, signal, () => {}, {
		toolCall: { type: "toolCall", id: "1", name: tool.name, arguments: args },
		steeringRequested: signal,
		messages: [],
	});
}
