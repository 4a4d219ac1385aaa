/**
 * How a run ended (rule L12): a host never has to guess from an empty message. `stoppedBy` names the
 * `beforeModelCall` gate reason when that gate ended the run (rule X6).
 */
export type RunOutcome =
	| { type: "completed"; stoppedBy?: string }
	| { type: "aborted"; reason: string }
	| { type: "deadline" }
	| { type: "error"; error: string };
