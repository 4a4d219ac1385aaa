// Launching and closing capstan/dbos when something fails part-way: nothing stays open or half-launched.
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { DbosAgentRuns } from "../../src/dbos/index.js";
import { createDatabase, describeWithPostgres, waitForNoOtherClients } from "./support/postgres.js";
import { spawnScript } from "./support/processes.js";

describeWithPostgres("capstan/dbos: a failed launch or close leaves nothing behind", (serverUrl) => {
	let database: Awaited<ReturnType<typeof createDatabase>>;

	beforeAll(async () => {
		database = await createDatabase(serverUrl, "capstan_lifecycle");
	}, 60_000);

	afterAll(async () => {
		await database?.drop();
	});

	afterEach(() => {
		vi.restoreAllMocks();
	});

	/** Run one case of support/launch-failure.ts; resolves to the lines it reported once it ended by itself. */
	async function launchCase(name: "launch" | "queue" | "shutdown" | "concurrent"): Promise<string[]> {
		const child = spawnScript("launch-failure.ts", { CAPSTAN_DB_URL: database.url, CAPSTAN_CASE: name });
		// A hang guard, not a timing bound: a process kept alive by a leaked pool or a launched DBOS never exits.
		const guard = setTimeout(() => child.child.kill("SIGKILL"), 45_000);
		const code = await child.exited;
		clearTimeout(guard);
		expect(code, child.output()).toBe(0);
		return child
			.stdout()
			.split("\n")
			.filter((line) => line.startsWith("case: "))
			.map((line) => line.slice("case: ".length));
	}

	it("a DBOS.launch() that fails closes the events pool, so a corrected launch in the same process works", async () => {
		expect(await launchCase("launch")).toEqual([
			"failed: No application name was provided: set `name` in DBOS.setConfig.",
			"dbos initialized: false",
			"run: completed",
			"end",
		]);
	}, 60_000);

	it("a queue DBOS refuses shuts the launched DBOS down again, and a second launch fails the same way", async () => {
		const refused =
			"failed: Queue name _dbos_mine is reserved: names starting with '_dbos_' belong to DBOS's internal queues.";
		expect(await launchCase("queue")).toEqual([
			refused,
			"dbos initialized: false",
			refused,
			"dbos initialized: false",
			"end",
		]);
	}, 60_000);

	it("a worker whose DBOS shutdown fails still closes its pool, so the process can launch again", async () => {
		expect(await launchCase("shutdown")).toEqual([
			"shutdown failed: DBOS shutdown failed",
			"shutdown again: DBOS shutdown failed",
			"run: completed",
			"end",
		]);
	}, 60_000);

	it("of two launches at once, the second is refused as a second worker", async () => {
		expect(await launchCase("concurrent")).toEqual([
			"launched",
			"failed: capstan/dbos: this process already launched a worker",
			"end",
		]);
	}, 60_000);

	it("close() ends the events pool even when DBOS's client fails to close", async () => {
		const runs = await DbosAgentRuns.connect({ databaseUrl: database.url, applicationName: "capstan-close" });
		// DBOS's own destroy runs for real, then reports a failure.
		const destroy = DBOSClient.prototype.destroy;
		vi.spyOn(DBOSClient.prototype, "destroy").mockImplementationOnce(async function (this: DBOSClient) {
			await destroy.call(this);
			throw new Error("client close failed");
		});
		await expect(runs.close()).rejects.toThrow("client close failed");
		// Again: the same outcome, not pg's "Called end on pool more than once".
		await expect(runs.close()).rejects.toThrow("client close failed");
		// Every connection of this process to the database is gone: none is left idle in the events pool (one
		// would stay open, and the wait fail).
		const admin = new pg.Client({ connectionString: database.url });
		await admin.connect();
		try {
			await waitForNoOtherClients(admin);
		} finally {
			await admin.end();
		}
	});
});
