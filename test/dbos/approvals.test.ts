// Tool approvals in DBOS-backed durable runs (SPEC T15, T16) against a real PostgreSQL: a run pauses before a
// tool that needs approval, and another process's client resumes it with decisions.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	DbosAgentRuns,
	type DbosAgentWorkflow,
	type DbosWorker,
	DurableInputError,
	launchDbosWorker,
	registerDbosAgent,
} from "../../src/dbos/index.js";
import type { ToolResultMessage } from "../../src/index.js";
import { countingAgent } from "../durable/support/agent.js";
import { user } from "../support/run.js";
import { createDatabase, describeWithPostgres } from "./support/postgres.js";

const input = { prompts: [user("pay the bill")] };
const application = "capstan-approvals-test";

describeWithPostgres("capstan/dbos: tool approvals across processes", (serverUrl) => {
	let database: Awaited<ReturnType<typeof createDatabase>>;
	let worker: DbosWorker;
	let agent: DbosAgentWorkflow;
	const counts: string[] = [];

	beforeAll(async () => {
		database = await createDatabase(serverUrl, "capstan_approvals");
		agent = registerDbosAgent({
			name: "approvals",
			agent: () => countingAgent({ count: (key) => counts.push(key), chargeNeedsApproval: true }),
			queuePollingMs: 50,
		});
		worker = await launchDbosWorker({ applicationName: application, databaseUrl: database.url });
	}, 60_000);

	afterAll(async () => {
		await worker?.shutdown();
		await database?.drop();
	});

	/** A client as a web server or CLI elsewhere would open it: its own connections, no DBOS launch. */
	const connect = () => DbosAgentRuns.connect({ databaseUrl: database.url, applicationName: application });

	it("SPEC T16: another client approves; the charge runs exactly once, a second resume joins the first", async () => {
		const starter = await connect();
		const approver = await connect();
		try {
			const runId = await starter.start(agent.name, input, { runId: "approve-me" });
			const paused = await starter.result(runId);
			expect(paused.outcome).toEqual({
				type: "awaiting_approval",
				pending: [{ toolCallId: "t2", toolName: "charge", args: { amount: 5 } }],
			});
			expect(counts.filter((key) => key === "tool:t2")).toHaveLength(0);

			const resumed = await approver.resume(runId, { t2: { approved: true } });
			expect(resumed).toBe("approve-me:resume");
			const result = await approver.result(resumed);
			expect(result.outcome).toEqual({ type: "completed" });
			const charge = result.messages.find(
				(m): m is ToolResultMessage => m.role === "toolResult" && m.toolCallId === "t2",
			);
			expect(charge).toMatchObject({ isError: false, content: [{ text: "charged 5" }] });
			expect(result.added.at(-1)).toMatchObject({ content: [{ text: "All done." }] });

			// The same decision again (a retried request, the starter's process) joins the finished run.
			expect(await starter.resume(runId, { t2: { approved: true } })).toBe(resumed);
			expect(await starter.result(resumed)).toEqual(result);
			await expect(starter.resume(runId, { t2: { approved: false } })).rejects.toThrow(/other decisions/);
			expect(counts.filter((key) => key === "tool:t2")).toHaveLength(1);
		} finally {
			await starter.close();
			await approver.close();
		}
	});

	it("SPEC T16: a denial reaches the model and the tool never runs", async () => {
		const runs = await connect();
		try {
			const runId = await runs.start(agent.name, input, { runId: "deny-me" });
			await runs.result(runId);
			const before = counts.filter((key) => key === "tool:t2").length;
			const result = await runs.result(
				await runs.resume(runId, { t2: { approved: false, reason: "over budget" } }),
			);
			const denied = result.messages.find(
				(m): m is ToolResultMessage => m.role === "toolResult" && m.toolCallId === "t2",
			);
			expect(denied?.isError).toBe(true);
			expect(denied?.content).toEqual([{ type: "text", text: expect.stringContaining("over budget") }]);
			expect(result.outcome).toEqual({ type: "completed" });
			expect(counts.filter((key) => key === "tool:t2")).toHaveLength(before);
		} finally {
			await runs.close();
		}
	});

	it("a follow-up and a steer sent while the run waits for approval reach the resumed run, once; a resume under another id is refused (docs/durable.md rule 5)", async () => {
		const runs = await connect();
		try {
			const runId = await runs.start(agent.name, input, { runId: "paused-with-messages" });
			await runs.result(runId);
			await runs.followUp(runId, "and email the receipt");
			await runs.steer(runId, "use the company card");
			const resumed = await runs.resume(runId, { t2: { approved: true } });
			const result = await runs.result(resumed);
			const users = result.messages.filter((m) => m.role === "user").map((m) => m.content);
			expect(users).toEqual([input.prompts[0]?.content, "use the company card", "and email the receipt"]);
			expect(result.outcome).toEqual({ type: "completed" });
			expect(await runs.resume(runId, { t2: { approved: true } })).toBe(resumed);
			await expect(runs.resume(runId, { t2: { approved: true } }, { runId: "elsewhere" })).rejects.toThrow(
				/already carried over to run "paused-with-messages:resume"/,
			);
			expect(await runs.status("elsewhere")).toBeUndefined();
		} finally {
			await runs.close();
		}
	});

	it("refuses a resume that cannot run, in the caller's process", async () => {
		const runs = await connect();
		try {
			await runs.result(await runs.start(agent.name, input, { runId: "bad-resume" }));
			await expect(runs.resume("bad-resume", { t9: { approved: true } })).rejects.toThrow(DurableInputError);
			await expect(runs.resume("no-such-run", {})).rejects.toThrow(/no run "no-such-run"/);
			await expect(runs.resume("approve-me:resume", {})).rejects.toThrow(/ended completed/);
			expect(await runs.status("bad-resume:resume")).toBeUndefined();
		} finally {
			await runs.close();
		}
	});
});
