/** Tool approvals through the `Agent` facade (SPEC T15–T17), including a restart from saved JSON. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	Agent,
	AgentBusyError,
	type AgentEvent,
	type AgentMessage,
	type AgentOptions,
	type ApprovalDecisions,
	ApprovalPendingError,
	type PendingApproval,
	type ToolResultMessage,
} from "../../src/index.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { echoTool } from "../support/run.js";
import { assertPaired } from "../support/trace.js";

function pausedAgent(log: string[] = []) {
	const scripted = scriptedModel([
		{
			content: [
				{ type: "toolCall", name: "write", arguments: { text: "a" } },
				{ type: "toolCall", name: "write", arguments: { text: "b" } },
			],
		},
		textReply("all done"),
	]);
	const tools = [echoTool("write", { needsApproval: true, log })];
	const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools });
	const events: AgentEvent[] = [];
	agent.subscribe((e) => events.push(e));
	return { agent, scripted, events, tools };
}

describe("Agent approvals", () => {
	it("SPEC T15, T16: prompt pauses; each decision is recorded; the last one resumes the batch", async () => {
		const log: string[] = [];
		const { agent, scripted } = pausedAgent(log);
		await agent.prompt("write two files");
		expect(agent.state.isStreaming).toBe(false);
		expect(agent.state.pendingApprovals.map((p) => p.toolCallId)).toEqual(["call_1", "call_2"]);

		await agent.approve("call_1"); // one of two decided: nothing runs yet
		expect(log).toEqual([]);
		expect(scripted.calls).toHaveLength(1);
		expect(agent.state.pendingApprovals).toHaveLength(2);

		await agent.deny("call_2", "b is read-only");
		expect(log).toEqual(["start:write:a", "end:write:a"]);
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(scripted.calls).toHaveLength(2);
		const last = agent.state.messages.at(-1) as { role: string; content: { text: string }[] };
		expect(last.role).toBe("assistant");
		assertPaired(agent.state.messages);
		const denied = agent.state.messages.find(
			(m) => (m as ToolResultMessage).toolCallId === "call_2",
		) as ToolResultMessage;
		expect((denied.content[0] as { text: string }).text).toMatch(/was denied: b is read-only/);
	});

	it("SPEC T16: state.approvalDecisions shows what is decided so far, and is empty again once the batch resumes", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		expect(agent.state.approvalDecisions).toEqual({});
		await agent.deny("call_2", "read-only");
		const decided = agent.state.approvalDecisions;
		expect(decided).toEqual({ call_2: { approved: false, reason: "read-only" } });
		await agent.approve("call_2"); // decided again: replaced, still one of two
		expect(agent.state.approvalDecisions).toEqual({ call_2: { approved: true } });
		expect(decided).toEqual({ call_2: { approved: false, reason: "read-only" } }); // a snapshot, not live
		expect(agent.state.pendingApprovals).toHaveLength(2);
		await agent.approve("call_1");
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(agent.state.approvalDecisions).toEqual({});
	});

	it("SPEC T16: reset() and abort() drop the decisions with the pending approvals", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		await agent.approve("call_1");
		agent.abort("stop");
		expect(agent.state.approvalDecisions).toEqual({});
		await agent.waitForIdle();
		const other = pausedAgent().agent;
		await other.prompt("go");
		await other.approve("call_1");
		await other.reset();
		expect(other.state.approvalDecisions).toEqual({});
	});

	it("SPEC T17: prompt() and continue() while approvals are pending throw ApprovalPendingError", async () => {
		const { agent, scripted } = pausedAgent();
		await agent.prompt("go");
		const error = await agent.prompt("something else").catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ApprovalPendingError);
		expect((error as ApprovalPendingError).pending.map((p) => p.toolCallId)).toEqual(["call_1", "call_2"]);
		expect((error as Error).message).toMatch(/approve\(id\) or deny\(id, reason\)/);
		await expect(agent.continue()).rejects.toBeInstanceOf(ApprovalPendingError);
		expect(scripted.calls).toHaveLength(1);
		await agent.reset();
		expect(agent.state.pendingApprovals).toEqual([]);
	});

	it("SPEC T17: abort() while paused ends the paused run as aborted; the transcript is paired again", async () => {
		const log: string[] = [];
		const { agent, scripted, events } = pausedAgent(log);
		await agent.prompt("go");
		await agent.deny("call_2", "no");
		events.length = 0;
		agent.abort("the user pressed Esc");
		expect(agent.state.isStreaming).toBe(true);
		await agent.waitForIdle();
		expect(log).toEqual([]);
		expect(scripted.calls).toHaveLength(1);
		const end = events.at(-1);
		expect(end?.type === "agent_end" && end.outcome).toEqual({
			type: "aborted",
			reason: "the user pressed Esc",
		});
		expect(agent.state.pendingApprovals).toEqual([]);
		assertPaired(agent.state.messages);
		const details = agent.state.messages.slice(-2).map((m) => (m as ToolResultMessage).details);
		expect(details).toEqual([
			{ synthetic: true, reason: "aborted", executed: false },
			{ synthetic: true, reason: "denied", executed: false },
		]);
		agent.abort("again"); // nothing pending, nothing running: nothing happens
		expect(agent.state.isStreaming).toBe(false);
	});

	it("SPEC T16: deciding an id that is not pending throws; deciding during a run is busy", async () => {
		const { agent } = pausedAgent();
		await expect(agent.approve("call_9")).rejects.toThrow(/no tool call with this id awaits approval/);
		const running = agent.prompt("go");
		await expect(agent.approve("call_1")).rejects.toBeInstanceOf(AgentBusyError);
		await running;
		await expect(agent.approve("call_9")).rejects.toThrow(/awaiting: call_1, call_2/);
	});

	/** A fresh Agent restored from `saved` (its transcript and paused batch), with the write tool logging to `log`. */
	function restoredAgent(saved: Partial<AgentOptions>) {
		const log: string[] = [];
		const scripted = scriptedModel([textReply("resumed")]);
		const fresh = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool("write", { needsApproval: true, log })],
			...saved,
		});
		return { fresh, log, scripted };
	}

	it("SPEC T16, M6: a fresh Agent from JSON.parse of the saved state resumes the batch", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		const saved = JSON.parse(
			JSON.stringify({ messages: agent.state.messages, pendingApprovals: agent.state.pendingApprovals }),
		) as { messages: AgentMessage[]; pendingApprovals: PendingApproval[] };

		const { fresh, log, scripted } = restoredAgent({
			messages: saved.messages,
			pendingApprovals: saved.pendingApprovals,
		});
		await fresh.approve("call_1");
		await fresh.approve("call_2");
		expect(log).toEqual(["start:write:a", "end:write:a", "start:write:b", "end:write:b"]);
		assertPaired(fresh.state.messages);
		expect(scripted.calls).toHaveLength(1);
	});

	it("SPEC T16: restored approvals must name unanswered calls of the transcript", () => {
		const scripted = scriptedModel([]);
		expect(
			() =>
				new Agent({
					model: scripted.model,
					streamFn: scripted.stream,
					messages: [],
					pendingApprovals: [{ toolCallId: "call_1", toolName: "write", args: {} }],
				}),
		).toThrow(/pendingApprovals names tool call "call_1"/);
	});

	it("SPEC T16: decisions saved with the paused batch are restored: the fresh Agent asks only about the rest", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		await agent.approve("call_1");
		const saved = JSON.parse(
			JSON.stringify({
				messages: agent.state.messages,
				pendingApprovals: agent.state.pendingApprovals,
				approvalDecisions: agent.state.approvalDecisions,
			}),
		) as {
			messages: AgentMessage[];
			pendingApprovals: PendingApproval[];
			approvalDecisions: ApprovalDecisions;
		};

		const { fresh, log, scripted } = restoredAgent(saved);
		expect(fresh.state.approvalDecisions).toEqual({ call_1: { approved: true } });
		await fresh.deny("call_2", "b is read-only"); // the last undecided call: the batch resumes
		expect(log).toEqual(["start:write:a", "end:write:a"]);
		expect(scripted.calls).toHaveLength(1);
		expect(fresh.state.pendingApprovals).toEqual([]);
		assertPaired(fresh.state.messages);
	});

	it("SPEC T16: restored decisions that cover every pending call start nothing; continue() resumes with them", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		const { fresh, log, scripted } = restoredAgent({
			messages: agent.state.messages,
			pendingApprovals: agent.state.pendingApprovals,
			approvalDecisions: { call_1: { approved: false, reason: "no" }, call_2: { approved: true } },
		});
		expect(fresh.state.isStreaming).toBe(false);
		expect(fresh.state.pendingApprovals).toHaveLength(2);
		await expect(fresh.prompt("something else")).rejects.toThrow(
			"prompt() cannot start: the 2 paused tool call(s) are decided but not resumed; call continue() to resume them first.",
		);
		await fresh.continue();
		expect(log).toEqual(["start:write:b", "end:write:b"]);
		expect(scripted.calls).toHaveLength(1);
		expect(fresh.state.approvalDecisions).toEqual({});
		assertPaired(fresh.state.messages);
	});

	it("SPEC T16: continue() with a pending call still undecided is refused, naming the calls", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		await agent.approve("call_2");
		const refused = await agent.continue().catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(ApprovalPendingError);
		// The message names the call still undecided; `pending` keeps the whole batch.
		expect((refused as Error).message).toMatch(
			/^continue\(\) cannot start: 1 tool call\(s\) await approval: write \(call_1\)\./,
		);
		expect((refused as ApprovalPendingError).pending.map((p) => p.toolCallId)).toEqual(["call_1", "call_2"]);
		expect(agent.state.approvalDecisions).toEqual({ call_2: { approved: true } });
	});

	it("SPEC T16: restored decisions must decide restored pending calls, each with a decision", async () => {
		const { agent } = pausedAgent();
		await agent.prompt("go");
		const scripted = scriptedModel([]);
		const restore =
			(approvalDecisions: unknown, pendingApprovals = agent.state.pendingApprovals) =>
			() =>
				new Agent({
					model: scripted.model,
					streamFn: scripted.stream,
					messages: agent.state.messages,
					pendingApprovals,
					approvalDecisions: approvalDecisions as ApprovalDecisions,
				});
		const table: [unknown, readonly PendingApproval[], RegExp][] = [
			[null, agent.state.pendingApprovals, /approvalDecisions must be an object .* \(received null\)/],
			[[{ approved: true }], agent.state.pendingApprovals, /must be an object .* \(received array\)/],
			[
				{ call_9: { approved: true } },
				agent.state.pendingApprovals,
				/"call_9", which is not one of pendingApprovals \(pending: call_1, call_2\)/,
			],
			[
				{ call_1: { approved: true } },
				[],
				/"call_1", which is not one of pendingApprovals \(none is pending\)/,
			],
			[
				{ call_1: { approved: "yes" } },
				agent.state.pendingApprovals,
				/approvalDecisions\["call_1"\] must be \{ approved: true \}/,
			],
			[{ call_1: { approved: false, reason: 7 } }, agent.state.pendingApprovals, /\(received object\)/],
			[{ call_1: true }, agent.state.pendingApprovals, /\(received boolean true\)/],
		];
		for (const [decisions, pending, message] of table) {
			expect(restore(decisions, pending)).toThrow(TypeError);
			expect(restore(decisions, pending)).toThrow(message);
		}
		expect(restore(undefined)().state.approvalDecisions).toEqual({});
	});

	it("SPEC T15: a steer queued while paused waits in its queue and interrupts the resumed batch", async () => {
		const log: string[] = [];
		const { agent, scripted } = pausedAgent(log);
		await agent.prompt("go");
		agent.steer("actually, stop");
		expect(agent.peekSteeringQueue()).toHaveLength(1);
		await agent.approve("call_1");
		await agent.approve("call_2");
		expect(log).toEqual([]); // SPEC T10: calls not started are skipped by a queued steer
		const sent = scripted.calls[1]?.context.messages ?? [];
		assertPaired(sent);
		expect(sent.at(-1)).toMatchObject({ role: "user", content: "actually, stop" });
	});
});

describe("a paused run survives a process restart", () => {
	it("SPEC T16, M6: a child process resumes from the JSON this process saved", {
		timeout: 60_000,
	}, async () => {
		const scripted = scriptedModel([toolReply("write", { text: "from parent" })]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool("write", { needsApproval: true })],
		});
		await agent.prompt("write it");
		const saved = JSON.stringify({
			messages: agent.state.messages,
			pendingApprovals: agent.state.pendingApprovals,
		});

		const child = spawn(
			process.execPath,
			["--import", "tsx", join(REPO_ROOT, "test/approvals/resume-child.ts")],
			{
				cwd: REPO_ROOT,
				stdio: ["pipe", "pipe", "inherit"],
			},
		);
		let out = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
		});
		const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
		child.stdin.end(saved);
		expect(await exited).toBe(0);
		const report = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as {
			outcome: string;
			ran: string[];
			messages: AgentMessage[];
			modelSaw: string;
		};
		expect(report.outcome).toBe("completed");
		expect(report.ran).toEqual(["start:write:from parent", "end:write:from parent"]);
		expect(report.modelSaw).toBe("write:from parent");
		assertPaired(report.messages);
	});
});
