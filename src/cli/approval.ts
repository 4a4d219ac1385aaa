/**
 * Confirmation of mutating tool calls (`write_file`, `edit_file`, `shell`) through `beforeToolCall`
 * (rule T4). With `--yes` they run; with an approver installed (the interactive mode asks the person, RPC
 * asks its client) the answer decides; otherwise they are blocked with a reason the model can act on — it
 * says what was not done and that the user may re-run with `--yes`, so the model reports instead of retrying.
 */
import type { AgentLoopConfig } from "../protocol/config.js";
import type { ApprovalRequest, ToolApprover } from "./host.js";
import { summarizeArgs } from "./trace.js";

/** Who decides, as of now (the approver can change between calls). */
export interface ApprovalPolicy {
	autoApprove: boolean;
	approver: ToolApprover | undefined;
}

/** The reason a mutating call is blocked when nobody can be asked (the loop prefixes "blocked and not executed"). */
export function blockedWithoutYes(toolName: string): string {
	return `${toolName} changes files or runs commands, and this capstan session was started without --yes, so nobody can approve it. Tell the user what you wanted to do; they can re-run capstan with --yes to allow it.`;
}

/** The reason a mutating call is blocked when the user said no. */
export function declinedByUser(toolName: string): string {
	return `the user declined this ${toolName} call. Do not retry it unchanged: ask the user how to proceed.`;
}

/** The `beforeToolCall` hook enforcing `policy` for the tools named in `mutating`. */
export function approvalHook(
	policy: ApprovalPolicy,
	mutating: ReadonlySet<string>,
): NonNullable<AgentLoopConfig["beforeToolCall"]> {
	return async ({ toolCall, args }, signal) => {
		if (!mutating.has(toolCall.name) || policy.autoApprove) return undefined;
		const approver = policy.approver;
		if (!approver) return { block: true, reason: blockedWithoutYes(toolCall.name) };
		const request: ApprovalRequest = {
			toolCallId: toolCall.id,
			toolName: toolCall.name,
			args,
			summary: `${toolCall.name} ${summarizeArgs(args)}`.trim(),
		};
		const approved = await approver(request, signal);
		return approved ? undefined : { block: true, reason: declinedByUser(toolCall.name) };
	};
}
