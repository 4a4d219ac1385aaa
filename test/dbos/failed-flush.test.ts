// A failed run whose event log cannot be written either (docs/durable.md, host rules 7 and 8): what the
// workflow body rejects with. No PostgreSQL needed: the write fails for real on a closed pool.
import { Error as DBOSErrors, DBOSWorkflowConflictError } from "@dbos-inc/dbos-sdk";
import { describe, expect, it } from "vitest";
import { createEventsPool, RunEventWriter } from "../../src/dbos/events.js";
import { flushBeforeFailing } from "../../src/dbos/workflow.js";

/** A writer with one event queued whose INSERT pg refuses: its pool was closed (a worker shutting down). */
async function refusedWriter(): Promise<RunEventWriter> {
	const pool = createEventsPool("postgresql://capstan@127.0.0.1:1/closed");
	await pool.end();
	const writer = new RunEventWriter(pool, "run-1");
	writer.push({ type: "agent_start" }, { seq: 0, delta: 0 });
	return writer;
}

describe("capstan/dbos: a failed run's events that cannot be written", () => {
	it("beside a cancel or a lost lease, the body rejects with DBOS's error itself, which DBOS tells by class (rule 8)", async () => {
		for (const control of [
			new DBOSErrors.DBOSWorkflowCancelledError("run-1"),
			new DBOSWorkflowConflictError("run-1"),
		]) {
			const writer = await refusedWriter();
			// Resolves: the body rethrows the run's error untouched, not an AggregateError that hides it.
			await expect(flushBeforeFailing(writer, control)).resolves.toBeUndefined();
			await expect(writer.flush()).rejects.toThrow(/^capstan\/dbos: the run's events could not be written: /);
		}
	});

	it("beside any other error, both are reported in one AggregateError, the run's error first (rule 7)", async () => {
		const writer = await refusedWriter();
		const failure = new Error("the database refused a step");
		const thrown = await flushBeforeFailing(writer, failure).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(thrown).toBeInstanceOf(AggregateError);
		expect((thrown as AggregateError).errors[0]).toBe(failure);
		expect((thrown as AggregateError).message).toMatch(
			/^the database refused a step; and the run's events were not all written: capstan\/dbos: the run's events could not be written: /,
		);
	});

	it("when the write failure is the run's error (the log stopped the run), it is that error alone", async () => {
		const writer = await refusedWriter();
		const failure = await writer.flush().then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(Error);
		await expect(flushBeforeFailing(writer, failure)).resolves.toBeUndefined();
	});
});
