import type { PendingApproval } from "../tools/approval.js";

/**
 * How a run ended (rule L12): a host never has to guess from an empty message. `stoppedBy` names the
 * `beforeModelCall` gate reason when that gate ended the run (rule X6). `awaiting_approval` (rule T15): the
 * run paused on tool calls that need a person's decision; `pending` lists them, in call order.
 */
export type RunOutcome =
	| { type: "completed"; stoppedBy?: string }
	| { type: "awaiting_approval"; pending: PendingApproval[] }
	| { type: "aborted"; reason: string }
	| { type: "deadline" }
	| { type: "error"; error: string };
