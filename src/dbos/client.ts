/**
 * The control side of `capstan/dbos`, usable from any process that reaches the database (a web server, a
 * CLI, another worker): start runs, steer them, abort them, read their events and results, and hand the
 * runs of a dead worker to the live ones.
 */
import { DBOSClient, Error as DBOSErrors } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import { type AgentMessage, userMessage } from "../core/messages.js";
import {
	type ApprovalDecisions,
	checkDurableInput,
	type DurableRunInput,
	type DurableRunResult,
} from "../durable/index.js";
import { DbosRunNotFoundError } from "./errors.js";
import {
	createEventsPool,
	type DbosRunEvent,
	ensureEventsTable,
	type RunEventsOptions,
	readRunEvents,
} from "./events.js";
import { carryOver, ensureMessageTables, messageTopic, resendRecorded, sendRecorded } from "./messages.js";
import { batches, deleteRowsOfGoneRuns, ID_BATCH, runIdsAfter, runsByIds } from "./retention.js";
import { DEFAULT_AGENT_QUEUE } from "./workflow.js";

/** Options of `DbosAgentRuns.connect`. */
export interface DbosAgentRunsOptions {
	/** The PostgreSQL URL of the DBOS system database the workers use. */
	databaseUrl: string;
	/** The DBOS application name the workers launched with. */
	applicationName: string;
}

/** Where a run is: DBOS's workflow status (`PENDING`, `ENQUEUED`, `SUCCESS`, `ERROR`, `CANCELLED`, …). */
export interface DbosRunStatus {
	/** DBOS's workflow status string. */
	status: string;
	/** The executor that runs (or last ran) it. */
	executorId: string | undefined;
}

/**
 * The queue a rewound run waits on while `rewind` sends its messages again: no worker polls it. Its name ends
 * with the queue the run goes back on (`capstan-rewind-hold:<queue>`), so a `rewind` repeated after one cut
 * short still knows it.
 */
const REWIND_HOLD_QUEUE = "capstan-rewind-hold";

function holdQueue(queueName: string | undefined): string {
	return queueName === undefined ? REWIND_HOLD_QUEUE : `${REWIND_HOLD_QUEUE}:${queueName}`;
}

/** Whether a run waits on a hold queue, and then the queue it goes back on. */
function heldFor(queueName: string | undefined): { queueName: string | undefined } | undefined {
	if (queueName === REWIND_HOLD_QUEUE) return { queueName: undefined };
	if (queueName?.startsWith(`${REWIND_HOLD_QUEUE}:`))
		return { queueName: queueName.slice(REWIND_HOLD_QUEUE.length + 1) };
	return undefined;
}

/** DBOS's statuses of a run that has ended: it runs no more unless resumed or rewound. */
const ENDED = ["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"] as const;
const TERMINAL = new Set<string>(ENDED);

/** How long `result` waits between looks at a run that has not ended: DBOS's own interval for a result, in ms. */
const RESULT_POLL_MS = 1000;

/** A message for a running agent: an agent message, or text for a user message. */
export type RunMessage = AgentMessage | string;

/** Runs of durable agents on DBOS, seen from any process. */
export class DbosAgentRuns {
	readonly #client: DBOSClient;
	readonly #pool: pg.Pool;
	#closing: Promise<void> | undefined;

	private constructor(client: DBOSClient, pool: pg.Pool) {
		this.#client = client;
		this.#pool = pool;
	}

	/** Connect to the workers' database (no DBOS launch: this process runs no workflow). */
	static async connect(options: DbosAgentRunsOptions): Promise<DbosAgentRuns> {
		const pool = createEventsPool(options.databaseUrl);
		try {
			await ensureEventsTable(pool);
			await ensureMessageTables(pool);
			const client = await DBOSClient.create({
				systemDatabaseUrl: options.databaseUrl,
				applicationName: options.applicationName,
			});
			return new DbosAgentRuns(client, pool);
		} catch (error) {
			await pool.end();
			throw error;
		}
	}

