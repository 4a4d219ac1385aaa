/** The errors `capstan/dbos` throws by name. */

/**
 * No run has this id: it was never started, or it was deleted (`DbosAgentRuns.delete`, `deleteEnded`, DBOS's own
 * `deleteWorkflow(s)`, a DBOS Conductor retention policy). Thrown by `DbosAgentRuns.events`, `result`, `resume`,
 * `rewind` and `start` with `carryOverFrom`.
 */
export class DbosRunNotFoundError extends Error {
	/** Always `"DbosRunNotFoundError"`. */
	override readonly name = "DbosRunNotFoundError";
	/** The run id no run has. */
	readonly runId: string;
	constructor(what: string, runId: string) {
		super(`${what}: no run "${runId}"`);
		this.runId = runId;
	}
}
