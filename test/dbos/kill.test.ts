// The kill test (real processes, real PostgreSQL): worker w1 runs four durable agent runs and is SIGKILLed
// while every run is inside its `charge` tool; worker w2 (another executor id) takes the runs over. A third
// process reads one run's events; steering and an abort reach runs that moved to w2.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DbosAgentRuns } from "../../src/dbos/index.js";
import {
	type DurableRunResult,
	INTERRUPTED_TOOL_TEXT,
	MemoryJournal,
	runDurableAgent,
} from "../../src/durable/index.js";
import type { AgentMessage } from "../../src/index.js";
import { countingAgent, withoutTimestamps } from "../durable/support/agent.js";
import { user } from "../support/run.js";
import { createDatabase, describeWithPostgres, KILL_QUEUE } from "./support/postgres.js";
import { type Spawned, spawnScript, startWorker, waitForFile } from "./support/processes.js";

const input = { prompts: [user("pay the bill")] };

/** What an uninterrupted run of the same agent produces (the in-memory journal: no crash, no engine). */
async function uninterrupted(idempotentCharge: boolean): Promise<AgentMessage[]> {
	const agent = countingAgent({ count: () => {}, idempotentCharge });
	return (await runDurableAgent(agent, input, new MemoryJournal().attempt())).messages;
}

/** The uninterrupted transcript with `charge`'s result replaced by the crash report (non-idempotent tool). */
function withReportedCharge(messages: unknown[]): unknown[] {
	return messages.map((message) => {
		const m = message as { role?: string; toolCallId?: string };
		return m.role === "toolResult" && m.toolCallId === "t2"
			? {
					...m,
					content: [{ type: "text", text: INTERRUPTED_TOOL_TEXT }],
					details: { interrupted: true, executed: "unknown" },
					isError: true,
				}
			: message;
	});
}

