import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, type AgentMessage, type AgentTool, type ToolResultMessage } from "../../src/index.js";
import { loadSession, openSessionFile, recordSession } from "../../src/sessions/index.js";
import { scriptedModel, textReply } from "../../src/testing/index.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { assertPaired } from "../support/trace.js";
import { tempCwd } from "./support.js";

/** Collect the child's stdout lines until one starts with `marker`, for at most `ms`. */
function waitForLine(child: ChildProcess, marker: string, ms: number, lines: string[]): Promise<void> {
	return new Promise((resolve, reject) => {
		let buffered = "";
		const timer = setTimeout(
			() => reject(new Error(`no ${marker} within ${ms} ms; saw:\n${lines.join("\n")}`)),
			ms,
		);
		child.stdout?.on("data", (chunk: Buffer) => {
			buffered += chunk.toString("utf8");
			const parts = buffered.split("\n");
			buffered = parts.pop() ?? "";
			for (const line of parts) {
				lines.push(line);
				if (line.startsWith(marker)) {
					clearTimeout(timer);
					resolve();
				}
			}
		});
		child.once("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`child exited (${code}) before ${marker}; saw:\n${lines.join("\n")}`));
		});
	});
}

describe("a session survives kill -9", () => {
	it("SPEC L6: killed while a tool runs, the file holds everything shown; continue() runs the dangling call", {
		timeout: 60_000,
	}, async () => {
		const dir = tempCwd();
		const child = spawn(
			process.execPath,
			["--import", "tsx", join(REPO_ROOT, "test/sessions/crash-child.ts"), dir],
			{
				cwd: REPO_ROOT,
				stdio: ["ignore", "pipe", "inherit"],
			},
		);
		const lines: string[] = [];
		try {
			await waitForLine(child, "SLOW_STARTED", 45_000, lines);
		} finally {
			const exited = new Promise((resolve) => child.once("exit", resolve));
			child.kill("SIGKILL");
			await exited;
		}
		const path = lines.find((l) => l.startsWith("SESSION "))!.slice("SESSION ".length);
		const shown = lines
			.filter((l) => l.startsWith("SHOWN "))
			.map((l) => JSON.parse(l.slice(6)) as AgentMessage);

		const loaded = loadSession(path);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.messages).toEqual(shown);
		// The user message and the reply with both calls. SPEC T7: results are committed in call order when the
		// batch settles, so the fast call's finished result died with the process too and is run again.
		expect(loaded.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);

		const ran: string[] = [];
		const tool = (name: string): AgentTool => ({
			name,
			description: name,
			parameters: { type: "object", properties: {} },
			async execute() {
				ran.push(name);
				return { content: [{ type: "text", text: `${name} done after resume` }] };
			},
		});
		const scripted = scriptedModel([textReply("both done")]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [tool("fast"), tool("slow")],
			messages: loaded.messages,
		});
		recordSession(agent, openSessionFile(path));
		await agent.continue();
		expect(ran).toEqual(["fast", "slow"]);
		const after = loadSession(path).messages;
		expect(after).toEqual(agent.state.messages);
		assertPaired(after);
		expect(after.slice(2, 4).map((m) => (m as ToolResultMessage).toolCallId)).toEqual([
			"call_fast",
			"call_slow",
		]);
		expect(after.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "both done" }] });
	});
});
