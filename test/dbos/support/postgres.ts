// The PostgreSQL the DBOS tests run against: CAPSTAN_TEST_POSTGRES_URL (scripts/services/postgres.sh start
// prints one). Without it the suites skip, unless CAPSTAN_REQUIRE_SERVICES=1 (CI), where a missing service fails.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, it } from "vitest";

/** The server URL, if one is configured. */
export const POSTGRES_URL = process.env.CAPSTAN_TEST_POSTGRES_URL;

/** `describe` when PostgreSQL is configured; otherwise a skipped suite saying why (or a failing one in CI). */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
	if (POSTGRES_URL) {
		describe(name, () => body(POSTGRES_URL));
		return;
	}
	const why =
		"CAPSTAN_TEST_POSTGRES_URL is not set (run scripts/services/postgres.sh start and export the URL it prints)";
	if (process.env.CAPSTAN_REQUIRE_SERVICES === "1")
		describe(name, () =>
			it("needs PostgreSQL", () =>
				Promise.reject(new Error(`${why}; CAPSTAN_REQUIRE_SERVICES=1 requires it`))),
		);
	else describe.skip(`${name} — skipped: ${why}`, () => it("needs PostgreSQL", () => {}));
}

/** A database of its own for one test file, so files run in parallel; `drop` removes it (closing any session). */
export async function createDatabase(
	serverUrl: string,
	prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
	const name = `${prefix}_${randomBytes(4).toString("hex")}`;
	const admin = new pg.Client({ connectionString: serverUrl });
	await admin.connect();
	try {
		await admin.query(`CREATE DATABASE ${name}`);
	} finally {
		await admin.end();
	}
	const url = new URL(serverUrl);
	url.pathname = `/${name}`;
	return {
		url: url.toString(),
		async drop() {
			const client = new pg.Client({ connectionString: serverUrl });
			await client.connect();
			try {
				await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
			} finally {
				await client.end();
			}
		},
	};
}

/** The client sessions on `admin`'s database other than its own. */
export const OTHER_CLIENTS =
	"FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND backend_type = 'client backend'";

/**
 * Resolve once `admin`'s database has no client session but `admin`'s own. A backend leaves pg_stat_activity
 * a moment after its client hung up (or after it was terminated), so a count taken at once can still see it;
 * a connection that stays open fails this after `timeoutMs`.
 */
export async function waitForNoOtherClients(admin: pg.Client, timeoutMs = 10_000): Promise<void> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n ${OTHER_CLIENTS}`);
		const left = rows[0]?.n ?? 0;
		if (left === 0) return;
		if (Date.now() > until)
			throw new Error(`${left} other client session(s) still open after ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

/** The queue the kill tests' agents are registered on (not the default one). */
export const KILL_QUEUE = "kill-queue";