describeWithPostgres(
	"capstan/dbos: a worker killed inside a tool, its runs taken over by another",
	(serverUrl) => {
		const dir = mkdtempSync(join(tmpdir(), "capstan-kill-"));
		const processes: Spawned[] = [];
		let database: Awaited<ReturnType<typeof createDatabase>>;
		let runs: DbosAgentRuns;
		const ids = { reported: "", rerun: "", steered: "", aborted: "" };
		const results: Record<keyof typeof ids, DurableRunResult | undefined> = {
			reported: undefined,
			rerun: undefined,
			steered: undefined,
			aborted: undefined,
		};
		let reader: Spawned;

		/** Counted side effects of one run: `executor key` lines written by the tools and the scripted model. */
		const countsOf = (runId: string): string[] =>
			readFileSync(join(dir, "counts"), "utf8")
				.split("\n")
				.filter((line) => line.includes(` ${runId} `))
				.map((line) => line.replace(` ${runId} `, " "));

		beforeAll(async () => {
			database = await createDatabase(serverUrl, "capstan_kill");
			const env = { CAPSTAN_DB_URL: database.url, CAPSTAN_DIR: dir };
			const w1 = await startWorker({ ...env, CAPSTAN_EXECUTOR: "w1", CAPSTAN_HANG_IN_CHARGE: "1" });
			processes.push(w1);
			runs = await DbosAgentRuns.connect({ databaseUrl: database.url, applicationName: "capstan-kill-test" });
			ids.reported = await runs.start("kill-test", input, { runId: "run-reported", queueName: KILL_QUEUE });
			ids.rerun = await runs.start("kill-test-idempotent", input, {
				runId: "run-rerun",
				queueName: KILL_QUEUE,
			});
			ids.steered = await runs.start("kill-test", input, { runId: "run-steered", queueName: KILL_QUEUE });
			ids.aborted = await runs.start("kill-test", input, { runId: "run-aborted", queueName: KILL_QUEUE });
			// The steered and aborted runs will wait inside t3 on the second worker.
			for (const id of [ids.steered, ids.aborted]) writeFileSync(join(dir, `gate-${id}`), "");
			for (const id of Object.values(ids)) await waitForFile(join(dir, `inside-charge-${id}`), processes);

			w1.child.kill("SIGKILL");
			await w1.exited;
			for (const id of Object.values(ids))
				expect(await runs.status(id)).toEqual({ status: "PENDING", executorId: "w1" });

			const w2 = await startWorker({ ...env, CAPSTAN_EXECUTOR: "w2" });
			processes.push(w2);
			expect((await runs.takeOver({ executorId: "w1" })).sort()).toEqual(Object.values(ids).sort());

			// Steering and abort reach runs that moved to w2 while they wait inside t3 there.
			for (const id of [ids.steered, ids.aborted]) await waitForFile(join(dir, `inside-t3-${id}`), processes);
			reader = spawnScript("reader.ts", { CAPSTAN_DB_URL: database.url, CAPSTAN_RUN: ids.steered });
			processes.push(reader);
			await runs.steer(ids.steered, user("also email me the receipt"));
			await runs.abort(ids.aborted, "the customer cancelled");
			for (const id of [ids.steered, ids.aborted]) writeFileSync(join(dir, `release-${id}`), "");

			for (const key of Object.keys(ids) as (keyof typeof ids)[]) results[key] = await runs.result(ids[key]);
			await reader.exited;
		}, 180_000);

		afterAll(async () => {
			for (const process of processes) if (process.child.exitCode === null) process.child.kill("SIGTERM");
			await Promise.all(processes.map((process) => process.exited));
			await runs?.close();
			await database?.drop();
		});

		it("a non-idempotent tool interrupted by the kill is reported, not re-run; every finished step ran exactly once", async () => {
			const expected = withReportedCharge(withoutTimestamps(await uninterrupted(false)));
			expect(withoutTimestamps(results.reported?.messages ?? [])).toEqual(expected);
			expect(results.reported?.outcome).toEqual({ type: "completed" });
			expect(countsOf(ids.reported)).toEqual([
				"w1 model:0",
				"w1 tool:t1",
				"w1 model:1",
				"w1 tool:t2",
				"w2 model:2",
				"w2 tool:t3",
				"w2 model:3",
			]);
			expect(await runs.status(ids.reported)).toEqual({ status: "SUCCESS", executorId: "w2" });
		});

		it("an idempotent tool interrupted by the kill runs again; the transcript equals an uninterrupted run", async () => {
			expect(withoutTimestamps(results.rerun?.messages ?? [])).toEqual(
				withoutTimestamps(await uninterrupted(true)),
			);
			expect(countsOf(ids.rerun)).toEqual([
				"w1 model:0",
				"w1 tool:t1",
				"w1 model:1",
				"w1 tool:t2",
				"w2 tool:t2",
				"w2 model:2",
				"w2 tool:t3",
				"w2 model:3",
			]);
		});

		it("steering sent from another process reaches the run on its new worker at the next boundary (SPEC Q2)", () => {
			const messages = results.steered?.messages ?? [];
			const steer = messages.findIndex((m) => m.role === "user" && m.content === "also email me the receipt");
			const t3 = messages.findIndex((m) => m.role === "toolResult" && m.toolCallId === "t3");
			expect(t3).toBeGreaterThan(0);
			expect(steer).toBe(t3 + 1);
			expect(messages.at(-1)).toMatchObject({
				role: "assistant",
				content: [{ type: "text", text: "All done." }],
			});
		});

		it("an abort sent from another process ends the moved run as aborted, before its next model call (SPEC A1)", () => {
			expect(results.aborted?.outcome).toEqual({ type: "aborted", reason: "the customer cancelled" });
			expect(countsOf(ids.aborted)).not.toContain("w2 model:3");
			expect(results.aborted?.messages.at(-1)).toMatchObject({ role: "toolResult", toolCallId: "t3" });
		});

		it("a third process reads the run's events across the takeover, each once, in order", () => {
			const lines = reader.stdout().trim().split("\n");
			const events = lines.map(
				(line) => JSON.parse(line) as { seq: number; delta: number; type: string; detail?: string },
			);
			expect(events[0]?.type).toBe("agent_start");
			expect(events.at(-1)?.type).toBe("agent_end");
			const positions = events.map((e) => `${e.seq}.${e.delta}`);
			expect(new Set(positions).size).toBe(positions.length);
			const ordered = [...events].sort((a, b) => a.seq - b.seq || a.delta - b.delta);
			expect(ordered).toEqual(events);
			expect(events.filter((e) => e.type === "agent_start")).toHaveLength(1);
			expect(events.filter((e) => e.type === "tool_execution_end").map((e) => e.detail)).toEqual([
				"t1",
				"t2",
				"t3",
			]);
			expect(events.filter((e) => e.type === "message_end")).toHaveLength(
				(results.steered?.messages.length ?? 0) + 0,
			);
		});
	},
);
