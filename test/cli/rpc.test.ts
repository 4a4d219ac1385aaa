/**
 * RPC mode end to end (`capstan --rpc`, docs/rpc.md): a child process driven by JSON-line commands, on the
 * scripted demo model (no key) and on the real Chat Completions path against the loopback replay server.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { chunk, DONE, textReply, usageChunk } from "../providers/openai-completions/synthetic.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import {
	cleanUpAfterEach,
	RpcClient,
	runCli,
	sessionFiles,
	sessionMessages,
	startCli,
	tempProject,
	unpairedCalls,
} from "./support.js";

closeServersAfterEach();
cleanUpAfterEach();

type Messages = Parameters<typeof unpairedCalls>[0];

describe("capstan --rpc on the scripted demo model", () => {
	it("prompt, getState and steer mid-run, a malformed line, unknown commands, then EOF exits 0", async () => {
		const rpc = new RpcClient(startCli(["--rpc"], { cwd: tempProject() }));
		const ready = await rpc.waitFor((line) => line.type === "ready");
		expect(ready).toMatchObject({
			model: { provider: "scripted", scripted: true },
			scripted: expect.stringContaining("scripted demo"),
		});

		rpc.sendRaw("this is not json\n");
		expect(await rpc.waitFor((line) => line.type === "response" && line.command === null)).toMatchObject({
			ok: false,
			error: expect.stringContaining("malformed command (not JSON)"),
		});
		rpc.send({ id: 1, type: "fly" });
		expect(await rpc.response(1)).toMatchObject({
			ok: false,
			command: "fly",
			error: expect.stringContaining('unknown command "fly"'),
		});

		rpc.send({ id: 2, type: "prompt", message: "Look around." });
		expect(await rpc.response(2)).toEqual({ type: "response", id: 2, command: "prompt", ok: true });
		rpc.send({ id: 3, type: "prompt", message: "again" });
		expect(await rpc.response(3)).toMatchObject({
			ok: false,
			error: expect.stringContaining("a run is active"),
		}); // SPEC Q3

		const watch = await rpc.event("tool_execution_start", (e) => e.toolName === "watch_build");
		rpc.send({ id: 4, type: "getState" });
		const state = (await rpc.response(4)).data as Record<string, unknown>;
		expect(state).toMatchObject({
			isStreaming: true,
			pendingToolCalls: [watch.toolCallId],
			queued: { steer: 0, followUp: 0 },
		});

		// SPEC T10: the steer interrupts the running interruptible tool; SPEC T12: it is injected after the batch.
		rpc.send({ id: 5, type: "steer", message: "Stop watching." });
		expect(await rpc.response(5)).toMatchObject({ ok: true });
		expect(await rpc.event("tool_execution_end", (e) => e.toolName === "watch_build")).toMatchObject({
			status: "interrupted",
		});
		const end = await rpc.event("agent_end");
		expect(end.outcome).toEqual({ type: "completed" });

		rpc.send({ id: 6, type: "getMessages" });
		const { messages } = (await rpc.response(6)).data as { messages: Messages };
		expect(unpairedCalls(messages)).toEqual([]);
		expect(messages.filter((m) => m.role === "user").map((m) => (m as { content: unknown }).content)).toEqual(
			["Look around.", "Stop watching."],
		);
		rpc.send({ id: 7, type: "setThinking", level: "loud" });
		expect(await rpc.response(7)).toMatchObject({
			ok: false,
			error: expect.stringContaining('"level" must be one of'),
		});
		rpc.send({ id: 8, type: "steer" });
		expect(await rpc.response(8)).toMatchObject({
			ok: false,
			error: '"steer" needs a non-empty string "message"',
		});
		expect(await rpc.end()).toBe(0);
	});

	it("a line with an id but no string type gets its error response under that id", async () => {
		const rpc = new RpcClient(startCli(["--rpc", "--no-session"], { cwd: tempProject() }));
		rpc.sendRaw('{"id":11,"command":"prompt","message":"hi"}\n');
		rpc.send({ id: 12, type: "getState" });
		await rpc.response(12); // commands are answered in order: the bad line's response came first
		expect(rpc.lines.find((line) => line.type === "response" && line.command === null)).toEqual({
			type: "response",
			id: 11,
			command: null,
			ok: false,
			error: 'malformed command: "type" must be a string',
		});
		expect(await rpc.end()).toBe(0);
	});

	it("abort ends the run with every call paired; reset starts a new session file", async () => {
		const cwd = tempProject();
		const rpc = new RpcClient(startCli(["--rpc", "--session-dir", "sessions"], { cwd }));
		rpc.send({ id: 1, type: "prompt", message: "Look around." });
		await rpc.event("tool_execution_start", (e) => e.toolName === "watch_build");
		rpc.send({ id: 2, type: "abort", reason: "client pressed stop" });
		expect(await rpc.response(2)).toMatchObject({ ok: true });
		const end = await rpc.event("agent_end");
		expect(end.outcome).toEqual({ type: "aborted", reason: "client pressed stop" }); // SPEC A1
		expect(unpairedCalls(end.messages as Messages)).toEqual([]); // SPEC I1

		rpc.send({ id: 3, type: "getState" });
		const before = ((await rpc.response(3)).data as { session: string }).session;
		expect(before).toMatch(new RegExp(`^${join(cwd, "sessions")}/.*\\.jsonl$`));
		rpc.send({ id: 4, type: "reset" });
		expect(await rpc.response(4)).toMatchObject({ ok: true, data: { session: null } });
		rpc.send({ id: 5, type: "prompt", message: "Fresh start." });
		await rpc.event("agent_end");
		rpc.send({ id: 6, type: "getState" });
		const after = ((await rpc.response(6)).data as { session: string; messageCount: number }).session;
		expect(after).not.toBe(before);
		expect(readFileSync(after, "utf8")).toContain("Fresh start.");
		expect(readFileSync(before, "utf8")).not.toContain("Fresh start.");
		expect(await rpc.end()).toBe(0);
	});
});

describe("a client that stops reading (stdout closed)", () => {
	it("ends the command with exit 0, and the demo's sandbox goes with it", async () => {
		const rpc = new RpcClient(startCli(["--rpc", "--no-session"], { cwd: tempProject() }));
		const ready = await rpc.waitFor((line) => line.type === "ready");
		const sandbox = dirname(ready.cwd as string);
		expect(existsSync(sandbox)).toBe(true);
		rpc.child.stdout.destroy();
		rpc.send({ id: 1, type: "prompt", message: "Look around." }); // its response meets a closed pipe
		expect(await rpc.exited).toBe(0);
		expect(existsSync(sandbox)).toBe(false);
	});
});

describe("the resume command over RPC", () => {
	it("runs a crashed session's dangling batch in the background: the client's abort stops it", async () => {
		const cwd = tempProject();
		const crashing = new RpcClient(startCli(["--rpc", "--demo", "--session-dir", "crashed"], { cwd }));
		crashing.send({ id: 1, type: "prompt", message: "Look around." });
		await crashing.event("tool_execution_start", (e) => e.toolName === "watch_build");
		crashing.child.kill("SIGKILL");
		await crashing.exited;
		const [file] = sessionFiles(join(cwd, "crashed"));
		if (!file) throw new Error("no session file after the crash");
		expect(unpairedCalls(sessionMessages(file))).toHaveLength(1);

		const rpc = new RpcClient(startCli(["--rpc", "--demo", "--session-dir", "crashed"], { cwd }));
		rpc.send({ id: 1, type: "resume", path: file });
		const watch = await rpc.event("tool_execution_start", (e) => e.toolName === "watch_build");
		// While the resumed batch runs, the next command is read at once, not after the run.
		rpc.send({ id: 2, type: "abort", reason: "client pressed stop" });
		expect(await rpc.response(2)).toMatchObject({ ok: true });
		expect(await rpc.event("tool_execution_end", (e) => e.toolCallId === watch.toolCallId)).toMatchObject({
			status: "aborted",
		});
		const end = await rpc.event("agent_end");
		expect(end.outcome).toEqual({ type: "aborted", reason: "client pressed stop" });
		expect(await rpc.response(1)).toMatchObject({ ok: true, data: { session: file, warnings: [] } });
		expect(unpairedCalls(sessionMessages(file))).toEqual([]); // SPEC I1
		expect(await rpc.end()).toBe(0);
	});
});

/** A SYNTHETIC Chat Completions reply calling `write_file` (no recording calls the CLI's own tools). */
function writeFileCall(path: string, content: string): string {
	const call = { index: 0, id: "call_w1", type: "function", function: { name: "write_file", arguments: "" } };
	return (
		chunk({ role: "assistant", content: null, tool_calls: [call] }) +
		chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ path, content }) } }] }) +
		chunk({}, "tool_calls") +
		usageChunk(10, 5) +
		DONE
	);
}