	/**
	 * Enqueue a run of the agent registered as `agent`; a launched worker takes it. Resolves to the run id.
	 *
	 * With `carryOverFrom`, the new run also gets the steering and follow-ups sent to that earlier run of the
	 * conversation that it did not keep (docs/durable.md, rule 5): all of them if it ended without a transcript
	 * (cancelled with `DBOS.cancelWorkflow`, failed), those it never read if it completed. They are sent to the
	 * new run in the order they were sent, in the transaction that enqueues it, so the run reads them at its
	 * first boundaries as if they had been sent to it. A run still running is refused. The messages go to one
	 * run only: a second `start` carrying over from the same run joins the first (resolves to its id) when it
	 * gives no `runId` or the same one, and is refused with another `runId`.
	 */
	async start(
		agent: string,
		input: DurableRunInput,
		options: { runId?: string; queueName?: string; carryOverFrom?: string } = {},
	): Promise<string> {
		const queueName = options.queueName ?? DEFAULT_AGENT_QUEUE;
		if (options.carryOverFrom !== undefined)
			return carryOver(
				this.#pool,
				this.#client,
				"carryOverFrom",
				options.carryOverFrom,
				options.runId,
				async (db, runId) => {
					await this.#client.enqueueInTransaction(
						db,
						{ workflowName: agent, queueName, workflowID: runId, workflowIDReusePolicy: "reject" },
						input,
					);
				},
			);
		const handle = await this.#client.enqueue(
			{
				workflowName: agent,
				queueName,
				...(options.runId !== undefined ? { workflowID: options.runId } : {}),
			},
			input,
		);
		return handle.workflowID;
	}

	/**
	 * Queue a steering message: injected at the run's next turn boundary (rule Q2). It is recorded with the
	 * run, so a later run can carry it over (`start`'s `carryOverFrom`) and a `rewind` sends it again. Sent to a
	 * run whose messages were carried over (or while they are), it goes to the run they were carried to.
	 */
	async steer(runId: string, message: RunMessage): Promise<void> {
		return sendRecorded(this.#pool, this.#client, runId, "steer", toMessage(message, "steer"));
	}

	/**
	 * Queue a follow-up: read when the agent would otherwise stop (rule L9). Recorded with the run, and passed on
	 * to the run its messages were carried to, as a steer is.
	 */
	async followUp(runId: string, message: RunMessage): Promise<void> {
		return sendRecorded(this.#pool, this.#client, runId, "followUp", toMessage(message, "followUp"));
	}

	/**
	 * Ask the run to stop: it ends as `aborted` at its next turn boundary, with a transcript. For a hard stop
	 * that leaves no result, use DBOS's `cancelWorkflow`.
	 */
	async abort(runId: string, reason?: string): Promise<void> {
		return this.#client.send(runId, reason === undefined ? {} : { reason }, messageTopic("abort"));
	}

	/**
	 * The run's events in order, waiting for new ones, until `agent_end` (or the run ended without one, or
	 * `options.signal` fires). A run id no run has — never started, or deleted (`delete`, `deleteEnded`, DBOS's
	 * own `deleteWorkflow(s)`, a Conductor retention policy) — makes the generator throw `DbosRunNotFoundError`,
	 * at once when the run is gone before the read starts, and after the events already read when it is deleted
	 * while a reader waits. So start the run before reading its events. The run's status is looked up only when a
	 * read finds no new event.
	 */
	events(runId: string, options: RunEventsOptions = {}): AsyncGenerator<DbosRunEvent> {
		return readRunEvents(this.#pool, runId, options, async () => {
			const [run] = await runsByIds(this.#client, [runId]);
			if (!run) return "gone";
			return TERMINAL.has(run.status) ? "ended" : "running";
		});
	}

	/**
	 * The run's result, once it finished (waits, looking at the run once a second as DBOS does). A run that ended
	 * with an error rejects with that error, and one cancelled (`DBOS.cancelWorkflow`) or past its recovery attempts
	 * with DBOS's errors for them. A run id no run has — never started, or deleted (`delete`, `deleteEnded`, DBOS's
	 * own `deleteWorkflow(s)`, a Conductor retention policy) — rejects with `DbosRunNotFoundError`, at once when the
	 * run is gone before the call, and at the next look when it is deleted while the caller waits. So start the run
	 * before waiting for its result.
	 */
	result(runId: string): Promise<DurableRunResult> {
		return this.#result("result", runId);
	}

	/**
	 * The run's result as DBOS's `getResult` gives it, but from one read of the run's status and output (DBOS's
	 * `getResult` waits forever for a run it has no record of). One read, not a status check then `getResult`: a
	 * run deleted between the two would leave `getResult` waiting. An error is taken from `getResult` (`#failed`).
	 */
	async #result(what: string, runId: string): Promise<DurableRunResult> {
		for (;;) {
			const [run] = await this.#client.listWorkflows({
				workflowIDs: [runId],
				loadInput: false,
				loadOutput: true,
			});
			if (!run) throw new DbosRunNotFoundError(what, runId);
			switch (run.status) {
				case "SUCCESS":
					return run.output as DurableRunResult;
				case "ERROR":
					return await this.#failed(what, runId);
				case "CANCELLED":
					throw new DBOSErrors.DBOSAwaitedWorkflowCancelledError(runId);
				case "MAX_RECOVERY_ATTEMPTS_EXCEEDED":
					throw new DBOSErrors.DBOSAwaitedWorkflowExceededMaxRecoveryAttempts(runId);
			}
			await new Promise((resolve) => setTimeout(resolve, RESULT_POLL_MS));
		}
	}

	/**
	 * The outcome of a run seen ended with an error, from DBOS's own `getResult`, so the error is revived as DBOS
	 * revives it: `listWorkflows` gives the error of a run enqueued with portable serialization (by another
	 * language's DBOS client) as an `Error` whose message is the error's JSON, where `getResult` gives DBOS's
	 * `PortableWorkflowError` with its message, name, code and data. `getResult` reads the status and the error in
	 * one query and returns at once for a run that ended; only a run deleted in the instant after it was seen
	 * would leave it waiting, so the run is looked at once a second meanwhile, and one gone rejects with
	 * `DbosRunNotFoundError` (DBOS's poll then goes on until `close`).
	 */
	async #failed(what: string, runId: string): Promise<DurableRunResult> {
		const revived = this.#client
			.retrieveWorkflow<DurableRunResult>(runId)
			.getResult({ pollingIntervalMs: RESULT_POLL_MS });
		const settled = revived.then(
			() => true,
			() => true,
		);
		for (;;) {
			let timer: ReturnType<typeof setTimeout> | undefined;
			const later = new Promise<false>((resolve) => {
				timer = setTimeout(() => resolve(false), RESULT_POLL_MS);
			});
			const done = await Promise.race([settled, later]);
			clearTimeout(timer);
			if (done) return revived;
			const [run] = await runsByIds(this.#client, [runId]);
			if (!run) throw new DbosRunNotFoundError(what, runId);
		}
	}

	/**
	 * Resume a run that ended awaiting approval (rule T15) with a decision per pending call (rule T16), from
	 * any process: a new run continues the paused batch from the paused run's transcript and settings, on its
	 * queue. An approved call runs, a denied one gets a result the model reads; undecided calls pause again.
	 * The new run's id defaults to `<runId>:resume`, so a second `resume` of the same run — another process,
	 * a retried request — joins the first instead of running the approved tools again (different decisions
	 * are refused). The steering and follow-ups sent to the paused run that it never read go to the new run, as
	 * `start`'s `carryOverFrom` sends them, in the transaction that enqueues it; so a resume under another
	 * `runId` than the first one's is refused. Resolves to the new run's id; throws when the run is not paused
	 * or a decision names no pending call.
	 */
	async resume(
		runId: string,
		approvals: ApprovalDecisions,
		options: { runId?: string; queueName?: string } = {},
	): Promise<string> {
		const paused = await this.#client.getWorkflow(runId);
		if (!paused) throw new DbosRunNotFoundError("resume", runId);
		if (paused.status !== "SUCCESS")
			throw new Error(`resume: run "${runId}" has not ended (status ${paused.status})`);
		const result = await this.#result("resume", runId);
		if (result.outcome.type !== "awaiting_approval")
			throw new Error(`resume: run "${runId}" ended ${result.outcome.type}, not awaiting approval`);
		const settings = (paused.input?.[0] as DurableRunInput | undefined)?.settings;
		const input: DurableRunInput = {
			messages: result.messages,
			prompts: [],
			approvals,
			...(settings ? { settings } : {}),
		};
		checkDurableInput(input);
		const resumeId = options.runId ?? `${runId}:resume`;
		const queueName = options.queueName ?? paused.queueName ?? DEFAULT_AGENT_QUEUE;
		// The steering and follow-ups sent to the paused run after its last read go to the continuation with it.
		// DBOS returns the existing run for a known id (a run resumed before messages were recorded).
		const resumed = await carryOver(this.#pool, this.#client, "resume", runId, resumeId, async (db) => {
			await this.#client.enqueueInTransaction(
				db,
				{ workflowName: paused.workflowName, queueName, workflowID: resumeId },
				input,
			);
		});
		// A second resume joins the first: it must carry these decisions, not others.
		const existing = await this.#client.getWorkflow(resumed);
		const recorded = (existing?.input?.[0] as DurableRunInput | undefined)?.approvals;
		if (!sameDecisions(recorded, approvals))
			throw new Error(`resume: run "${runId}" was already resumed as "${resumeId}" with other decisions`);
		return resumed;
	}

	/**
	 * Rewind a run that ended (DBOS's `rewindWorkflow`): its steps from `startStep` on are dropped and it runs
	 * again from there, on its queue (or `queueName`). DBOS deletes the messages the run had not read and those it
	 * read at or after `startStep`; this sends the steering and follow-ups among them again, in their order,
	 * before any worker can take the run (it waits meanwhile on a queue no worker polls,
	 * `capstan-rewind-hold:<queue>`). A call that failed halfway can be repeated: it goes on from where it
	 * stopped, and the run goes back on the queue the first call chose. Data sources registered in
	 * a worker are not rewound (use `DBOS.rewindWorkflow` in-process for those, and send messages again).
	 */
	async rewind(runId: string, options: { startStep: number; queueName?: string }): Promise<void> {
		const run = await this.#client.getWorkflow(runId);
		if (!run) throw new DbosRunNotFoundError("rewind", runId);
		const held = run.status === "ENQUEUED" ? heldFor(run.queueName) : undefined;
		const queueName = options.queueName ?? (held ? held.queueName : run.queueName);
		if (!held)
			await this.#client.rewindWorkflow(runId, {
				startStep: options.startStep,
				queueName: holdQueue(queueName),
			});
		await resendRecorded(this.#pool, this.#client, runId);
		await this.#client.resumeWorkflow(runId, queueName !== undefined ? { queueName } : {});
	}

	/** The run's DBOS status, or undefined for an unknown run id. */
	async status(runId: string): Promise<DbosRunStatus | undefined> {
		const status = await this.#client.getWorkflow(runId);
		if (!status) return undefined;
		return { status: status.status, executorId: status.executorId };
	}

	/**
	 * Hand runs to the live workers: every unfinished run of `executorId` (a worker known dead), or the given
	 * run ids, goes back on its own queue (or `queueName`), and a live worker replays it from its journal.
	 * DBOS recovers a worker's runs when it restarts with the same executor id; this is for a worker that does
	 * not come back. Resolves to the run ids handed over.
	 */
	async takeOver(
		from: { executorId: string } | { runIds: string[] },
		options: { queueName?: string } = {},
	): Promise<string[]> {
		const runs =
			"runIds" in from
				? await Promise.all(
						from.runIds.map((id) => this.#client.getWorkflow(id).then((run) => ({ id, run }))),
					)
				: (await this.#client.listWorkflows({ executorId: from.executorId, status: "PENDING" })).map(
						(run) => ({
							id: run.workflowID,
							run,
						}),
					);
		if (runs.length === 0) return [];
		// Each run goes back on the queue it was started on: an agent registered with a queue of its own is
		// polled there only, and a run put on the default queue would wait forever.
		const byQueue = new Map<string, string[]>();
		for (const { id, run } of runs) {
			const queue = options.queueName ?? run?.queueName ?? DEFAULT_AGENT_QUEUE;
			const ids = byQueue.get(queue);
			if (ids) ids.push(id);
			else byQueue.set(queue, [id]);
		}
		for (const [queueName, ids] of byQueue) await this.#client.resumeWorkflows(ids, { queueName });
		return runs.map(({ id }) => id);
	}

	/**
	 * Delete ended runs: DBOS's records of them (`deleteWorkflows`, its public API) and then capstan's rows (the
	 * event log, the recorded steering and follow-ups, the record of a carry-over from them). A run that has not
	 * ended (`ENQUEUED`, `PENDING`, `DELAYED`, a `rewind` under way) is refused, and then nothing of the call is
	 * deleted: cancel it first (`DBOS.cancelWorkflow`). An unknown run id is no error, so deleting twice is
	 * harmless and a second call finishes one cut short: DBOS's records go first, and rows left by a crash between
	 * the two are rows of a run DBOS no longer has, which this call or `pruneOrphans` removes.
	 *
	 * A run continued by another (`resume`'s `<runId>:resume`, a `start` with `carryOverFrom`) is deleted alone:
	 * the continuation has its own transcript and its own copy of the messages carried to it, and is deleted by
	 * its own id. Deleting the continuation first leaves the run it continued, whose record of the carry-over
	 * stays with it: a later `resume` or carry-over from that run is refused rather than run again.
	 */
	async delete(runIds: string | string[]): Promise<void> {
		const ids = [...new Set(typeof runIds === "string" ? [runIds] : runIds)];
		const known = await runsByIds(this.#client, ids);
		const running = known.filter((run) => !TERMINAL.has(run.status));
		if (running.length > 0)
			throw new Error(
				`delete: ${running.map((run) => `run "${run.workflowID}" has not ended (status ${run.status})`).join(", ")}; nothing was deleted`,
			);
		for (const batch of batches(known.map((run) => run.workflowID)))
			await this.#client.deleteWorkflows(batch);
		for (const batch of batches(ids)) await deleteRowsOfGoneRuns(this.#pool, batch, this.#existing);
	}

	/**
	 * Delete the runs of `agent` (one workflow name or several) of this application that ended at or before
	 * `endedBefore`, the earliest started first, at most `limit` (default 500) per call, as `delete` does. Resolves to the
	 * run ids deleted; call it again until it resolves to none. A run that ended awaiting approval has ended too:
	 * keep `endedBefore` older than the longest a decision may take, or its `resume` finds no run.
	 */
	async deleteEnded(options: {
		agent: string | string[];
		endedBefore: Date;
		limit?: number;
	}): Promise<string[]> {
		const runs = await this.#client.listWorkflows({
			workflowName: options.agent,
			status: [...ENDED],
			completedBefore: options.endedBefore.toISOString(),
			limit: options.limit ?? ID_BATCH,
			loadInput: false,
			loadOutput: false,
		});
		const ids = runs.map((run) => run.workflowID);
		if (ids.length > 0) await this.delete(ids);
		return ids;
	}

	/**
	 * Remove capstan's rows of runs DBOS no longer has: deleted with DBOS's own `deleteWorkflow(s)`, by a DBOS
	 * Conductor retention policy (which deletes ended runs in the background), or left by a `delete` cut short.
	 * Rows of runs DBOS still has are kept. It reads the run ids of capstan's tables in batches of `batchSize`
	 * (default 500) and asks DBOS which exist, so it costs one lookup per batch; run it periodically, e.g. after
	 * each retention round. Resolves to the number of runs whose rows were removed.
	 */
	async pruneOrphans(options: { batchSize?: number } = {}): Promise<number> {
		const batchSize = options.batchSize ?? ID_BATCH;
		let pruned = 0;
		let after: string | undefined;
		for (;;) {
			const ids = await runIdsAfter(this.#pool, after, batchSize);
			if (ids.length === 0) return pruned;
			after = ids.at(-1);
			pruned += (await deleteRowsOfGoneRuns(this.#pool, ids, this.#existing)).length;
		}
	}

	readonly #existing = async (ids: string[]): Promise<Set<string>> =>
		new Set((await runsByIds(this.#client, ids)).map((run) => run.workflowID));

	/** Close the connections. A second call returns the first call's promise. */
	close(): Promise<void> {
		this.#closing ??= this.#close();
		return this.#closing;
	}

	async #close(): Promise<void> {
		try {
			await this.#client.destroy();
		} finally {
			await this.#pool.end();
		}
	}
}

function sameDecisions(a: ApprovalDecisions | undefined, b: ApprovalDecisions): boolean {
	if (!a) return false;
	const ids = Object.keys(b);
	if (Object.keys(a).length !== ids.length) return false;
	return ids.every((id) => {
		const [x, y] = [a[id], b[id]];
		if (!x || !y || x.approved !== y.approved) return false;
		return x.approved || y.approved || x.reason === y.reason;
	});
}

/** Messages cross processes as JSON: reject what is not a message here, where the caller can see why. */
function toMessage(message: RunMessage, what: string): AgentMessage {
	if (typeof message === "string") return userMessage(message);
	if (
		typeof message !== "object" ||
		message === null ||
		typeof (message as { role?: unknown }).role !== "string"
	)
		throw new TypeError(`${what}: expected an agent message (an object with a role) or a string`);
	return message;
}
