/**
 * Confirmation of mutating tool calls (`write_file`, `edit_file`, `shell`, MCP tools without `readOnlyHint`)
 * through tool approvals (rule T14–T17). The command marks those tools `needsApproval` unless `--yes`; a run
 * that reaches one pauses, and the {@link ApprovalDesk} asks whoever can answer — the person at the TTY, the
 * RPC client — then approves or denies, which resumes the batch. With nobody to ask the call is denied with
 * a reason the model can act on: it says what was not done and that the user may re-run with `--yes`, so the
 * model reports instead of retrying.
 */
import type { Agent } from "../agent/agent.js";
import type { ApprovalDecision, PendingApproval } from "../tools/approval.js";
import type { AgentTool } from "../tools/types.js";
import type { ApprovalRequest, ToolApprover } from "./host.js";
import { summarizeArgs } from "./trace.js";

/** Who decides, as of now (the approver can change between calls). */
export interface ApprovalPolicy {
	autoApprove: boolean;
	approver: ToolApprover | undefined;
}

/** The reason a mutating call is denied when nobody can be asked. */
export function blockedWithoutYes(toolName: string): string {
	return `${toolName} changes files or runs commands, and this capstan session was started without --yes, so nobody can approve it. Tell the user what you wanted to do; they can re-run capstan with --yes to allow it.`;
}

/** The reason a mutating call is denied when the user said no. */
export function declinedByUser(toolName: string): string {
	return `the user declined this ${toolName} call. Do not retry it unchanged: ask the user how to proceed.`;
}

/** `tool`, asking for approval before every call unless the policy auto-approves (`--yes`) by then. */
export function askBeforeRunning<T extends AgentTool>(tool: T, policy: ApprovalPolicy): T {
	return { ...tool, needsApproval: () => !policy.autoApprove };
}

/**
 * Answers the approvals a run pauses on (rule T15): asks the policy's approver about every pending call not
 * decided yet (the TTY shows them one at a time) — a call the host decided already, from a subscriber of the
 * paused run's `agent_end` say, is not asked about — then records each answer with `approve` / `deny`; the
 * last one resumes the batch (rule T16). A decision the host records while the question is open stands: the
 * answer to it is dropped. A run that starts meanwhile — an abort of the paused run (rule T17) — withdraws
 * the questions still open.
 */
export class ApprovalDesk {
	private settling: Promise<void> = Promise.resolve();
	private asking: AbortController | undefined;

	constructor(
		private readonly agent: Agent,
		private readonly policy: ApprovalPolicy,
	) {
		agent.subscribe((event) => {
			if (event.type === "agent_start") this.asking?.abort("a new run started");
			if (event.type === "agent_end" && event.outcome.type === "awaiting_approval") {
				const { pending } = event.outcome;
				this.settling = this.settling.then(() => this.decide(pending));
			}
		});
	}

	/** Resolves once no run is active and no approval is being asked or applied. */
	async idle(): Promise<void> {
		for (;;) {
			const settling = this.settling;
			await this.agent.waitForIdle();
			await settling;
			if (settling === this.settling && !this.agent.state.isStreaming) return;
		}
	}

	private async decide(paused: readonly PendingApproval[]): Promise<void> {
		// Asked at once (an answer is accepted from the paused run's agent_end on, rule Q8), about the calls still
		// undecided: a subscriber there may have decided some itself, or started a run (an abort, rule T17) that
		// settled them all. Nobody is asked about those.
		const pending = paused.filter(({ toolCallId }) => this.undecided(toolCallId));
		if (pending.length === 0) return;
		const asking = new AbortController();
		this.asking = asking;
		const decisions = await Promise.all(pending.map((approval) => this.ask(approval, asking.signal)));
		if (this.asking === asking) this.asking = undefined;
		if (asking.signal.aborted) return;
		for (const [index, { toolCallId }] of pending.entries()) {
			const decision = decisions[index];
			// An abort or /clear meanwhile already settled the paused run: nothing is left to decide.
			if (!decision || !this.awaits(toolCallId)) return;
			// The host decided this call while the question was open: its decision stands.
			if (!this.undecided(toolCallId)) continue;
			try {
				if (decision.approved) await this.agent.approve(toolCallId);
				else await this.agent.deny(toolCallId, decision.reason);
			} catch {
				// The agent refused the decision (a run started meanwhile); that run's events tell the story.
				return;
			}
		}
	}

	private awaits(toolCallId: string): boolean {
		return this.agent.state.pendingApprovals.some((p) => p.toolCallId === toolCallId);
	}

	/** Awaiting approval, and no decision recorded for it yet (rule T16). */
	private undecided(toolCallId: string): boolean {
		return this.awaits(toolCallId) && !Object.hasOwn(this.agent.state.approvalDecisions, toolCallId);
	}

	private async ask(approval: PendingApproval, signal: AbortSignal): Promise<ApprovalDecision> {
		const { toolCallId, toolName, args } = approval;
		if (this.policy.autoApprove) return { approved: true };
		const approver = this.policy.approver;
		if (!approver) return { approved: false, reason: blockedWithoutYes(toolName) };
		const request: ApprovalRequest = {
			toolCallId,
			toolName,
			args,
			summary: `${toolName} ${summarizeArgs(args)}`.trim(),
		};
		const approved = await approver(request, signal).catch(() => false);
		return approved ? { approved: true } : { approved: false, reason: declinedByUser(toolName) };
	}
}