describe("approval of mutating tools over RPC (real Chat Completions path)", () => {
	it("SPEC T15, T16: asks the client with approval_request; deny blocks the call, approve runs it", async () => {
		const server = await serve(
			{ type: "sse", body: writeFileCall("denied.txt", "no"), split: false },
			{ type: "sse", body: textReply("Understood, not written."), split: false },
			{ type: "sse", body: writeFileCall("approved.txt", "yes"), split: false },
			{ type: "sse", body: textReply("Written."), split: false },
		);
		const cwd = tempProject();
		const rpc = new RpcClient(
			startCli(["--rpc", "--base-url", `${server.baseUrl}/v1`, "--model", "m"], { cwd }),
		);
		const completed = (e: Record<string, unknown>) => (e.outcome as { type: string }).type === "completed";
		rpc.send({ id: 1, type: "prompt", message: "write denied.txt" });
		// The run pauses (its own events say so), then the command asks the client.
		expect(await rpc.event("approval_requested")).toMatchObject({
			toolCallId: "call_w1",
			toolName: "write_file",
		});
		expect(await rpc.event("agent_end")).toMatchObject({
			outcome: { type: "awaiting_approval", pending: [{ toolCallId: "call_w1", toolName: "write_file" }] },
		});
		const first = await rpc.waitFor((line) => line.type === "approval_request");
		expect(first).toMatchObject({
			toolCallId: "call_w1",
			toolName: "write_file",
			summary: "write_file denied.txt (2 bytes)",
		});
		rpc.send({ id: 2, type: "getState" });
		expect((await rpc.response(2)).data).toMatchObject({ pendingApprovals: ["call_w1"] });
		rpc.send({ id: 3, type: "deny", toolCallId: "call_w1" });
		expect(await rpc.response(3)).toMatchObject({ ok: true });
		expect(await rpc.event("tool_execution_end")).toMatchObject({ status: "blocked" }); // SPEC T16
		await rpc.event("agent_end", completed);
		expect(existsSync(join(cwd, "denied.txt"))).toBe(false);
		const second = JSON.parse(server.requests[1]?.body ?? "{}") as {
			messages: { role: string; content: string }[];
		};
		expect(second.messages.at(-1)).toMatchObject({
			role: "tool",
			content: expect.stringContaining("the user declined this write_file call"),
		});

		rpc.send({ id: 4, type: "prompt", message: "write approved.txt" });
		await rpc.waitFor((line) => line.type === "approval_request");
		rpc.send({ id: 5, type: "approve", toolCallId: "call_w1" });
		expect(await rpc.event("tool_execution_end")).toMatchObject({ status: "ok" });
		await rpc.event("agent_end", completed);
		expect(readFileSync(join(cwd, "approved.txt"), "utf8")).toBe("yes");
		rpc.send({ id: 6, type: "approve", toolCallId: "call_w1" });
		expect(await rpc.response(6)).toMatchObject({
			ok: false,
			error: 'no approval is pending for tool call "call_w1"',
		});
		expect(await rpc.end()).toBe(0);
	});
});

