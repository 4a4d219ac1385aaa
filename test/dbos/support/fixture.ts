// The setup the in-process DBOS test files share: a database of the file's own, a worker launched on it (with
// the agents the file registered before), a client of the runs, and optionally a plain connection to look at
// the tables. Made before the file's tests and closed after them, the database dropped.
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { DbosAgentRuns, type DbosWorker, launchDbosWorker } from "../../../src/dbos/index.js";
import { createDatabase } from "./postgres.js";

/** Options of `dbosFixture`. */
export interface DbosFixtureOptions {
	/** The start of the database's name (a random suffix follows). */
	database: string;
	/** The DBOS application name of the worker and the client. */
	applicationName: string;
	/** The worker's executor id; DBOS's default without it. */
	executorId?: string;
	/** Whether to open `admin`, a plain connection to the database. */
	admin?: boolean;
}

/** What `dbosFixture` made, readable once the file's tests run. */
export interface DbosFixture {
	/** The URL of the file's database. */
	readonly databaseUrl: string;
	readonly worker: DbosWorker;
	readonly runs: DbosAgentRuns;
	/** A plain connection to the database (with `admin: true`). */
	readonly admin: pg.Client;
}

/**
 * Call in a `describeWithPostgres` body, after registering the file's agents (DBOS takes only the workflows
 * registered before its launch).
 */
export function dbosFixture(serverUrl: string, options: DbosFixtureOptions): DbosFixture {
	let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
	let worker: DbosWorker | undefined;
	let runs: DbosAgentRuns | undefined;
	let admin: pg.Client | undefined;

	beforeAll(async () => {
		database = await createDatabase(serverUrl, options.database);
		worker = await launchDbosWorker({
			applicationName: options.applicationName,
			databaseUrl: database.url,
			...(options.executorId !== undefined ? { executorId: options.executorId } : {}),
		});
		runs = await DbosAgentRuns.connect({
			databaseUrl: database.url,
			applicationName: options.applicationName,
		});
		if (options.admin) {
			admin = new pg.Client({ connectionString: database.url });
			await admin.connect();
		}
	}, 60_000);

	afterAll(async () => {
		await admin?.end();
		await runs?.close();
		await worker?.shutdown();
		await database?.drop();
	});

	return {
		get databaseUrl() {
			return made(database, "the database").url;
		},
		get worker() {
			return made(worker, "the worker");
		},
		get runs() {
			return made(runs, "the runs client");
		},
		get admin() {
			return made(admin, "the admin connection (admin: true)");
		},
	};
}

function made<T>(value: T | undefined, what: string): T {
	if (value === undefined) throw new Error(`dbosFixture: ${what} is not made (yet)`);
	return value;
}
