// The worker and client API of capstan/dbos in one process, against a real PostgreSQL.
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { expect, it } from "vitest";
import { launchDbosWorker, registerDbosAgent } from "../../src/dbos/index.js";
import {
	type DurableAgent,
	type DurableRunResult,
	MemoryJournal,
	runDurableAgent,
} from "../../src/durable/index.js";
import type { AgentTool } from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { countingAgent, withoutTimestamps } from "../durable/support/agent.js";
import { user } from "../support/run.js";
import { dbosFixture } from "./support/fixture.js";
import { createGate, type Gate } from "./support/gate.js";
import { describeWithPostgres, OTHER_CLIENTS, waitForNoOtherClients } from "./support/postgres.js";

const input = { prompts: [user("pay the bill")] };

/**
 * An agent whose first tool waits until the test's trigger has refused the run's first event (a sequence
 * counts refusals: it is not rolled back with the insert), then returns; its second tool, `charge`, counts
 * itself.
 */
function brokenEventsAgent(databaseUrl: string, count: (key: string) => void): DurableAgent {
	const scripted = scriptedModel(
		[
			{ content: [{ type: "toolCall", id: "w1", name: "wait_for_refusal", arguments: {} }] },
			{ content: [{ type: "toolCall", id: "c1", name: "charge", arguments: {} }] },
			{ content: [{ type: "text", text: "done" }] },
		],
		{ now: () => 0 },
	);
	const parameters = { type: "object", properties: {} } as const;
	const waitForRefusal: AgentTool = {
		name: "wait_for_refusal",
		description: "Wait until the event log refused a write.",
		parameters,
		idempotent: true,
		async execute() {
			const client = new pg.Client({ connectionString: databaseUrl });
			await client.connect();
			try {
				// A hang guard, not a timing bound: the refusal takes a round trip.
				for (let i = 0; i < 500; i++) {
					const { rows } = await client.query<{ is_called: boolean }>(
						"SELECT is_called FROM capstan.test_refusals",
					);
					if (rows[0]?.is_called) break;
					await new Promise((resolve) => setTimeout(resolve, 20));
				}
			} finally {
				await client.end();
			}
			// The writer's connection answered first; one turn of the event loop lets its callback run.
			await new Promise((resolve) => setImmediate(resolve));
			return { content: [{ type: "text", text: "refused" }] };
		},
	};
	const charge: AgentTool = {
		name: "charge",
		description: "Charge the card (a side effect).",
		parameters,
		async execute() {
			count("tool:charge");
			return { content: [{ type: "text", text: "charged" }] };
		},
	};
	return { model: scripted.model, streamFn: scripted.stream, tools: [waitForRefusal, charge] };
}

/** An agent whose one tool waits at `waitAt` (the test cancels the run meanwhile), then a text reply. */
function cancellableAgent(waitAt: Gate): DurableAgent {
	const scripted = scriptedModel(
		(call) =>
			call.context.messages.some((message) => message.role === "toolResult")
				? { content: [{ type: "text", text: "done" }] }
				: { content: [{ type: "toolCall", id: "s1", name: "slow", arguments: {} }] },
		{ now: () => 0 },
	);
	const slow: AgentTool = {
		name: "slow",
		description: "Take a while.",
		parameters: { type: "object", properties: {} },
		idempotent: true,
		async execute() {
			waitAt.inside();
			await waitAt.opened;
			return { content: [{ type: "text", text: "slept" }] };
		},
	};
	return { model: scripted.model, streamFn: scripted.stream, tools: [slow] };
}

/** A NUL, its escape as text, a lone low and a lone high surrogate, a pair (an emoji), a surrogate's escape as text. */
const NUL_TEXT = "bytes: \u0000, \\u0000, \udc00 \ud83d, \ud83d\ude00, \\ud800";

