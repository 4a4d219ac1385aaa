/**
 * The run's events in PostgreSQL, readable from any process. They live in a table of our own rather than a
 * DBOS stream: a stream write from workflow code is a checkpointed operation, and a replay emits fewer events
 * than a live run (no token deltas), which would shift every later step's number. Rows are keyed by the
 * core's replay-stable position (`seq`, `delta`) and inserted with ON CONFLICT DO NOTHING, so a takeover's
 * replay never shows a reader an event twice.
 */
import pg from "pg";
import { errorText } from "../core/abort.js";
import type { DurableEventPosition } from "../durable/index.js";
import type { AgentEvent } from "../protocol/events.js";
import { DbosRunNotFoundError } from "./errors.js";

/** One stored event of a run: its replay-stable position and the event as JSON. */
export interface DbosRunEvent extends DurableEventPosition {
	/** The event as the worker emitted it (JSON round-tripped). */
	event: AgentEvent;
}

/** How `DbosAgentRuns.events` reads: from where, how often, until when. */
export interface RunEventsOptions {
	/** Resume after this position (exclusive), e.g. the last event a reader saw before it reconnected. */
	after?: DurableEventPosition;
	/** How often to look for new rows, in ms. Default 100. */
	pollMs?: number;
	/** Stop reading (the generator returns) when this fires. */
	signal?: AbortSignal;
}

/**
 * Where a run is, as a reader of its events needs to know: still `running` (more rows may come), `ended` (every
 * row it wrote is there), or `gone` (DBOS has no record of it: never started, or deleted).
 */
export type RunState = "running" | "ended" | "gone";

/** The events table: one row per event of a run, keyed by the run id and the event's position. */
export const EVENTS_TABLE = "capstan.run_events";

/**
 * The pool for the events table. An idle connection the server drops (a restart, a failover, a proxy's idle
 * timeout) makes a pool emit `error`; without a listener Node turns that into an uncaught exception that ends
 * the process. The pool has already discarded the connection and opens a new one for the next query, so the
 * error needs no handling beyond being heard. A connection checked out for a transaction (a steer, a
 * carry-over, a prune) and lost emits `error` on its client instead, with no pool listening: each client gets
 * a listener too. The query under way fails with the loss, which is what the caller sees, and the pool drops
 * the client when it is released.
 */
export function createEventsPool(databaseUrl: string): pg.Pool {
	const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
	pool.on("error", () => {});
	pool.on("connect", (client) => client.on("error", () => {}));
	return pool;
}

/** Create the events table if it is missing (every worker and client may race to do it: one lock). */
export async function ensureEventsTable(pool: pg.Pool): Promise<void> {
	const client = await pool.connect();
	try {
		await client.query("BEGIN");
		await client.query("SELECT pg_advisory_xact_lock(hashtext('capstan.run_events'))");
		await client.query("CREATE SCHEMA IF NOT EXISTS capstan");
		await client.query(
			`CREATE TABLE IF NOT EXISTS ${EVENTS_TABLE} (run_id text NOT NULL, seq integer NOT NULL, delta integer NOT NULL, event jsonb NOT NULL, PRIMARY KEY (run_id, seq, delta))`,
		);
		await client.query("COMMIT");
	} catch (error) {
		await client.query("ROLLBACK").catch(() => {});
		throw error;
	} finally {
		client.release();
	}
}

/**
 * Buffers a run's events and writes them in batches, in order, one INSERT at a time: token deltas arrive
 * faster than a round trip, and the loop must never wait for the database to emit its next event.
 */
export class RunEventWriter {
	readonly #pool: pg.Pool;
	readonly #runId: string;
	#buffer: DbosRunEvent[] = [];
	#writing: Promise<void> | undefined;
	#failure: unknown;

	constructor(pool: pg.Pool, runId: string) {
		this.#pool = pool;
		this.#runId = runId;
	}

