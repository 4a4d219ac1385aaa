/**
 * capstan/mcp against a real MCP server (the SDK's McpServer) started over stdio as a child process, driven
 * through a real Agent on the scripted model.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/index.js";
import { connectMcpServers, type McpConnection } from "../../src/mcp/index.js";
import {
	agentWith,
	callReply,
	hasEnded,
	isRunning,
	resultText,
	stdioServerConfig,
	textReply,
} from "./support/harness.js";
import { PIXEL_PNG } from "./support/test-server.js";

let mcp: McpConnection;
beforeAll(async () => {
	mcp = await connectMcpServers(stdioServerConfig(), { stderr: "ignore" });
}, 30_000);
afterAll(async () => {
	await mcp?.close();
});

describe("capstan/mcp over stdio", () => {
	it("lists the server's tools as AgentTools named <server>__<tool>, the input schema as parameters", () => {
		const names = mcp.tools().map((t) => t.name);
		expect(names).toEqual(
			expect.arrayContaining(["test__echo", "test__media", "test__fail", "test__count_to", "test__die"]),
		);
		const echo = mcp.tools().find((t) => t.name === "test__echo");
		expect(echo?.parameters).toMatchObject({
			type: "object",
			properties: { text: { type: "string" } },
			required: ["text"],
		});
		expect(echo?.description).toBe("Echo the text back");
		expect(echo?.mcp).toEqual({ server: "test", tool: "echo", annotations: { readOnlyHint: true } });
		expect(mcp.servers.get("test")?.connected).toBe(true);
	});

	it("SPEC T1: a call runs on the server; text is content, structuredContent stays in details", async () => {
		const { agent, scripted, toolResults } = agentWith(mcp.tools(), [
			callReply("test__echo", { text: "hello" }),
			textReply("done"),
		]);
		await agent.prompt("echo hello");
		const [result] = toolResults();
		expect(result?.isError).toBe(false);
		expect(resultText(result!)).toBe("echo: hello");
		expect(result?.details).toEqual({ server: "test", tool: "echo", structuredContent: { length: 5 } });
		// The model gets the content; `details` is the host's (SPEC T1).
		expect(scripted.calls[1]?.context.messages.at(-1)).toMatchObject({
			role: "toolResult",
			content: [{ type: "text", text: "echo: hello" }],
		});
	});

	it("maps image, audio, resource and resource_link content", async () => {
		const { agent, toolResults } = agentWith(mcp.tools(), [callReply("test__media"), textReply("done")]);
		await agent.prompt("media");
		expect(toolResults()[0]?.content).toEqual([
			{ type: "image", data: PIXEL_PNG, mimeType: "image/png" },
			{ type: "text", text: "[audio result omitted: audio/wav, 4 base64 chars]" },
			{ type: "text", text: "Resource file:///notes.txt:\nthe notes" },
			{ type: "text", text: "Resource link file:///big.bin (big.bin: a large file)" },
		]);
	});

	it("an isError result is an error result and the run goes on", async () => {
		const { agent, scripted, toolResults } = agentWith(mcp.tools(), [
			callReply("test__fail"),
			textReply("sorry"),
		]);
		await agent.prompt("fail");
		const [result] = toolResults();
		expect(result?.isError).toBe(true);
		expect(resultText(result!)).toBe("the disk is full");
		expect(scripted.calls).toHaveLength(2);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("arguments the server rejects come back as an error result", async () => {
		const echo = mcp.tools().find((t) => t.name === "test__echo")!;
		const result = await echo.execute("x", { text: 42 }, new AbortController().signal, () => {}, {
			toolCall: { type: "toolCall", id: "x", name: "test__echo", arguments: {} },
			steeringRequested: new AbortController().signal,
			messages: [],
		});
		expect(result.isError).toBe(true);
	});

	it("progress notifications arrive as tool_execution_update, in order", async () => {
		const { agent, events, toolResults } = agentWith(mcp.tools(), [
			callReply("test__count_to", { n: 3 }),
			textReply("ok"),
		]);
		await agent.prompt("count");
		const updates = events.filter(
			(e): e is Extract<AgentEvent, { type: "tool_execution_update" }> => e.type === "tool_execution_update",
		);
		expect(updates.map((u) => u.partialResult.content)).toEqual(
			[1, 2, 3].map((i) => [{ type: "text", text: `step ${i}` }]),
		);
		expect(updates[2]?.partialResult.details).toEqual({
			server: "test",
			tool: "count_to",
			progress: { progress: 3, total: 3, message: "step 3" },
		});
		expect(resultText(toolResults()[0]!)).toBe("counted to 3");
	});

	it("SPEC A3: aborting the run cancels the call on the server", async () => {
		const { agent, toolResults } = agentWith(mcp.tools(), [
			callReply("test__wait_for_cancel"),
			textReply("never"),
		]);
		agent.subscribe((event) => {
			if (event.type === "tool_execution_update") agent.abort("user pressed stop");
		});
		await agent.prompt("wait");
		expect(toolResults()[0]?.details).toMatchObject({ synthetic: true, reason: "aborted" });
		// The server saw notifications/cancelled: its handler's signal fired.
		const count = mcp.tools().find((t) => t.name === "test__cancellations")!;
		const { agent: asker, toolResults: answers } = agentWith(mcp.tools(), [
			callReply(count.name),
			textReply("ok"),
		]);
		await asker.prompt("how many");
		expect(resultText(answers()[0]!)).toBe("1");
	});

	it("tools/list_changed during a call is picked up before the next model call", async () => {
		const { agent, scripted, toolResults } = agentWith(mcp.tools(), [
			callReply("test__add_tool", { name: "late" }),
			callReply("test__late"),
			textReply("done"),
		]);
		await agent.prompt("add a tool");
		expect(scripted.calls[0]?.context.tools?.map((t) => t.name)).not.toContain("test__late");
		expect(scripted.calls[1]?.context.tools?.map((t) => t.name)).toContain("test__late");
		expect(toolResults().map(resultText)).toEqual(["added late", "late ran"]);
		expect(mcp.tools().map((t) => t.name)).toContain("test__late");
		// refresh() re-lists into the same array.
		const live = mcp.tools();
		await mcp.refresh();
		expect(mcp.tools()).toBe(live);
		expect(live.map((t) => t.name)).toContain("test__late");
	});
});

describe("a server that dies mid-call", () => {
	it("gives a clear error result; the run goes on and later calls fail cleanly", async () => {
		const dying = await connectMcpServers(stdioServerConfig("doomed"), { stderr: "ignore" });
		const lost: string[] = [];
		dying.onConnectionLost((server) => lost.push(server.name));
		try {
			const { agent, scripted, toolResults } = agentWith(dying.tools(), [
				callReply("doomed__die"),
				callReply("doomed__echo", { text: "anyone?" }),
				textReply("the server is gone"),
			]);
			await agent.prompt("die");
			const [died, after] = toolResults();
			const closed =
				"the connection to the server is closed (the server exited, or its connection was lost or closed); none of its tools can be called now";
			expect(died?.isError).toBe(true);
			expect(resultText(died!)).toBe(`MCP tool "die" on server "doomed" failed: ${closed}`);
			expect(after?.isError).toBe(true);
			expect(resultText(after!)).toBe(`MCP tool "echo" on server "doomed" failed: ${closed}`);
			expect(scripted.calls).toHaveLength(3);
			expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
			expect(dying.servers.get("doomed")?.connected).toBe(false);
			// Its tools stay listed, so the model is told why a call fails rather than that the tool is unknown.
			expect(dying.tools().map((t) => t.name)).toContain("doomed__echo");
			expect(lost).toEqual(["doomed"]);
		} finally {
			await dying.close();
		}
		expect(lost).toEqual(["doomed"]);
	}, 30_000);

	it("closing the connection is no lost connection", async () => {
		const connection = await connectMcpServers(stdioServerConfig("closed"), { stderr: "ignore" });
		const lost: string[] = [];
		connection.onConnectionLost((server) => lost.push(server.name));
		await connection.close();
		expect(connection.servers.get("closed")?.connected).toBe(false);
		expect(lost).toEqual([]);
	}, 30_000);
});

describe("McpConnection.terminate", () => {
	it("ends a stdio server at once, synchronously, even one that outlives its input; close() still works", async () => {
		const dir = mkdtempSync(join(tmpdir(), "capstan-mcp-"));
		const pidFile = join(dir, "server.pid");
		const config = stdioServerConfig("t", {
			MCP_TEST_PID_FILE: pidFile,
			MCP_TEST_OUTLIVE_STDIN: join(dir, "input-ended"),
		});
		const connection = await connectMcpServers(config, { stderr: "ignore" });
		const pid = Number(readFileSync(pidFile, "utf8"));
		try {
			expect(isRunning(pid)).toBe(true);
			connection.terminate();
			connection.terminate();
			expect(await hasEnded(pid)).toBe(true);
			await connection.close();
		} finally {
			if (isRunning(pid)) process.kill(pid, "SIGKILL");
			rmSync(dir, { recursive: true, force: true });
		}
	}, 30_000);
});
