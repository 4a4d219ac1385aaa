/**
 * Rule L13: every model call and every tool execution passes through one replaceable step runner, so a
 * durable-execution engine can record step results and replay a crashed run without redoing finished work.
 */

/** Identifies one step of a run. `id` is stable across replays (the tool call id, or `model:<n>`). */
export interface Step {
	/** A model call or a tool execution. */
	kind: "model" | "tool";
	/** `model:<n>` for a model call (`n` counts the run's calls from 0), the tool call id for a tool. */
	id: string;
	/** The model id, or the tool's name. */
	name: string;
}

/** Runs (or replays) one step. The default simply calls `fn`. */
export type StepRunner = <T>(step: Step, fn: () => Promise<T>) => Promise<T>;

/** The default step runner: just call the step. */
export const runStepDirectly: StepRunner = (_step, fn) => fn();
