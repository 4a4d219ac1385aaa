// The worker and client API of capstan/dbos in one process, against a real PostgreSQL.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
	DbosAgentRuns,
	type DbosAgentWorkflow,
	type DbosWorker,
	launchDbosWorker,
	registerDbosAgent,
} from "../../src/dbos/index.js";
import { MemoryJournal, runDurableAgent } from "../../src/durable/index.js";
import { countingAgent, withoutTimestamps } from "../durable/support/agent.js";
import { user } from "../support/run.js";
import { createDatabase, describeWithPostgres } from "./support/postgres.js";

const input = { prompts: [user("pay the bill")] };

describeWithPostgres("capstan/dbos: a worker and a client in one process", (serverUrl) => {
	let database: Awaited<ReturnType<typeof createDatabase>>;
	let worker: DbosWorker;
	let runs: DbosAgentRuns;
	let agent: DbosAgentWorkflow;
	const counts: string[] = [];

	beforeAll(async () => {
		database = await createDatabase(serverUrl, "capstan_worker");
		agent = registerDbosAgent({
			name: "in-process",
			agent: () => countingAgent({ count: (key) => counts.push(key) }),
			queuePollingMs: 50,
		});
		worker = await launchDbosWorker({
			applicationName: "capstan-worker-test",
			databaseUrl: database.url,
			executorId: "solo",
		});
		runs = await DbosAgentRuns.connect({ databaseUrl: database.url, applicationName: "capstan-worker-test" });
	}, 60_000);

	afterAll(async () => {
		await runs?.close();
		await worker?.shutdown();
		await database?.drop();
	});

	it("run() executes durably here and returns the same transcript as the in-memory core (SPEC L13)", async () => {
		const result = await agent.run(input, { runId: "direct" });
		const expected = await runDurableAgent(
			countingAgent({ count: () => {} }),
			input,
			new MemoryJournal().attempt(),
		);
		expect(withoutTimestamps(result.messages)).toEqual(withoutTimestamps(expected.messages));
		expect(await runs.status("direct")).toEqual({ status: "SUCCESS", executorId: "solo" });
		// Running the same run id again returns the recorded result without running anything.
		const before = counts.length;
		expect(await agent.run(input, { runId: "direct" })).toEqual(result);
		expect(counts.length).toBe(before);
	});

	it("start() enqueues, the client reads the result and every event once", async () => {
		const runId = await agent.start(input);
		const result = await runs.result(runId);
		const events = [];
		for await (const event of runs.events(runId)) events.push(event);
		expect(events.filter((e) => e.delta === 0).map((e) => e.seq)).toEqual(
			events.filter((e) => e.delta === 0).map((_, i) => i),
		);
		expect(events.at(-1)?.event).toMatchObject({ type: "agent_end", outcome: result.outcome });
		// Resuming after a position skips what the reader already saw.
		const middle = events[Math.floor(events.length / 2)];
		const rest = [];
		for await (const event of runs.events(runId, middle ? { after: middle } : {})) rest.push(event);
		expect(rest).toEqual(events.slice(Math.floor(events.length / 2) + 1));
	});

	it("rejects what is not a message before anything is sent, and reports unknown runs", async () => {
		await expect(runs.steer("direct", { text: "no role" } as never)).rejects.toThrow(
			/expected an agent message/,
		);
		expect(await runs.status("no-such-run")).toBeUndefined();
		expect(await runs.takeOver({ executorId: "nobody" })).toEqual([]);
		await expect(launchDbosWorker({ applicationName: "x", databaseUrl: database.url })).rejects.toThrow(
			/already launched/,
		);
	});

	it("a server that drops its idle connections does not end the process; the next read reconnects", async () => {
		const runId = await agent.start(input);
		await runs.result(runId);
		const read = async () => {
			const events = [];
			for await (const event of runs.events(runId)) events.push(event);
			return events.length;
		};
		const count = await read();
		// Every other connection to the test database goes, as in a restart, a failover or a proxy's idle timeout.
		const admin = new pg.Client({ connectionString: database.url });
		await admin.connect();
		await admin.query(
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'",
		);
		await admin.end();
		// The pools hear of it as an 'error' event; unheard, Node would end this process with it.
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(await read()).toBe(count);
	});
});