describe("a run paused for approval over RPC", () => {
	it("SPEC T17: prompt and resume are refused while a call waits; abort ends the paused run, every call paired", async () => {
		const server = await serve(
			{ type: "sse", body: writeFileCall("never.txt", "no"), split: false },
			{ type: "sse", body: textReply("Fresh start."), split: false },
		);
		const cwd = tempProject();
		const rpc = new RpcClient(
			startCli(["--rpc", "--base-url", `${server.baseUrl}/v1`, "--model", "m"], { cwd }),
		);
		rpc.send({ id: 1, type: "prompt", message: "write never.txt" });
		await rpc.waitFor((line) => line.type === "approval_request");
		rpc.send({ id: 2, type: "prompt", message: "something else" });
		expect(await rpc.response(2)).toMatchObject({
			ok: false,
			error: expect.stringContaining("await approval: write_file (call_w1)"),
		});
		// Loading another session would strand the waiting call's request: refused like prompt.
		rpc.send({ id: 21, type: "resume", path: join(cwd, "other.jsonl") });
		expect(await rpc.response(21)).toMatchObject({
			ok: false,
			error: expect.stringContaining(
				"resume() cannot start: 1 tool call(s) await approval: write_file (call_w1)",
			),
		});
		rpc.send({ id: 22, type: "getState" });
		expect((await rpc.response(22)).data).toMatchObject({ pendingApprovals: ["call_w1"] });
		rpc.send({ id: 3, type: "abort", reason: "changed my mind" });
		expect(await rpc.response(3)).toMatchObject({ ok: true });
		expect(
			await rpc.event("agent_end", (e) => (e.outcome as { type: string }).type === "aborted"),
		).toMatchObject({
			outcome: { type: "aborted", reason: "changed my mind" },
		});
		rpc.send({ id: 4, type: "getState" });
		expect((await rpc.response(4)).data).toMatchObject({ pendingApprovals: [], isStreaming: false });
		rpc.send({ id: 5, type: "getMessages" });
		const { messages } = (await rpc.response(5)).data as { messages: Messages };
		expect(unpairedCalls(messages)).toEqual([]);
		rpc.send({ id: 6, type: "prompt", message: "start over" });
		expect(await rpc.response(6)).toMatchObject({ ok: true });
		await rpc.event("agent_end", (e) => (e.outcome as { type: string }).type === "completed");
		expect(existsSync(join(cwd, "never.txt"))).toBe(false);
		expect(server.requests).toHaveLength(2);
		expect(await rpc.end()).toBe(0);
	});
});

