/**
 * The worker side of `capstan/dbos`: a DBOS workflow whose body is the durable core's `runDurableAgent`.
 * Every model call and tool execution is a DBOS step named by its step id; the queues are DBOS messages.
 */
import { DBOS, Error as DBOSErrors, DBOSWorkflowConflictError } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import { errorText } from "../core/abort.js";
import {
	type DurableAgent,
	type DurableInbox,
	type DurableJournal,
	type DurableRunInput,
	type DurableRunResult,
	runDurableAgent,
} from "../durable/index.js";
import { createEventsPool, ensureEventsTable, RunEventWriter } from "./events.js";
import { messageTopic, openEnvelopes } from "./messages.js";

/** The queue runs are enqueued on (and taken over through) unless an agent names its own. */
export const DEFAULT_AGENT_QUEUE = "capstan-agents";

/** Options of `registerDbosAgent`. */
export interface DbosAgentOptions {
	/** The workflow's name: the same in every worker and in every client that starts runs of it. */
	name: string;
	/**
	 * The agent, built once per workflow execution (a replay gets a fresh one, like a fresh process). Its
	 * hooks must be deterministic (docs/durable.md).
	 */
	agent: () => DurableAgent;
	/** The DBOS queue its runs go on. Default `capstan-agents`. */
	queueName?: string;
	/** How often workers poll that queue, in ms (DBOS's default is 1000). The first registration sets it. */
	queuePollingMs?: number;
}

/** A registered durable agent: start runs of it from a launched worker. */
export interface DbosAgentWorkflow {
	/** The workflow name (what `DbosAgentRuns.start` takes). */
	readonly name: string;
	/** The DBOS queue its runs go on. */
	readonly queueName: string;
	/** Enqueue a run on the agent's queue (any launched worker may take it); resolves to the run id. */
	start(input: DurableRunInput, options?: { runId?: string }): Promise<string>;
	/** Run it in this worker, durably, and wait for its result (no queue; recovery still applies). */
	run(input: DurableRunInput, options?: { runId?: string }): Promise<DurableRunResult>;
}

/** The events pool of this worker process, opened by `launchDbosWorker`. */
let eventsPool: pg.Pool | undefined;

/**
 * Register a durable agent as a DBOS workflow. Call it in every worker before `launchDbosWorker` (DBOS
 * recovers and dequeues only workflows registered before launch).
 */
export function registerDbosAgent(options: DbosAgentOptions): DbosAgentWorkflow {
	const queueName = options.queueName ?? DEFAULT_AGENT_QUEUE;
	const body = async (input: DurableRunInput): Promise<DurableRunResult> => {
		const runId = DBOS.workflowID;
		if (!eventsPool || runId === undefined)
			throw new Error("capstan/dbos: start the worker with launchDbosWorker before running agents");
		const events = new RunEventWriter(eventsPool, runId);
		let result: DurableRunResult;
		try {
			result = await runDurableAgent(options.agent(), input, {
				journal: dbosJournal,
				inbox: dbosInbox,
				onEvent: (event, position) => events.push(event, position),
			});
		} catch (error) {
			await flushBeforeFailing(events, error);
			throw error;
		}
		await events.flush();
		return result;
	};
	const workflow = DBOS.registerWorkflow(body, { name: options.name });
	if (!queues.has(queueName))
		queues.set(
			queueName,
			options.queuePollingMs === undefined ? {} : { minPollingIntervalMs: options.queuePollingMs },
		);
	return {
		name: options.name,
		queueName,
		async start(input, startOptions = {}) {
			const handle = await DBOS.startWorkflow(workflow, {
				queueName,
				...(startOptions.runId !== undefined ? { workflowID: startOptions.runId } : {}),
			})(input);
			return handle.workflowID;
		},
		async run(input, runOptions = {}) {
			const params = runOptions.runId !== undefined ? { workflowID: runOptions.runId } : {};
			return (await DBOS.startWorkflow(workflow, params)(input)).getResult();
		},
	};
}

/**
 * A failed run still writes the events it emitted before failing, and before the workflow's ERROR status:
 * a reader stops once the run has finished, so a row written after that is never read. Resolves when the
 * body is to reject with the run's error itself. A write failure that is not the run's own error is reported
 * with it (rejects with an `AggregateError` of both), except beside a cancel or a lost lease
 * (`isDbosControlError`): DBOS tells those by class and parks the attempt instead of recording an outcome, so
 * they must leave as themselves, and the write failure goes to DBOS's log. Nothing a reader needs is lost:
 * the run's outcome is then the cancel's or the new owner's, and the replay of a resumed or taken-over run
 * writes the same rows again.
 */
export async function flushBeforeFailing(events: RunEventWriter, error: unknown): Promise<void> {
	try {
		await events.flush();
	} catch (writeError) {
		if (writeError === error) return;
		if (isDbosControlError(error)) {
			DBOS.logger.warn(`${errorText(writeError)} (the run ended with: ${errorText(error)})`);
			return;
		}
		throw new AggregateError(
			[error, writeError],
			`${errorText(error)}; and the run's events were not all written: ${errorText(writeError)}`,
		);
	}
}

/** DBOS's errors it parks an attempt on rather than recording them: the workflow was cancelled, or lost. */
function isDbosControlError(error: unknown): boolean {
	return error instanceof DBOSErrors.DBOSWorkflowCancelledError || error instanceof DBOSWorkflowConflictError;
}

