/**
 * Tool approvals (rule T14–T17): a tool declares `needsApproval`; a call that needs it is parked instead of
 * run, the run ends with the parked calls as its pending approvals, and a later run — possibly in another
 * process — resumes the batch with a decision per call. Everything here is plain data so a paused run
 * survives `JSON.stringify`.
 */
import type { AgentTool } from "./types.js";

/** A tool call parked until a person decides (rule T14). Plain JSON: store it with the transcript. */
export interface PendingApproval {
	/** The parked call's id: decide it with `approve(id)` / `deny(id, reason)` (rule T16). */
	toolCallId: string;
	/** The name of the tool the call is for. */
	toolName: string;
	/** The validated arguments the call would run with (the intent field removed, rule C5). */
	args: Record<string, unknown>;
}

/** A decision on one pending approval (rule T16). A denial's `reason` reaches the model. */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/** Decisions by tool call id, as `agentLoopContinue` takes them (rule T16). */
export type ApprovalDecisions = Readonly<Record<string, ApprovalDecision>>;

/**
 * Whether a call needs approval, from its validated arguments (rule T14). A resolver that throws, or answers
 * anything but a boolean, means it does: when in doubt, ask the person.
 */
export function resolveNeedsApproval(tool: AgentTool, args: Record<string, unknown>): boolean {
	const declared = tool.needsApproval;
	if (declared === undefined || declared === false) return false;
	if (declared === true) return true;
	try {
		return declared(args) !== false;
	} catch {
		return true;
	}
}

/** Is `value` a well-formed decision? Guards decisions that arrive as parsed JSON (rule T16). */
export function isApprovalDecision(value: unknown): value is ApprovalDecision {
	if (typeof value !== "object" || value === null) return false;
	const { approved, reason } = value as { approved?: unknown; reason?: unknown };
	if (approved === true) return true;
	return approved === false && (reason === undefined || typeof reason === "string");
}
