import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type ToolResultMessage } from "../../src/index.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import { createWorkspaceTools, MUTATING_TOOLS, processAlive } from "../../src/workspace/index.js";
import { assertPaired } from "../support/trace.js";
import { workspace } from "./support.js";

describe("the workspace tools in an Agent", () => {
	it("are the six named tools; the mutating ones are the ones a host confirms", () => {
		const tools = createWorkspaceTools({ cwd: "." });
		expect(tools.map((t) => t.name)).toEqual([
			"read_file",
			"list_dir",
			"search_text",
			"write_file",
			"edit_file",
			"shell",
		]);
		expect([...MUTATING_TOOLS].sort()).toEqual(["edit_file", "shell", "write_file"]);
		for (const tool of tools) {
			expect(tool.concurrency, tool.name).toBe(MUTATING_TOOLS.has(tool.name) ? "exclusive" : "shared");
			expect(tool.description.length, tool.name).toBeGreaterThan(40);
		}
	});

	it("SPEC T8: a refused path is an error result the model can read, and the run goes on", async () => {
		const { cwd } = workspace();
		const scripted = scriptedModel([
			toolReply("read_file", { path: "../outside/secret.txt" }),
			textReply("ok"),
		]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: createWorkspaceTools({ cwd }),
		});
		await agent.prompt("read it");
		const result = agent.state.messages[2] as ToolResultMessage;
		expect(result.isError).toBe(true);
		expect(result.content).toEqual([
			{
				type: "text",
				text: `Path "../outside/secret.txt" is outside the workspace ${cwd}: tools may only touch files under the working directory.`,
			},
		]);
		expect(agent.state.messages).toHaveLength(4);
	});

	it("SPEC T3: bad arguments come back as an error result naming each bad path, before anything runs", async () => {
		const { cwd } = workspace();
		const scripted = scriptedModel([
			toolReply("read_file", { path: 7, start_line: 0, limit: 10 }),
			textReply("ok"),
		]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: createWorkspaceTools({ cwd }),
		});
		await agent.prompt("read");
		const result = agent.state.messages[2] as ToolResultMessage;
		expect(result.isError).toBe(true);
		const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
		expect(text).toMatch(/path/);
		expect(text).toMatch(/start_line/);
		expect(text).toMatch(/limit/);
	});

	it("SPEC A1: agent.abort() during a shell call ends the command's children; the transcript stays paired", async () => {
		const { cwd } = workspace();
		const scripted = scriptedModel([
			toolReply("shell", { command: "sleep 30 & echo pid:$!; sleep 30 & echo pid:$!; wait" }),
		]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: createWorkspaceTools({ cwd, shell: { killGraceMs: 500 } }),
		});
		const pids: number[] = [];
		const events: AgentEvent[] = [];
		agent.subscribe((event) => {
			events.push(event);
			if (event.type !== "tool_execution_update") return;
			const text = event.partialResult.content.map((c) => (c.type === "text" ? c.text : "")).join("");
			pids.splice(0, pids.length, ...[...text.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1])));
			if (pids.length === 2) agent.abort("Esc");
		});
		await agent.prompt("run it");
		expect(pids).toHaveLength(2);
		const end = events.find((e) => e.type === "tool_execution_end");
		expect(end).toMatchObject({ status: "aborted" });
		assertPaired(agent.state.messages);
		const deadline = Date.now() + 5000;
		while (pids.some(processAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
		expect(pids.filter(processAlive)).toEqual([]);
	});
});