	/**
	 * Queue one event for writing. Once a write has failed it throws that failure instead: the run then starts
	 * no further step (`DurableEngine.onEvent`), rather than going on with side effects no reader will see.
	 */
	push(event: AgentEvent, position: DurableEventPosition): void {
		if (this.#failure !== undefined) throw this.#failure;
		this.#buffer.push({ ...position, event });
		this.#writing ??= this.#drain().finally(() => {
			this.#writing = undefined;
		});
	}

	/** Wait until every queued event is written; rethrows a write failure. */
	async flush(): Promise<void> {
		while (this.#writing) await this.#writing;
		if (this.#failure !== undefined) throw this.#failure;
	}

	async #drain(): Promise<void> {
		while (this.#buffer.length > 0) {
			const rows = this.#buffer;
			this.#buffer = [];
			try {
				await this.#insert(rows);
			} catch (error) {
				// The message only: PostgreSQL's error carries the refused row (the event, its tool arguments).
				this.#failure ??= new Error(
					`capstan/dbos: the run's events could not be written: ${errorText(error)}`,
				);
			}
		}
	}

	async #insert(rows: DbosRunEvent[]): Promise<void> {
		const values: unknown[] = [];
		const tuples = rows.map((row, i) => {
			values.push(this.#runId, row.seq, row.delta, jsonbText(row.event));
			const at = i * 4;
			return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}::jsonb)`;
		});
		await this.#pool.query(
			`INSERT INTO ${EVENTS_TABLE} (run_id, seq, delta, event) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING`,
			values,
		);
	}
}

/**
 * The event as JSON that jsonb takes: jsonb holds no U+0000 and refuses the whole row over one (a tool that
 * read a binary file), and refuses a lone surrogate too (text cut between the two halves of an emoji), so
 * each becomes U+FFFD. `JSON.stringify` writes exactly those as escapes (a pair stays two characters), and a
 * `\\u0000` that is an escaped backslash and text stays as it is.
 */
function jsonbText(event: AgentEvent): string {
	return JSON.stringify(event).replace(/(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g, "$1\\ufffd");
}

/**
 * Read a run's events in order from any process, waiting for new ones, until its `agent_end` (or until the
 * run ended without one, or `signal` fires). `state` is asked only when a read found no new row, so a reader
 * that keeps up with a busy run costs one query a read. A run `gone` ends the read with `DbosRunNotFoundError`
 * once no row is left to read: one never started, or deleted before or during the read.
 */
export async function* readRunEvents(
	pool: pg.Pool,
	runId: string,
	options: RunEventsOptions,
	state: () => Promise<RunState>,
): AsyncGenerator<DbosRunEvent, void, undefined> {
	let after = options.after ?? { seq: -1, delta: 0 };
	const pollMs = options.pollMs ?? 100;
	// What `state` said before the last read, when the run was no longer running: that read then saw every row.
	let last: Exclude<RunState, "running"> | undefined;
	while (!options.signal?.aborted) {
		const { rows } = await pool.query<{ seq: number; delta: number; event: AgentEvent }>(
			`SELECT seq, delta, event FROM ${EVENTS_TABLE} WHERE run_id = $1 AND (seq, delta) > ($2, $3) ORDER BY seq, delta LIMIT 1000`,
			[runId, after.seq, after.delta],
		);
		for (const row of rows) {
			yield row;
			after = { seq: row.seq, delta: row.delta };
			if (row.event.type === "agent_end") return;
		}
		if (rows.length > 0) continue;
		if (last === "ended") return;
		if (last === "gone") throw new DbosRunNotFoundError("events", runId);
		const now = await state();
		// A run that ended wrote its last rows before its status said so: read once more, without pausing.
		if (now !== "running") last = now;
		else await pause(pollMs, options.signal);
	}
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve) => {
		const timer = setTimeout(done, ms);
		signal?.addEventListener("abort", done, { once: true });
		function done() {
			clearTimeout(timer);
			signal?.removeEventListener("abort", done);
			resolve();
		}
	});
}
