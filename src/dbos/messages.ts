/**
 * The steering and follow-ups sent to runs, recorded in a table of our own in the same transaction as DBOS's
 * message. DBOS addresses a message to one workflow id and forgets it with that run: a run cancelled or failed
 * keeps the messages it read (its transcript is not written) and those it never read, and a rewind deletes the
 * unread ones. The record lets `DbosAgentRuns` give them to the conversation's next run, or back to the rewound
 * run, through DBOS's public API only. Each message travels in an envelope with its id, so DBOS's record of a
 * run's reads (its `DBOS.recv` steps) says which messages it read, and with its position, so a turn boundary
 * that reads several at once reads them in the order they were sent (DBOS orders by the millisecond).
 */
import { randomUUID } from "node:crypto";
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import type { AgentMessage } from "../core/messages.js";
import type { DurableTopic } from "../durable/index.js";
import { DbosRunNotFoundError } from "./errors.js";

/** The DBOS message topic each durable queue travels on. */
export function messageTopic(topic: DurableTopic): string {
	return `capstan.${topic}`;
}

/** The queues whose messages are recorded: an abort is aimed at one run and is never given to another. */
export type RecordedTopic = "steer" | "followUp";

/** A steer or follow-up as a DBOS message: its id, its place in the order of sending, the message. */
export interface MessageEnvelope {
	capstan: "message";
	id: string;
	position: number;
	message: AgentMessage;
}

/** A recorded message of a run. */
interface RecordedMessage {
	id: string;
	topic: RecordedTopic;
	position: number;
	message: AgentMessage;
}

// The message is stored as JSON text, exactly as sent: jsonb would refuse a NUL character a steer may carry.
/** The recorded steers and follow-ups, one row per message and run it was sent to. */
export const MESSAGES_TABLE = "capstan.run_messages";
/** Which run a run's messages were carried over to, one row per run carried from (`from_run_id`). */
export const CARRYOVERS_TABLE = "capstan.run_carryovers";