/** The queues of the registered agents, with their DBOS queue options. */
const queues = new Map<string, { minPollingIntervalMs?: number }>();

/**
 * Every step is a DBOS step named by its step id; DBOS numbers steps by call order, checked on replay.
 *
 * The core's `fn` throws only to pass an engine failure on (a tool whose start marker could not be written),
 * and such an error must not become the step's record (`DurableJournal`). DBOS records whatever a step throws
 * unless the workflow was cancelled or the error is a `DBOSWorkflowConflictError` (a lost lease, on which it
 * neither retries nor records), so the error crosses `DBOS.runStep` as one of those and comes out as itself:
 * the step stays unrecorded, and a replay runs the tool as if it never started instead of failing forever.
 * DBOS passes that error through `runStep` from 5.2 on (5.0 and 5.1 record it), hence the peer range ^5.3.0,
 * the version the tests run.
 */
const dbosJournal: DurableJournal = {
	async run(name, fn) {
		try {
			return await DBOS.runStep(
				async () => {
					try {
						return await fn();
					} catch (error) {
						throw new UnrecordedStepError(error);
					}
				},
				{ name },
			);
		} catch (error) {
			if (error instanceof UnrecordedStepError) throw error.passed;
			throw error;
		}
	},
};

/** Carries an error a step passes on through `DBOS.runStep` without DBOS recording it as the step's result. */
class UnrecordedStepError extends DBOSWorkflowConflictError {
	readonly passed: unknown;

	constructor(passed: unknown) {
		super(DBOS.workflowID ?? "");
		this.passed = passed;
	}
}

/**
 * `DBOS.recv` is checkpointed by DBOS itself: a replay receives what the first attempt received. What a
 * boundary read comes out of its envelopes (`DbosAgentRuns` sends each message with an id and a position) in
 * the order the messages were sent.
 */
const dbosInbox: DurableInbox = {
	async take(topic) {
		const received: unknown[] = [];
		for (;;) {
			const message = await DBOS.recv<unknown>(messageTopic(topic), 0);
			if (message === null) return openEnvelopes(received);
			received.push(message);
		}
	},
};

/** Options of `launchDbosWorker`. */
export interface DbosWorkerOptions {
	/** The DBOS application name, the same for every worker and client of these agents. */
	applicationName: string;
	/** The PostgreSQL URL of the DBOS system database (the events table lives there too). */
	databaseUrl: string;
	/** This worker's executor id. Default: DBOS's (`DBOS__VMID`, else a random id). */
	executorId?: string;
	/** DBOS log level. Default `warn` (DBOS logs every step at `info`). */
	logLevel?: string;
}

/** A launched worker. */
export interface DbosWorker {
	/** The DBOS executor id this worker runs under (what `DbosAgentRuns.takeOver` names when it dies). */
	readonly executorId: string;
	/** Stop taking work and close the connections. A second call returns the first call's promise. */
	shutdown(): Promise<void>;
}

/**
 * Configure and launch DBOS in this process, as a worker for every agent registered so far: it runs the
 * runs enqueued on their queues, recovers its own pending runs, and takes over runs resumed by a client.
 */
export async function launchDbosWorker(options: DbosWorkerOptions): Promise<DbosWorker> {
	if (eventsPool) throw new Error("capstan/dbos: this process already launched a worker");
	const pool = createEventsPool(options.databaseUrl);
	// Claimed before the first await: a second launch while this one is under way is refused too.
	eventsPool = pool;
	let dbosStarted = false;
	try {
		await ensureEventsTable(pool);
		await migrateOnce(pool, options.databaseUrl);
		DBOS.setConfig({
			name: options.applicationName,
			systemDatabaseUrl: options.databaseUrl,
			...(options.executorId !== undefined ? { executorID: options.executorId } : {}),
			logLevel: options.logLevel ?? "warn",
		});
		dbosStarted = true;
		await DBOS.launch();
		for (const [queue, queueOptions] of queues) await DBOS.registerQueue(queue, queueOptions);
	} catch (error) {
		// Undo the launch: a DBOS left launched keeps polling and recovering with no worker to show for it,
		// and every later launch in this process would be refused as a second one.
		if (dbosStarted) await DBOS.shutdown().catch(() => {});
		eventsPool = undefined;
		await pool.end().catch(() => {});
		throw error;
	}
	// Once only: a second call must not shut down a worker launched after this one, nor end the pool twice.
	let stopping: Promise<void> | undefined;
	const stop = async () => {
		try {
			await DBOS.shutdown();
		} finally {
			eventsPool = undefined;
			await pool.end();
		}
	};
	return {
		executorId: DBOS.executorID,
		shutdown: () => {
			stopping ??= stop();
			return stopping;
		},
	};
}

/**
 * DBOS migrates its system database at launch; workers launching at once on a fresh database deadlock in
 * those migrations. One session lock makes them take turns; after the first, the migration is a no-op.
 */
async function migrateOnce(pool: pg.Pool, databaseUrl: string): Promise<void> {
	const client = await pool.connect();
	try {
		await client.query("SELECT pg_advisory_lock(hashtext('capstan.dbos.migrate'))");
		try {
			await DBOS.migrate(databaseUrl);
		} finally {
			await client.query("SELECT pg_advisory_unlock(hashtext('capstan.dbos.migrate'))");
		}
	} finally {
		client.release();
	}
}