describeWithPostgres("capstan/dbos: a worker and a client in one process", (serverUrl) => {
	const slowGate = createGate();
	const counts: string[] = [];
	const markerCounts: string[] = [];
	const brokenCounts: string[] = [];
	const agent = registerDbosAgent({
		name: "in-process",
		agent: () => countingAgent({ count: (key) => counts.push(key) }),
		queuePollingMs: 50,
	});
	const broken = registerDbosAgent({
		name: "broken-events",
		agent: () => brokenEventsAgent(fixture.databaseUrl, (key) => brokenCounts.push(key)),
	});
	const nul = registerDbosAgent({
		name: "nul-events",
		agent: () => {
			const scripted = scriptedModel([{ content: [{ type: "text", text: NUL_TEXT }] }]);
			return { model: scripted.model, streamFn: scripted.stream };
		},
	});
	const cancellable = registerDbosAgent({ name: "cancellable", agent: () => cancellableAgent(slowGate) });
	const markerRefused = registerDbosAgent({
		name: "marker-refused",
		agent: () => countingAgent({ count: (key) => markerCounts.push(key) }),
	});
	const fixture = dbosFixture(serverUrl, {
		database: "capstan_worker",
		applicationName: "capstan-worker-test",
		executorId: "solo",
	});

	it("run() executes durably here and returns the same transcript as the in-memory core (SPEC L13)", async () => {
		const result = await agent.run(input, { runId: "direct" });
		const expected = await runDurableAgent(
			countingAgent({ count: () => {} }),
			input,
			new MemoryJournal().attempt(),
		);
		expect(withoutTimestamps(result.messages)).toEqual(withoutTimestamps(expected.messages));
		expect(await fixture.runs.status("direct")).toEqual({ status: "SUCCESS", executorId: "solo" });
		// Running the same run id again returns the recorded result without running anything.
		const before = counts.length;
		expect(await agent.run(input, { runId: "direct" })).toEqual(result);
		expect(counts.length).toBe(before);
	});

	it("start() enqueues, the client reads the result and every event once", async () => {
		const runId = await agent.start(input);
		const result = await fixture.runs.result(runId);
		const events = [];
		for await (const event of fixture.runs.events(runId)) events.push(event);
		expect(events.filter((e) => e.delta === 0).map((e) => e.seq)).toEqual(
			events.filter((e) => e.delta === 0).map((_, i) => i),
		);
		expect(events.at(-1)?.event).toMatchObject({ type: "agent_end", outcome: result.outcome });
		// Resuming after a position skips what the reader already saw.
		const middle = events[Math.floor(events.length / 2)];
		const rest = [];
		for await (const event of fixture.runs.events(runId, middle ? { after: middle } : {})) rest.push(event);
		expect(rest).toEqual(events.slice(Math.floor(events.length / 2) + 1));
	});

	it("rejects what is not a message before anything is sent, and reports unknown runs", async () => {
		await expect(fixture.runs.steer("direct", { text: "no role" } as never)).rejects.toThrow(
			/expected an agent message/,
		);
		expect(await fixture.runs.status("no-such-run")).toBeUndefined();
		expect(await fixture.runs.takeOver({ executorId: "nobody" })).toEqual([]);
		await expect(
			launchDbosWorker({ applicationName: "x", databaseUrl: fixture.databaseUrl }),
		).rejects.toThrow(/already launched/);
	});

	it("an event the database refuses stops the run; the events pushed until then are written and the run fails with the write's error", async () => {
		const admin = new pg.Client({ connectionString: fixture.databaseUrl });
		await admin.connect();
		await admin.query("CREATE SEQUENCE capstan.test_refusals");
		await admin.query(`CREATE FUNCTION capstan.test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF NEW.run_id = 'broken-events' AND NEW.event->>'type' = 'agent_start' THEN
					PERFORM nextval('capstan.test_refusals');
					RAISE EXCEPTION 'refused by the test';
				END IF;
				RETURN NEW;
			END $$`);
		await admin.query(
			"CREATE TRIGGER test_refuse BEFORE INSERT ON capstan.run_events FOR EACH ROW EXECUTE FUNCTION capstan.test_refuse()",
		);
		try {
			const runId = await broken.start(input, { runId: "broken-events" });
			await expect(fixture.runs.result(runId)).rejects.toThrow(
				/^capstan\/dbos: the run's events could not be written: refused by the test$/,
			);
			expect(await fixture.runs.status(runId)).toMatchObject({ status: "ERROR" });
			// The run stopped at its first event after the refusal: no further tool ran unseen.
			expect(brokenCounts).toEqual([]);
			// The events emitted before the writer knew (how many depends on the round trips) are written, before
			// the run's ERROR status; the refused one is not.
			const events = [];
			for await (const { event } of fixture.runs.events(runId)) events.push(event);
			expect(events[0]?.type).toBe("turn_start");
			expect(events.map((event) => event.type)).not.toContain("agent_end");
		} finally {
			await admin.query("DROP TRIGGER test_refuse ON capstan.run_events");
			await admin.query("DROP FUNCTION capstan.test_refuse()");
			await admin.query("DROP SEQUENCE capstan.test_refusals");
			await admin.end();
		}
	});

	it("a cancel mid-tool fails the body with DBOS's error: no error result or agent_end is logged, and a resume finishes the run", async () => {
		const runId = "cancelled-mid-tool";
		const first = cancellable.run(input, { runId }).then(
			() => undefined,
			(error: unknown) => error,
		);
		await slowGate.reached;
		await DBOS.cancelWorkflow(runId);
		slowGate.open();
		// Settles once the body has ended: DBOS parks a cancelled execution until its outcome is recorded.
		expect(await first).toBeInstanceOf(Error);
		expect(await fixture.runs.status(runId)).toMatchObject({ status: "CANCELLED" });
		const cancelled = [];
		for await (const { event } of fixture.runs.events(runId)) cancelled.push(event);
		// Nothing the loop made of the engine's refusal reached the event log.
		expect(cancelled.map((event) => event.type)).not.toContain("agent_end");
		expect(cancelled.map((event) => event.type)).not.toContain("tool_execution_end");
		// DBOS's resume replays what was recorded and runs the rest: the log then tells the run as it happened.
		const result = await (await DBOS.resumeWorkflow<DurableRunResult>(runId)).getResult();
		expect(result.outcome).toEqual({ type: "completed" });
		const events = [];
		for await (const { event } of fixture.runs.events(runId)) events.push(event);
		const ends = events.filter((event) => event.type === "agent_end");
		expect(ends).toHaveLength(1);
		expect(ends[0]).toMatchObject({ outcome: { type: "completed" } });
		expect(events.find((event) => event.type === "tool_execution_end")).toMatchObject({
			isError: false,
			result: { content: [{ type: "text", text: "slept" }] },
		});
	});

	it("a start marker the database refuses fails the attempt and is not recorded as the tool's result: a rewind keeping every recorded step runs the tool once", async () => {
		const runId = "marker-refused";
		const admin = new pg.Client({ connectionString: fixture.databaseUrl });
		await admin.connect();
		// A real refusal of DBOS's write of the marker of `charge` (call t2, not idempotent), and of nothing else.
		await admin.query(`CREATE FUNCTION capstan.test_refuse_marker() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF NEW.workflow_uuid = '${runId}' AND NEW.function_name = 't2:started' THEN
					RAISE EXCEPTION 'marker refused by the test';
				END IF;
				RETURN NEW;
			END $$`);
		await admin.query(
			"CREATE TRIGGER test_refuse_marker BEFORE INSERT ON dbos.operation_outputs FOR EACH ROW EXECUTE FUNCTION capstan.test_refuse_marker()",
		);
		try {
			// SPEC L13 / host rule 8: the journal's own failure fails the attempt with that very error.
			await expect(markerRefused.run(input, { runId })).rejects.toThrow(/^marker refused by the test$/);
			expect(await fixture.runs.status(runId)).toMatchObject({ status: "ERROR" });
			// The tool whose marker was not written did not run.
			expect(markerCounts).not.toContain("tool:t2");
		} finally {
			await admin.query("DROP TRIGGER test_refuse_marker ON dbos.operation_outputs");
			await admin.query("DROP FUNCTION capstan.test_refuse_marker()");
			await admin.end();
		}
		// The database is fine again. ERROR is final for DBOS (resumeWorkflow leaves it alone); a rewind that keeps
		// every recorded step replays the run in place, and `charge`, never recorded, runs as if it never started.
		const steps = (await DBOS.listWorkflowSteps(runId)) ?? [];
		expect(steps.map((step) => step.name)).not.toContain("t2");
		const startStep = Math.max(...steps.map((step) => step.functionID)) + 1;
		const result = await (await DBOS.rewindWorkflow<DurableRunResult>(runId, { startStep })).getResult();
		expect(result.outcome).toEqual({ type: "completed" });
		expect(markerCounts.filter((key) => key === "tool:t2")).toEqual(["tool:t2"]);
		const charged = result.messages.find(
			(message) => message.role === "toolResult" && message.toolCallId === "t2",
		);
		expect(charged).toMatchObject({ isError: false });
	});

	it("an event with a NUL character or a lone surrogate is written, the character replaced (jsonb holds neither)", async () => {
		const result = await nul.run(input, { runId: "nul-events" });
		expect(result.outcome).toEqual({ type: "completed" });
		expect(result.added.at(-1)).toMatchObject({ content: [{ type: "text", text: NUL_TEXT }] });
		const events = [];
		for await (const { event } of fixture.runs.events("nul-events")) events.push(event);
		const end = events.findLast((event) => event.type === "message_end");
		// Only the characters themselves: the text `\u0000` (a backslash and five characters) stays as it is, and
		// so does a surrogate pair (an emoji). A lone surrogate comes from text cut between the two halves.
		expect(end).toMatchObject({
			message: {
				content: [{ type: "text", text: "bytes: \ufffd, \\u0000, \ufffd \ufffd, \ud83d\ude00, \\ud800" }],
			},
		});
	});

	it("a server that drops its idle connections does not end the process; the next read reconnects", async () => {
		const runId = await agent.start(input);
		await fixture.runs.result(runId);
		const read = async () => {
			const events = [];
			for await (const event of fixture.runs.events(runId)) events.push(event);
			return events.length;
		};
		const count = await read();
		// Every other connection to the test database goes, as in a restart, a failover or a proxy's idle timeout.
		const admin = new pg.Client({ connectionString: fixture.databaseUrl });
		await admin.connect();
		await admin.query(`SELECT pg_terminate_backend(pid) ${OTHER_CLIENTS}`);
		// The pools hear of it as an 'error' event; unheard, Node would end this process with it. A backend
		// sends its "terminating connection" error before it leaves pg_stat_activity, so once none is left the
		// errors wait in this process's sockets, and the next turn of the event loop delivers them.
		await waitForNoOtherClients(admin);
		await admin.end();
		await new Promise((resolve) => setImmediate(resolve));
		expect(await read()).toBe(count);
	});
});