describe("signals over RPC (SIGINT/SIGTERM, exit 130)", () => {
	it("SIGINT while idle ends the session as end of input would, with exit 130", async () => {
		const rpc = new RpcClient(startCli(["--rpc", "--demo", "--no-session"], { cwd: tempProject() }));
		await rpc.waitFor((line) => line.type === "ready");
		rpc.child.kill("SIGINT");
		expect(await rpc.exited).toBe(130);
	});

	it("a SIGINT aborts the run and the session goes on; a later run's single SIGINT aborts it too", async () => {
		const rpc = new RpcClient(startCli(["--rpc", "--demo", "--no-session"], { cwd: tempProject() }));
		const aborted = (e: Record<string, unknown>) => (e.outcome as { type: string }).type === "aborted";
		for (const id of [1, 2]) {
			rpc.send({ id, type: "prompt", message: "Look around." });
			await rpc.event("tool_execution_start", (e) => e.toolName === "watch_build");
			rpc.child.kill("SIGINT");
			expect(await rpc.event("agent_end", aborted)).toMatchObject({
				outcome: { reason: "interrupted (SIGINT)" },
			});
			rpc.send({ id: 10 + id, type: "reset" });
			expect(await rpc.response(10 + id)).toMatchObject({ ok: true });
		}
		rpc.child.kill("SIGTERM"); // idle now: the session ends
		expect(await rpc.exited).toBe(130);
	});
});

describe("approval in print mode (no one to ask)", () => {
	it("blocks a mutating call without --yes, with a reason that tells the model about --yes", async () => {
		const server = await serve(
			{ type: "sse", body: writeFileCall("x.txt", "hi"), split: false },
			{ type: "sse", body: textReply("I could not write it."), split: false },
		);
		const cwd = tempProject();
		const run = await runCli(["-p", "write x.txt", "--base-url", `${server.baseUrl}/v1`, "--model", "m"], {
			cwd,
		});
		expect(run.code).toBe(0);
		expect(run.stdout).toBe("I could not write it.\n");
		expect(existsSync(join(cwd, "x.txt"))).toBe(false);
		const second = JSON.parse(server.requests[1]?.body ?? "{}") as {
			messages: { role: string; content: string }[];
		};
		expect(second.messages.at(-1)?.content).toContain("re-run capstan with --yes");
	});

	it("runs it with --yes", async () => {
		const server = await serve(
			{ type: "sse", body: writeFileCall("x.txt", "hi"), split: false },
			{ type: "sse", body: textReply("Done."), split: false },
		);
		const cwd = tempProject();
		const run = await runCli(
			["-p", "write x.txt", "--yes", "--base-url", `${server.baseUrl}/v1`, "--model", "m"],
			{
				cwd,
			},
		);
		expect(run.code).toBe(0);
		expect(readFileSync(join(cwd, "x.txt"), "utf8")).toBe("hi");
	});
});

describe("the model description over RPC (SPEC E3)", () => {
	it("shows the --base-url server without its credentials, keeping the rest of the address", async () => {
		const rpc = new RpcClient(
			startCli(
				[
					"--rpc",
					"--model",
					"m",
					"--base-url",
					"http://127.0.0.1:9/v1?api-version=2024-10-21&x-functions-code=qSENTINELcode77",
				],
				{ cwd: tempProject() },
			),
		);
		const ready = await rpc.waitFor((line) => line.type === "ready");
		expect((ready.model as { baseUrl?: string }).baseUrl).toBe(
			"http://127.0.0.1:9/v1?api-version=2024-10-21&x-functions-code=[redacted]",
		);
		rpc.send({ id: 1, type: "getState" });
		expect(JSON.stringify(await rpc.response(1))).not.toContain("SENTINEL");
		expect(await rpc.end()).toBe(0);
	});
});
