/**
 * Retention of capstan's own rows beside DBOS's: the event log, the recorded messages and the carry-over claims
 * of a run go when DBOS no longer has the run. DBOS's `deleteWorkflows` and a Conductor retention policy delete
 * DBOS's records only, so these rows would otherwise grow without bound. Whether a run exists is asked of DBOS
 * through its public API (`listWorkflows` by id); the SQL here touches capstan's tables only.
 */
import type { DBOSClient, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import { EVENTS_TABLE } from "./events.js";
import { CARRYOVERS_TABLE, inTransaction, MESSAGES_TABLE } from "./messages.js";

/** How many run ids one DBOS lookup or delete names at most (each id is a query parameter). */
export const ID_BATCH = 500;

/** Which of these run ids DBOS has a record of. */
export type ExistingRuns = (runIds: string[]) => Promise<Set<string>>;

/**
 * Delete the rows of the runs among `runIds` that DBOS has no record of; resolves to those run ids. A run id
 * used again for a new run between the check and the delete keeps its rows: DBOS records a run before any row
 * of ours names it (the enqueue is in the same transaction as a carried message; events and messages need the
 * run), so a second check inside the deleting transaction, after the delete's snapshot, sees every such run,
 * and the delete is undone for it.
 */
export async function deleteRowsOfGoneRuns(
	pool: pg.Pool,
	runIds: string[],
	existing: ExistingRuns,
): Promise<string[]> {
	let gone = without(runIds, await existing(runIds));
	while (gone.length > 0) {
		const ids = gone;
		const back = await inTransaction(pool, async (db) => {
			await db.query(`DELETE FROM ${EVENTS_TABLE} WHERE run_id = ANY($1)`, [ids]);
			await db.query(`DELETE FROM ${MESSAGES_TABLE} WHERE run_id = ANY($1)`, [ids]);
			// A claim goes with the run carried from; while that run exists, its claim stops a second carry-over
			// even when the run carried to was deleted.
			await db.query(`DELETE FROM ${CARRYOVERS_TABLE} WHERE from_run_id = ANY($1)`, [ids]);
			const found = await existing(ids);
			if (found.size > 0) throw new RunsBack(found);
			return undefined;
		}).catch((error: unknown) => {
			if (error instanceof RunsBack) return error.runIds;
			throw error;
		});
		if (!back) return ids;
		gone = without(ids, back);
	}
	return [];
}

/**
 * Every run id capstan's tables name, in order, `batchSize` at a time from after `after`. Each table is read by
 * a skip scan of its primary key (one index probe per run, not one per event), so a batch costs the same
 * however long the runs were.
 */
export async function runIdsAfter(
	pool: pg.Pool,
	after: string | undefined,
	batchSize: number,
): Promise<string[]> {
	const skipScan = (table: string, column: string) => `(WITH RECURSIVE ids AS (
		(SELECT ${column} AS id FROM ${table} WHERE $1::text IS NULL OR ${column} > $1 ORDER BY ${column} LIMIT 1)
		UNION ALL
		SELECT (SELECT ${column} FROM ${table} WHERE ${column} > ids.id ORDER BY ${column} LIMIT 1) FROM ids WHERE ids.id IS NOT NULL
	) SELECT id FROM ids WHERE id IS NOT NULL LIMIT $2)`;
	const { rows } = await pool.query<{ id: string }>(
		`SELECT id FROM (${skipScan(EVENTS_TABLE, "run_id")} UNION ${skipScan(MESSAGES_TABLE, "run_id")} UNION ${skipScan(CARRYOVERS_TABLE, "from_run_id")}) AS named ORDER BY id LIMIT $2`,
		[after ?? null, batchSize],
	);
	return rows.map((row) => row.id);
}

/** DBOS's records of these runs, by id (of any application: a run id is global in the database). */
export async function runsByIds(client: DBOSClient, ids: string[]): Promise<WorkflowStatus[]> {
	const runs: WorkflowStatus[] = [];
	// Never an empty id list: DBOS reads that as no filter and lists every run.
	for (const batch of batches(ids))
		runs.push(...(await client.listWorkflows({ workflowIDs: batch, loadInput: false, loadOutput: false })));
	return runs;
}

/** `ids` in slices of at most `ID_BATCH`. */
export function* batches(ids: string[]): Generator<string[]> {
	for (let at = 0; at < ids.length; at += ID_BATCH) yield ids.slice(at, at + ID_BATCH);
}

/** Thrown inside the deleting transaction to roll it back when runs came back under the deleted ids. */
class RunsBack extends Error {
	readonly runIds: Set<string>;

	constructor(runIds: Set<string>) {
		super("runs came back under deleted ids");
		this.runIds = runIds;
	}
}

function without(ids: string[], drop: Set<string>): string[] {
	return ids.filter((id) => !drop.has(id));
}