/** The statuses of a run that ended without writing its transcript: every message it was sent is carried. */
const WITHOUT_TRANSCRIPT = new Set(["CANCELLED", "ERROR", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** Create the message tables if they are missing (every client may race to do it: one lock). */
export async function ensureMessageTables(pool: pg.Pool): Promise<void> {
	await inTransaction(pool, async (db) => {
		await db.query("SELECT pg_advisory_xact_lock(hashtext('capstan.run_messages'))");
		await db.query("CREATE SCHEMA IF NOT EXISTS capstan");
		await db.query(
			`CREATE TABLE IF NOT EXISTS ${MESSAGES_TABLE} (run_id text NOT NULL, message_id text NOT NULL, topic text NOT NULL, position bigserial NOT NULL, message text NOT NULL, PRIMARY KEY (run_id, message_id))`,
		);
		await db.query(
			`CREATE TABLE IF NOT EXISTS ${CARRYOVERS_TABLE} (from_run_id text PRIMARY KEY, to_run_id text NOT NULL)`,
		);
	});
}

/** Whether a value received from DBOS is one of our envelopes (a host may `DBOS.send` bare messages too). */
export function isEnvelope(value: unknown): value is MessageEnvelope {
	return (
		typeof value === "object" &&
		value !== null &&
		(value as { capstan?: unknown }).capstan === "message" &&
		typeof (value as { id?: unknown }).id === "string"
	);
}

/**
 * The messages one turn boundary read, in the order they were sent. DBOS hands out the oldest message first
 * by its creation millisecond, and messages written in one transaction (a carry-over, a rewind's resend) share
 * it; the envelopes' positions restore the order. Bare messages keep their place at the end.
 */
export function openEnvelopes(received: unknown[]): unknown[] {
	const envelopes = received.filter(isEnvelope).sort((a, b) => a.position - b.position);
	return [
		...envelopes.map((envelope) => envelope.message),
		...received.filter((value) => !isEnvelope(value)),
	];
}

/**
 * Record a message for `runId` and send it to the run, both or neither. A run whose messages were carried over
 * will never read it: it goes to the run they were carried to (along a chain of carry-overs), as the carried
 * ones did. A carry-over from the run waits for this transaction and carries the message; one done before it
 * is seen here.
 */
export async function sendRecorded(
	pool: pg.Pool,
	client: DBOSClient,
	runId: string,
	topic: RecordedTopic,
	message: AgentMessage,
): Promise<void> {
	await inTransaction(pool, async (db) => {
		const to = await recipient(db, runId);
		const id = randomUUID();
		const position = await insertMessage(db, to, { id, topic, message });
		await send(db, client, to, { capstan: "message", id, position, message }, topic);
	});
}

/** The first key of the transaction locks that order a run's new messages against a carry-over from it. */
const CARRY_LOCK_CLASS = 0x63617073;

/**
 * Lock `runId` against a carry-over from it until the transaction ends: a send takes it shared, a carry-over
 * exclusive, so a message is either recorded before the carry-over reads the run's messages or sent after it.
 */
async function lockCarryOver(db: pg.ClientBase, runId: string, mode: "shared" | "exclusive"): Promise<void> {
	const lock = mode === "shared" ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock";
	await db.query(`SELECT ${lock}(${CARRY_LOCK_CLASS}, hashtext($1))`, [runId]);
}

/** The run a message sent to `runId` goes to: the run itself, or the last run its messages were carried on to. */
async function recipient(db: pg.ClientBase, runId: string): Promise<string> {
	const seen = new Set<string>();
	let to = runId;
	for (;;) {
		seen.add(to);
		await lockCarryOver(db, to, "shared");
		const { rows } = await db.query<{ to_run_id: string }>(
			`SELECT to_run_id FROM ${CARRYOVERS_TABLE} WHERE from_run_id = $1`,
			[to],
		);
		const next = rows[0]?.to_run_id;
		if (next === undefined || seen.has(next)) return to;
		to = next;
	}
}

/**
 * In one transaction: enqueue the next run (through `enqueue`, which joins the transaction) and send it every
 * message `fromRunId` was sent and did not keep, in order, each recorded for the new run under its own id. A
 * worker cannot dequeue the new run before the messages are there. What the old run kept: nothing if it ended
 * without a transcript (cancelled, failed); the messages it read if it completed (they are in its transcript).
 * A run still running is refused, and so is a second carry-over from the same run to another one (`what` names
 * the caller in errors). Resolves to the new run's id: `toRunId`, or the run the messages were already carried
 * to when `toRunId` is undefined.
 */
export async function carryOver(
	pool: pg.Pool,
	client: DBOSClient,
	what: string,
	fromRunId: string,
	toRunId: string | undefined,
	enqueue: (db: pg.ClientBase, runId: string) => Promise<void>,
): Promise<string> {
	const from = await client.getWorkflow(fromRunId);
	if (!from) throw new DbosRunNotFoundError(what, fromRunId);
	const read =
		from.status === "SUCCESS"
			? await readMessageIds(client, fromRunId)
			: WITHOUT_TRANSCRIPT.has(from.status)
				? new Set<string>()
				: undefined;
	if (!read)
		throw new Error(
			`${what}: run "${fromRunId}" has not ended (status ${from.status}); it may still read its messages`,
		);
	const runId = toRunId ?? randomUUID();
	return inTransaction(pool, async (db) => {
		// A message sent to the run meanwhile is recorded before the read below, or goes to the new run.
		await lockCarryOver(db, fromRunId, "exclusive");
		const claimed = await db.query<{ to_run_id: string }>(
			`INSERT INTO ${CARRYOVERS_TABLE} (from_run_id, to_run_id) VALUES ($1, $2) ON CONFLICT (from_run_id) DO UPDATE SET to_run_id = ${CARRYOVERS_TABLE}.to_run_id RETURNING to_run_id, (xmax = 0) AS inserted`,
			[fromRunId, runId],
		);
		const row = claimed.rows[0] as { to_run_id: string; inserted: boolean } | undefined;
		if (!row) throw new Error(`${what}: the carry-over could not be recorded`);
		if (!row.inserted) {
			// Done before, by this call retried or by another process: the new run has its messages already.
			// The claim outlives a deleted continuation, so a run is never continued twice (its messages sent
			// again, a resume's approved tools run again).
			if (!(await client.getWorkflow(row.to_run_id)))
				throw new Error(
					`${what}: run "${fromRunId}" was already continued as run "${row.to_run_id}", which has since been deleted`,
				);
			if (toRunId === undefined || row.to_run_id === toRunId) return row.to_run_id;
			throw new Error(
				`${what}: the messages of run "${fromRunId}" were already carried over to run "${row.to_run_id}"`,
			);
		}
		await enqueue(db, runId);
		for (const recorded of await recordedMessages(db, fromRunId)) {
			if (read.has(recorded.id)) continue;
			const position = await insertMessage(db, runId, recorded);
			await send(db, client, runId, { ...envelopeOf(recorded), position }, recorded.topic);
		}
		return runId;
	});
}

/**
 * After DBOS rewound `runId` (onto a queue no worker polls), send it again every recorded message DBOS deleted:
 * each is sent again under its first idempotency key, and DBOS keeps the messages the run read before the
 * rewind's start step, so only those come back (with their first positions, so in their first order).
 */
export async function resendRecorded(pool: pg.Pool, client: DBOSClient, runId: string): Promise<void> {
	await inTransaction(pool, async (db) => {
		for (const recorded of await recordedMessages(db, runId))
			await send(db, client, runId, envelopeOf(recorded), recorded.topic);
	});
}

/** The ids of the recorded messages a run read: the envelopes its `DBOS.recv` steps returned. */
async function readMessageIds(client: DBOSClient, runId: string): Promise<Set<string>> {
	const steps = (await client.listWorkflowSteps(runId)) ?? [];
	const ids = new Set<string>();
	for (const step of steps) if (step.name === "DBOS.recv" && isEnvelope(step.output)) ids.add(step.output.id);
	return ids;
}

async function recordedMessages(db: pg.ClientBase, runId: string): Promise<RecordedMessage[]> {
	const { rows } = await db.query<{ id: string; topic: RecordedTopic; position: string; message: string }>(
		`SELECT message_id AS id, topic, position::text AS position, message FROM ${MESSAGES_TABLE} WHERE run_id = $1 ORDER BY position`,
		[runId],
	);
	return rows.map((row) => ({ ...row, position: Number(row.position), message: JSON.parse(row.message) }));
}

async function insertMessage(
	db: pg.ClientBase,
	runId: string,
	{ id, topic, message }: Omit<RecordedMessage, "position">,
): Promise<number> {
	const { rows } = await db.query<{ position: string }>(
		`INSERT INTO ${MESSAGES_TABLE} (run_id, message_id, topic, message) VALUES ($1, $2, $3, $4) RETURNING position::text AS position`,
		[runId, id, topic, JSON.stringify(message)],
	);
	return Number(rows[0]?.position);
}

function envelopeOf({ id, position, message }: RecordedMessage): MessageEnvelope {
	return { capstan: "message", id, position, message };
}

/** DBOS scopes an idempotency key by destination: the message id is sent at most once to each run. */
function send(
	db: pg.ClientBase,
	client: DBOSClient,
	runId: string,
	envelope: MessageEnvelope,
	topic: RecordedTopic,
): Promise<void> {
	return client.sendInTransaction(db, runId, envelope, messageTopic(topic), envelope.id);
}

/** Run `body` in one transaction on a connection of `pool`: committed if it resolves, rolled back if not. */
export async function inTransaction<T>(pool: pg.Pool, body: (db: pg.PoolClient) => Promise<T>): Promise<T> {
	const db = await pool.connect();
	try {
		await db.query("BEGIN");
		const result = await body(db);
		await db.query("COMMIT");
		return result;
	} catch (error) {
		await db.query("ROLLBACK").catch(() => {});
		throw error;
	} finally {
		db.release();
	}
}
