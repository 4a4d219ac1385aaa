/**
 * Rule T16: restoring a paused batch through `AgentOptions` (`pendingApprovals`, `approvalDecisions`), often
 * from parsed JSON. What does not fit the transcript is refused in the constructor: resuming could never pair
 * a call that is not unanswered, and a malformed decision would fail the resumed run far from the mistake.
 */
import type { AgentMessage } from "../core/messages.js";
import { findDanglingBatch } from "../loop/pairing.js";
import { type ApprovalDecisions, isApprovalDecision, type PendingApproval } from "../tools/approval.js";
import { describeValue } from "../tools/validation-errors.js";

/** Restored approvals must name unanswered calls of the transcript's last assistant message. */
export function checkedPending(
	pending: readonly PendingApproval[],
	messages: readonly AgentMessage[],
): PendingApproval[] {
	const open = new Set(findDanglingBatch(messages)?.calls.map((call) => call.id));
	for (const approval of pending) {
		if (!open.has(approval?.toolCallId))
			throw new Error(
				`Agent: pendingApprovals names tool call ${JSON.stringify(approval?.toolCallId)}, which is not an unanswered call of the last assistant message in messages`,
			);
	}
	return pending.slice();
}

/**
 * Restored decisions must each decide one of the restored pending calls, and be a decision. Returns a copy
 * (`{}` for none), so the state never shares the caller's object.
 */
export function checkedDecisions(decisions: unknown, pending: readonly PendingApproval[]): ApprovalDecisions {
	if (decisions === undefined) return {};
	if (typeof decisions !== "object" || decisions === null || Array.isArray(decisions))
		throw new TypeError(
			`new Agent: approvalDecisions must be an object of decisions by tool call id (received ${describeValue(decisions)})`,
		);
	const open = pending.map((p) => p.toolCallId);
	for (const [id, decision] of Object.entries(decisions)) {
		if (!open.includes(id))
			throw new TypeError(
				`new Agent: approvalDecisions decides tool call ${JSON.stringify(id)}, which is not one of pendingApprovals` +
					(open.length > 0 ? ` (pending: ${open.join(", ")})` : " (none is pending)"),
			);
		if (!isApprovalDecision(decision))
			throw new TypeError(
				`new Agent: approvalDecisions[${JSON.stringify(id)}] must be { approved: true } or { approved: false, reason?: string } (received ${describeValue(decision)})`,
			);
	}
	return { ...(decisions as ApprovalDecisions) };
}

/** True when `decisions` holds a decision for every pending call: the batch can resume. */
export function decidesEvery(pending: readonly PendingApproval[], decisions: ApprovalDecisions): boolean {
	return pending.every((p) => Object.hasOwn(decisions, p.toolCallId));
}
