// Retention: deleting ended runs removes DBOS's records and capstan's own rows (events, recorded messages,
// carry-over claims), and the rows of runs DBOS deleted itself are pruned, against a real PostgreSQL.
// docs/durable.md, "Retention".
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import { expect, it } from "vitest";
import {
	type DbosRunEvent,
	DbosRunNotFoundError,
	DEFAULT_AGENT_QUEUE,
	registerDbosAgent,
} from "../../src/dbos/index.js";
import type { DurableAgent, DurableRunInput } from "../../src/durable/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { countingAgent } from "../durable/support/agent.js";
import { user } from "../support/run.js";
import { dbosFixture } from "./support/fixture.js";
import { createGate } from "./support/gate.js";
import { describeWithPostgres } from "./support/postgres.js";

const application = "capstan-retention-test";
const input = (text: string): DurableRunInput => ({ prompts: [user(text)] });

/** Replies "ok" to everything. */
function plainAgent(): DurableAgent {
	const scripted = scriptedModel(() => ({ content: [{ type: "text", text: "ok" }] }), { now: () => 0 });
	return { model: scripted.model, streamFn: scripted.stream };
}

/** How many rows capstan's tables hold for a run. */
interface Rows {
	events: number;
	messages: number;
	carryovers: number;
}

describeWithPostgres("capstan/dbos: retention of runs and of capstan's rows", (serverUrl) => {
	const counts: string[] = [];
	const plain = registerDbosAgent({ name: "retention-plain", agent: plainAgent, queuePollingMs: 50 });
	const aged = registerDbosAgent({ name: "retention-aged", agent: plainAgent });
	const approvals = registerDbosAgent({
		name: "retention-approvals",
		agent: () => countingAgent({ count: (key) => counts.push(key), chargeNeedsApproval: true }),
	});
	// Its first `lookup` waits at the gate: the run is running there.
	const lookupGate = createGate();
	const gated = registerDbosAgent({
		name: "retention-gated",
		agent: () =>
			countingAgent({
				count: () => {},
				insideLookup: async (id) => {
					if (id !== "t1") return;
					lookupGate.inside();
					await lookupGate.opened;
				},
			}),
	});
	// Its agent cannot be made: the run ends in ERROR with this error.
	const failing = registerDbosAgent({
		name: "retention-failing",
		agent: () => {
			throw Object.assign(new RangeError("no agent today"), { code: "E_NO_AGENT" });
		},
	});
	const fixture = dbosFixture(serverUrl, {
		database: "capstan_retention",
		applicationName: application,
		admin: true,
	});

	async function rows(runId: string): Promise<Rows> {
		const count = async (table: string, column: string) => {
			const { rows } = await fixture.admin.query<{ n: number }>(
				`SELECT count(*)::int AS n FROM capstan.${table} WHERE ${column} = $1`,
				[runId],
			);
			return rows[0]?.n ?? 0;
		};
		return {
			events: await count("run_events", "run_id"),
			messages: await count("run_messages", "run_id"),
			carryovers: await count("run_carryovers", "from_run_id"),
		};
	}

	/** A run of the plain agent that ended, then got a follow-up it never read (a row in run_messages). */
	async function endedRun(runId: string, agent = plain): Promise<void> {
		await fixture.runs.result(await fixture.runs.start(agent.name, input(runId), { runId }));
		await fixture.runs.followUp(runId, `late for ${runId}`);
	}

	it("delete removes the run's DBOS record and capstan's rows, leaves the run it carried over to, and is harmless twice", async () => {
		await endedRun("first");
		await fixture.runs.result(
			await fixture.runs.start(plain.name, input("second"), { runId: "second", carryOverFrom: "first" }),
		);
		expect(await rows("first")).toEqual({ events: expect.any(Number), messages: 1, carryovers: 1 });
		expect((await rows("first")).events).toBeGreaterThan(0);
		const second = await rows("second");
		expect(second).toMatchObject({ messages: 1, carryovers: 0 });

		await fixture.runs.delete("first");
		expect(await fixture.runs.status("first")).toBeUndefined();
		expect(await rows("first")).toEqual({ events: 0, messages: 0, carryovers: 0 });
		// The run it carried over to has its own copy of the messages, and its own log and result.
		expect(await rows("second")).toEqual(second);
		expect((await fixture.runs.result("second")).messages).toContainEqual(
			expect.objectContaining({ content: "late for first" }),
		);

		await fixture.runs.delete(["first", "first", "never-was"]);
		await fixture.runs.delete([]);
		await expect(fixture.runs.start(plain.name, input("third"), { carryOverFrom: "first" })).rejects.toThrow(
			/no run "first"/,
		);
	});

	it("a run that has not ended is refused and nothing of the call is deleted; cancelled, it goes", async () => {
		await endedRun("ended-beside");
		// A queue no worker polls: the run stays ENQUEUED.
		await fixture.runs.start(plain.name, input("waiting"), { runId: "waiting", queueName: "nobody-polls" });
		await expect(fixture.runs.delete(["ended-beside", "waiting"])).rejects.toThrow(
			/run "waiting" has not ended \(status ENQUEUED\); nothing was deleted/,
		);
		expect(await fixture.runs.status("ended-beside")).toMatchObject({ status: "SUCCESS" });
		expect(await rows("ended-beside")).toMatchObject({ messages: 1 });
		expect(await fixture.runs.status("waiting")).toMatchObject({ status: "ENQUEUED" });

		await DBOS.cancelWorkflow("waiting");
		await fixture.runs.delete(["ended-beside", "waiting"]);
		expect(await fixture.runs.status("waiting")).toBeUndefined();
		expect(await rows("ended-beside")).toEqual({ events: 0, messages: 0, carryovers: 0 });
	});

	it("a deleted continuation is not run again: a resume or a carry-over from the run it continued is refused", async () => {
		const decisions = { t2: { approved: true } } as const;
		const paused = await fixture.runs.start(
			approvals.name,
			{ prompts: [user("pay the bill")] },
			{ runId: "paused" },
		);
		expect((await fixture.runs.result(paused)).outcome.type).toBe("awaiting_approval");
		const resumed = await fixture.runs.resume(paused, decisions);
		expect((await fixture.runs.result(resumed)).outcome).toEqual({ type: "completed" });
		expect(counts.filter((key) => key === "tool:t2")).toHaveLength(1);

		await fixture.runs.delete(resumed);
		await expect(fixture.runs.resume(paused, decisions)).rejects.toThrow(
			/run "paused" was already continued as run "paused:resume", which has since been deleted/,
		);
		expect(await fixture.runs.status(resumed)).toBeUndefined();
		expect(counts.filter((key) => key === "tool:t2")).toHaveLength(1);

		await endedRun("carried-from");
		await fixture.runs.result(
			await fixture.runs.start(plain.name, input("x"), {
				runId: "carried-to",
				carryOverFrom: "carried-from",
			}),
		);
		await fixture.runs.delete("carried-to");
		await expect(
			fixture.runs.start(plain.name, input("y"), { carryOverFrom: "carried-from" }),
		).rejects.toThrow(/already continued as run "carried-to", which has since been deleted/);
		// The claim stays with the run carried from until that run goes.
		expect(await rows("carried-from")).toMatchObject({ carryovers: 1 });
		await fixture.runs.delete(["carried-from", paused]);
		expect(await rows("carried-from")).toEqual({ events: 0, messages: 0, carryovers: 0 });
	});

	it("pruneOrphans removes the rows of runs DBOS deleted itself and keeps those of the runs it has", async () => {
		await endedRun("orphan-1");
		await fixture.runs.result(
			await fixture.runs.start(plain.name, input("heir"), { runId: "heir", carryOverFrom: "orphan-1" }),
		);
		await endedRun("orphan-2");
		await endedRun("kept");
		const heir = await rows("heir");
		const kept = await rows("kept");
		// As a retention policy or a host calling DBOS directly would: DBOS's records go, capstan's rows stay.
		await DBOS.deleteWorkflows(["orphan-1", "orphan-2"]);
		expect(await rows("orphan-1")).toMatchObject({ messages: 1, carryovers: 1 });

		// Batches of two: the run ids are walked past several batch boundaries.
		expect(await fixture.runs.pruneOrphans({ batchSize: 2 })).toBe(2);
		expect(await rows("orphan-1")).toEqual({ events: 0, messages: 0, carryovers: 0 });
		expect(await rows("orphan-2")).toEqual({ events: 0, messages: 0, carryovers: 0 });
		expect(await rows("heir")).toEqual(heir);
		expect(await rows("kept")).toEqual(kept);
		expect(await fixture.runs.pruneOrphans()).toBe(0);
	});

	it("deleteEnded deletes an agent's runs that ended before a date, the earliest first, a limit at a time", async () => {
		await endedRun("other-agent");
		await endedRun("aged-1", aged);
		await endedRun("aged-2", aged);
		const cutoff = (await DBOS.getWorkflowStatus("aged-2"))?.completedAt;
		expect(cutoff).toBeTypeOf("number");
		await endedRun("young", aged);

		const endedBefore = new Date(cutoff as number);
		expect(await fixture.runs.deleteEnded({ agent: aged.name, endedBefore, limit: 1 })).toEqual(["aged-1"]);
		expect(await fixture.runs.deleteEnded({ agent: [aged.name], endedBefore, limit: 1 })).toEqual(["aged-2"]);
		expect(await fixture.runs.deleteEnded({ agent: aged.name, endedBefore })).toEqual([]);
		expect(await rows("aged-2")).toEqual({ events: 0, messages: 0, carryovers: 0 });
		expect(await fixture.runs.status("young")).toMatchObject({ status: "SUCCESS" });
		expect(await fixture.runs.status("other-agent")).toMatchObject({ status: "SUCCESS" });
	});

	/** The types of the events a reader reads to its end. */
	async function read(events: AsyncGenerator<DbosRunEvent>): Promise<string[]> {
		const types: string[] = [];
		for await (const { event } of events) types.push(event.type);
		return types;
	}

	/** What a `DbosRunNotFoundError` of `what` (a method) for `runId` holds. */
	const notFound = (runId: string, what = "events") => ({
		name: "DbosRunNotFoundError",
		runId,
		message: `${what}: no run "${runId}"`,
	});

	it("events of a run that never was, or was deleted, end with DbosRunNotFoundError rather than wait forever", async () => {
		const unknown = read(fixture.runs.events("never-was"));
		await expect(unknown).rejects.toThrow(DbosRunNotFoundError);
		await expect(unknown).rejects.toMatchObject(notFound("never-was"));

		await endedRun("read-then-deleted");
		expect((await read(fixture.runs.events("read-then-deleted"))).at(-1)).toBe("agent_end");
		await fixture.runs.delete("read-then-deleted");
		await expect(read(fixture.runs.events("read-then-deleted"))).rejects.toMatchObject(
			notFound("read-then-deleted"),
		);
	});

	it("a reader that began while the run ran ends with DbosRunNotFoundError once the run is deleted", async () => {
		const runId = "deleted-while-read";
		const body = gated.run(input(runId), { runId }).then(
			() => undefined,
			(error: unknown) => error,
		);
		await lookupGate.reached;
		const reader = fixture.runs.events(runId);
		// The reader read while the run ran, and waits for its next event.
		expect((await reader.next()).done).toBe(false);
		await DBOS.cancelWorkflow(runId);
		lookupGate.open();
		expect(await body).toBeInstanceOf(Error);
		await fixture.runs.delete(runId);
		expect(await rows(runId)).toEqual({ events: 0, messages: 0, carryovers: 0 });
		await expect(read(reader)).rejects.toMatchObject(notFound(runId));
	});

	it("the result of a run that never was, or was deleted, is DbosRunNotFoundError rather than a wait forever", async () => {
		const unknown = fixture.runs.result("never-was");
		await expect(unknown).rejects.toThrow(DbosRunNotFoundError);
		await expect(unknown).rejects.toMatchObject(notFound("never-was", "result"));

		await endedRun("result-then-deleted");
		expect((await fixture.runs.result("result-then-deleted")).outcome).toEqual({ type: "completed" });
		await fixture.runs.delete("result-then-deleted");
		await expect(fixture.runs.result("result-then-deleted")).rejects.toMatchObject(
			notFound("result-then-deleted", "result"),
		);
	});

	it("the result of a failed run rejects with its error as DBOS's getResult revives it, in either serialization", async () => {
		const client = await DBOSClient.create({
			systemDatabaseUrl: fixture.databaseUrl,
			applicationName: application,
		});
		try {
			await fixture.runs.start(failing.name, input("failed-native"), { runId: "failed-native" });
			// As a DBOS client of another language enqueues: its error is stored as portable JSON, which DBOS's
			// listWorkflows leaves as raw text where getResult revives a PortableWorkflowError.
			const portable = await client.enqueue(
				{
					workflowName: failing.name,
					queueName: DEFAULT_AGENT_QUEUE,
					workflowID: "failed-portable",
					serializationType: "portable",
				},
				input("failed-portable"),
			);
			for (const runId of ["failed-native", portable.workflowID]) {
				const dbos = await client
					.retrieveWorkflow(runId)
					.getResult()
					.then(
						() => expect.unreachable(),
						(error: unknown) => error,
					);
				const ours = await fixture.runs.result(runId).then(
					() => expect.unreachable(),
					(error: unknown) => error,
				);
				expect(ours).toBeInstanceOf(Error);
				expect(ours).toEqual(dbos);
				expect(ours).toMatchObject({ message: "no agent today", name: "RangeError", code: "E_NO_AGENT" });
				expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(dbos));
			}
		} finally {
			await client.destroy();
		}
	});

	it("a caller waiting for a run's result gets DbosRunNotFoundError once the run is deleted", async () => {
		// A queue no worker polls holds the run ENQUEUED, and DBOS's own delete takes it from there: the caller
		// never sees it end (a cancelled run would end its wait with DBOS's cancelled error if it looked between
		// the cancel and the delete).
		const runId = "deleted-while-awaited";
		await fixture.runs.start(plain.name, input(runId), { runId, queueName: "nobody-polls" });
		let settled = false;
		const waiting = fixture.runs.result(runId).finally(() => {
			settled = true;
		});
		waiting.catch(() => {});
		// A look after the caller's first one: the run is there and has not ended, and the caller waits.
		expect(await fixture.runs.status(runId)).toMatchObject({ status: "ENQUEUED" });
		expect(settled).toBe(false);
		await DBOS.deleteWorkflow(runId);
		await expect(waiting).rejects.toMatchObject(notFound(runId, "result"));
	});

	it("resume, rewind and a carry-over from a run that is not there throw DbosRunNotFoundError too", async () => {
		await expect(fixture.runs.resume("never-was", {})).rejects.toMatchObject(notFound("never-was", "resume"));
		await expect(fixture.runs.rewind("never-was", { startStep: 1 })).rejects.toMatchObject(
			notFound("never-was", "rewind"),
		);
		await expect(
			fixture.runs.start(plain.name, input("x"), { carryOverFrom: "never-was" }),
		).rejects.toMatchObject(notFound("never-was", "carryOverFrom"));
	});
});
