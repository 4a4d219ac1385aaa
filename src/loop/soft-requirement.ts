import type { AgentMessage, ToolCall } from "../core/messages.js";
import type { ToolChoice } from "../core/model.js";
import type { SoftToolRequirement } from "../protocol/config.js";

/** rule X1: forced turns without compliance before the run fails. */
export const MAX_SOFT_TOOL_ESCALATIONS = 3;

/** What the soft gate remembers across the turns of one run. */
export interface SoftRequirementState {
	/** Requirement ids whose reminder was already injected (once per id). */
	reminded: Set<string>;
	/** Requirement ids already complied with: a requirement is met once, then the gate is silent for it. */
	satisfied: Set<string>;
	/** The requirement currently escalated to a forced `tool_choice`, and how many forced turns failed. */
	forcing: { id: string; failedForcedTurns: number } | undefined;
}

/** The gate's plan for one model call. */
export interface SoftGatePlan {
	toolChoice: ToolChoice | undefined;
	/** The requirement this turn is judged against, when the gate is active. */
	requirement: SoftToolRequirement | undefined;
	/** Reminder messages to inject before this call (first sight of the id only). */
	remind: AgentMessage[];
}

/** How a turn measured up to an active soft requirement. */
export type SoftVerdict =
	| { type: "complied" }
	/** Run none of the calls (placeholders naming the required tool) and force the next call. */
	| { type: "escalate"; skip: ToolCall[] }
	| { type: "fail"; skip: ToolCall[]; error: string };

function isSoft(choice: ToolChoice | SoftToolRequirement | undefined): choice is SoftToolRequirement {
	return typeof choice === "object" && choice !== null && "soft" in choice && choice.soft === true;
}

/**
 * Rule X1, before a call: a hard choice is used as is; a soft requirement keeps `tool_choice` on auto (or the
 * static choice) so the prompt cache is not invalidated, injects its reminder once, and forces the tool only
 * after a non-compliant turn. A requirement is met once: after a compliant turn the same id no longer gates
 * (a host that needs the tool again returns a new id). The gate stands down when a static hard choice conflicts (`none`, or another
 * forced tool).
 */
export function planSoftGate(
	choice: ToolChoice | SoftToolRequirement | undefined,
	staticChoice: ToolChoice | undefined,
	state: SoftRequirementState,
): SoftGatePlan {
	if (!isSoft(choice)) return { toolChoice: choice ?? staticChoice, requirement: undefined, remind: [] };
	const conflicts =
		staticChoice === "none" ||
		(typeof staticChoice === "object" &&
			staticChoice.type === "tool" &&
			staticChoice.name !== choice.toolName);
	if (conflicts || state.satisfied.has(choice.id))
		return { toolChoice: staticChoice, requirement: undefined, remind: [] };
	const remind = state.reminded.has(choice.id) ? [] : choice.reminder;
	if (state.forcing && state.forcing.id !== choice.id) state.forcing = undefined;
	const forced = state.forcing?.id === choice.id;
	return {
		toolChoice: forced ? { type: "tool", name: choice.toolName } : staticChoice,
		requirement: choice,
		remind,
	};
}

/** Record that the reminder of `plan` was injected. */
export function markReminded(plan: SoftGatePlan, state: SoftRequirementState): void {
	if (plan.requirement) state.reminded.add(plan.requirement.id);
}

/** A verdict and the gate memory it leaves: `applySoftJudgement` writes it. */
export interface SoftJudgement {
	verdict: SoftVerdict;
	/** The escalation after this turn. */
	forcing: SoftRequirementState["forcing"];
	/** The requirement id now met, on compliance. */
	satisfied?: string;
}

/**
 * Rule X1, after a reply: a turn complies only if it has at least one tool call and every call satisfies the
 * requirement (default: the required tool's name). Pure: the escalation it implies is in the judgement.
 */
export function judgeSoftTurn(
	requirement: SoftToolRequirement,
	calls: readonly ToolCall[],
	state: Readonly<SoftRequirementState>,
): SoftJudgement {
	const satisfies = requirement.satisfies ?? ((call: ToolCall) => call.name === requirement.toolName);
	if (calls.length > 0 && calls.every((call) => safeSatisfies(satisfies, call))) {
		return { verdict: { type: "complied" }, forcing: undefined, satisfied: requirement.id };
	}
	const skip = [...calls];
	if (state.forcing?.id !== requirement.id) {
		return { verdict: { type: "escalate", skip }, forcing: { id: requirement.id, failedForcedTurns: 0 } };
	}
	const forcing = { id: requirement.id, failedForcedTurns: state.forcing.failedForcedTurns + 1 };
	if (forcing.failedForcedTurns >= MAX_SOFT_TOOL_ESCALATIONS) {
		return {
			verdict: {
				type: "fail",
				skip,
				error: `The model did not call the required tool \`${requirement.toolName}\` (requirement "${requirement.id}") after ${MAX_SOFT_TOOL_ESCALATIONS} turns with tool_choice forced to it.`,
			},
			forcing,
		};
	}
	return { verdict: { type: "escalate", skip }, forcing };
}

/** Write a judgement into the run's gate memory. */
export function applySoftJudgement(state: SoftRequirementState, judgement: SoftJudgement): void {
	state.forcing = judgement.forcing;
	if (judgement.satisfied !== undefined) state.satisfied.add(judgement.satisfied);
}

function safeSatisfies(satisfies: (call: ToolCall) => boolean, call: ToolCall): boolean {
	try {
		return satisfies(call) === true;
	} catch {
		return false;
	}
}
