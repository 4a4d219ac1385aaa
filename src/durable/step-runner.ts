/**
 * Rule L13 over a durable journal: every model call and tool execution becomes a journaled step, with each
 * tool's idempotency rule applied to a call that started before a crash and never reported.
 */
import { abortReasonText, errorText } from "../core/abort.js";
import type { Step, StepRunner } from "../core/step-runner.js";
import { DeadlineExceededError } from "../loop/signals.js";
import type { AgentTool, InterruptedToolPolicy, ToolResult } from "../tools/types.js";
import { DurableClock } from "./clock.js";
import type { DurableJournal } from "./journal.js";

/** The text a non-idempotent tool call gets by default when a crash interrupted it before it reported. */
export const INTERRUPTED_TOOL_TEXT =
	"This tool call was interrupted by a crash before it reported; not re-run. Its side effects may or may not have happened: check before retrying.";

/** `details` of the default result of an interrupted, not re-run tool call. */
export interface InterruptedToolDetails {
	/** The call was cut off by a crash. */
	interrupted: true;
	/** Whether its side effect happened is not known. */
	executed: "unknown";
}

/** The run's abort controller and deadline, owned by the durable run so an abort can be journaled. */
export interface DurableRunControl {
	/** The controller whose signal is the run's (passed to `agentLoop`). */
	controller: AbortController;
	/** Epoch ms; armed (by wall clock) only while a step runs live, checked by the journaled clock elsewhere. */
	deadline?: number;
}

/** Options of `durableStepRunner`. */
export interface DurableStepOptions {
	/** The run's tools, for their `idempotent` and `onInterrupted` declarations. */
	tools: readonly AgentTool[];
	/** The run's journaled clock, advanced by every step record. Default: a clock starting at 0. */
	clock?: DurableClock;
	/** Default `onInterrupted` for tools that declare none. Default `"report"`. */
	onInterrupted?: InterruptedToolPolicy;
	/** When set, an abort or deadline that fires during a step is journaled with it and re-fired on replay. */
	control?: DurableRunControl;
	/** The wall clock for step completion times. Default `Date.now`. */
	wallClock?: () => number;
	/**
	 * Called once, with the first error the journal itself threw (see `DurableSteps.engineFailure`). The step
	 * that met it rejects with that error too, but the loop closes a failed step as data (a tool error
	 * result, an error reply), so the host must stop the run and fail the workflow with this error instead.
	 */
	onEngineFailure?: (error: unknown) => void;
	/**
	 * The engine's end of the attempt (`DurableEngine.attemptEnded`). Once it fired, a step does not start,
	 * and one that was running records nothing: its journaled call throws the signal's reason (the engine's
	 * error) instead of a result that says it was aborted, so the step is left as a crash leaves it.
	 */
	attemptEnded?: AbortSignal;
}

/** What the journal records for one step: a JSON result or an error text, when it settled, and any abort. */
interface StepRecord {
	value?: unknown;
	error?: string;
	at: number;
	abort?: { deadline: boolean; reason: string };
}

/**
 * The steps of one durable run. `runStep` is the loop's step runner; `idle()` waits for steps still running
 * after the loop stopped waiting for them (a tool that outlived an abort), so their records land before the
 * workflow ends.
 *
 * A step's own failure (its tool or model call threw) is journaled as the step's result. An error thrown by
 * the journal call itself (the engine lost its database, cancelled the workflow, refused a write) is an engine
 * failure: the step rejects with that error, untouched, nothing about it is journaled, and it is reported
 * through `onEngineFailure` and `engineFailure`, so the host fails the attempt and the engine can retry it.
 */
export class DurableSteps {
	/** The run's journaled clock, advanced by every step record (pass `() => clock.now()` as the loop's `now`). */
	readonly clock: DurableClock;
	readonly #journal: DurableJournal;
	readonly #options: DurableStepOptions;
	readonly #inFlight = new Set<Promise<unknown>>();
	readonly #wall: () => number;
	/** Every journal name this run used: a step id the model repeats in a later turn gets a name of its own. */
	readonly #names = new Set<string>();
	/** Journal reads whose outcome (a record, or a live run) is not known yet. */
	#reading = 0;
	#quietWaiters: (() => void)[] = [];
	#engineFailure: { error: unknown } | undefined;

	constructor(journal: DurableJournal, options: DurableStepOptions) {
		this.#journal = journal;
		this.#options = options;
		this.clock = options.clock ?? new DurableClock(0);
		this.#wall = options.wallClock ?? Date.now;
	}

	/** The loop's step runner (rule L13). */
	readonly runStep: StepRunner = <T>(step: Step, fn: () => Promise<T>): Promise<T> => {
		const name = this.#nameOf(step.id);
		return this.#track(step.kind === "tool" ? this.#runTool(step, name, fn) : this.#record(name, fn));
	};

	/** Count `pending` as running until it settles (`idle`). */
	#track<T>(pending: Promise<T>): Promise<T> {
		this.#inFlight.add(pending);
		void pending.then(
			() => this.#inFlight.delete(pending),
			() => this.#inFlight.delete(pending),
		);
		return pending;
	}

	/**
	 * The first error the journal itself threw during this run, if one did: an engine failure, not a step's
	 * own. The run must not go on from it (the loop has closed the step as an error); fail the workflow with it.
	 */
	get engineFailure(): { error: unknown } | undefined {
		return this.#engineFailure;
	}

	/** Resolves once no step is running. */
	async idle(): Promise<void> {
		while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
	}

	/**
	 * The journal name of a step: its id, unless an earlier step of the run already used that name — a tool
	 * call id is the model's, and servers that send none get generated ones (`call_0`, `<tool>_0`) that repeat
	 * every turn. A repeat is named `<id>#<n>` (2, 3, …): steps run in the same order on every attempt, so a
	 * replay gives each the same name, and a journal never hands one call another call's record.
	 */
	#nameOf(id: string): string {
		let name = id;
		for (let n = 2; this.#names.has(name) || this.#names.has(`${name}:started`); n++) name = `${id}#${n}`;
		this.#names.add(name);
		this.#names.add(`${name}:started`);
		return name;
	}

	/**
	 * A non-idempotent tool journals a `<id>:started` marker before it runs. If a replay finds the marker
	 * recorded but must still compute the result, the call started in an earlier attempt and never reported.
	 * Both journal calls are made in the same tick: engines that number steps by call order (DBOS) then give
	 * concurrent tools the same numbers on every attempt, whatever order their markers are recorded in.
	 */
	#runTool<T>(step: Step, name: string, fn: () => Promise<T>): Promise<T> {
		const tool = this.#options.tools.find((candidate) => candidate.name === step.name);
		if (tool?.idempotent === true) return this.#record(name, fn);
		let fresh = false;
		// Settled as a value: a replay that finds the result recorded never waits for the marker.
		const started = this.#journal
			.run(`${name}:started`, async () => {
				fresh = true;
				return true;
			})
			.then(
				() => undefined,
				(error: unknown) => {
					this.#engineFailed(error);
					return { error };
				},
			);
		return this.#record(
			name,
			() => (fresh ? fn() : this.#interrupted(step, tool, fn)),
			async () => {
				const failure = await started;
				// The marker was not written: the tool must not run, and its step must not record an error result.
				if (failure) throw failure.error;
			},
		);
	}

	async #interrupted<T>(step: Step, tool: AgentTool | undefined, fn: () => Promise<T>): Promise<T> {
		const policy = tool?.onInterrupted ?? this.#options.onInterrupted ?? "report";
		if (policy === "rerun") return fn();
		const decided =
			policy === "report" ? "report" : await policy({ toolCallId: step.id, toolName: step.name });
		if (decided === "rerun") return fn();
		if (decided === "report") {
			const details: InterruptedToolDetails = { interrupted: true, executed: "unknown" };
			const result: ToolResult<InterruptedToolDetails> = {
				content: [{ type: "text", text: INTERRUPTED_TOOL_TEXT }],
				details,
				isError: true,
			};
			return result as T;
		}
		return decided as T;
	}

	/**
	 * Journal one step: the result is JSON on the first attempt too, so live and replayed runs see equal data.
	 * The step's own errors become its record inside the journaled call; whatever the journal call throws is
	 * the engine's (so is `gate`'s, which runs first inside the call: a non-idempotent tool's start marker).
	 */
	async #record<T>(name: string, fn: () => Promise<T>, gate?: () => Promise<void>): Promise<T> {
		let live = false;
		this.#reading++;
		let record: StepRecord;
		try {
			record = await this.#journal.run<StepRecord>(name, () => {
				live = true;
				this.#readSettled();
				// Tracked on its own: an engine may settle the journal call before the body (Restate's, when the
				// attempt ended), and the run must still wait for the body it aborted.
				return this.#track(this.#liveBody(fn, gate));
			});
		} catch (error) {
			this.#engineFailed(error);
			throw error;
		} finally {
			if (!live) this.#readSettled();
		}
		this.clock.observe(record.at);
		if (!live) await this.#replayAbort(record);
		if (record.error !== undefined) throw new Error(record.error);
		return record.value as T;
	}

	/** A step's journaled body: its gate, then the step; nothing to record once the engine ended the attempt. */
	async #liveBody<T>(fn: () => Promise<T>, gate?: () => Promise<void>): Promise<StepRecord> {
		this.#throwIfAttemptEnded();
		if (gate) await gate();
		this.#throwIfAttemptEnded();
		const record = await this.#live(fn);
		this.#throwIfAttemptEnded();
		return record;
	}

	#throwIfAttemptEnded(): void {
		const ended = this.#options.attemptEnded;
		if (ended?.aborted) throw ended.reason;
	}

	async #live<T>(fn: () => Promise<T>): Promise<StepRecord> {
		const disarm = this.#armDeadline();
		let record: StepRecord;
		try {
			const value = await fn();
			record = { value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)), at: 0 };
		} catch (error) {
			record = { error: errorText(error), at: 0 };
		} finally {
			disarm();
		}
		record.at = this.#wall();
		const signal = this.#options.control?.controller.signal;
		if (signal?.aborted) {
			const deadline = signal.reason instanceof DeadlineExceededError;
			record.abort = { deadline, reason: abortReasonText(signal.reason) };
		}
		return record;
	}

	/** The deadline interrupts a live step by wall clock; the abort is then journaled with the step. */
	#armDeadline(): () => void {
		const control = this.#options.control;
		if (control?.deadline === undefined || control.controller.signal.aborted) return () => {};
		const remaining = control.deadline - this.#wall();
		const fire = () => control.controller.abort(new DeadlineExceededError());
		if (remaining <= 0) {
			fire();
			return () => {};
		}
		const timer = setTimeout(fire, remaining);
		return () => clearTimeout(timer);
	}

	/**
	 * A replayed step that was cut short by an abort re-fires it, so the loop takes the recorded path. Not at
	 * once: a replay reads the records of concurrent steps in call order (or as the engine answers), while the
	 * abort fired after every step whose record carries none had reported. So it fires once no other step is
	 * still waiting for its record and the records read so far have reached the loop; a call that finished
	 * before the deadline then keeps its result on replay, as it did live.
	 */
	async #replayAbort(record: StepRecord): Promise<void> {
		const controller = this.#options.control?.controller;
		if (!record.abort || !controller || controller.signal.aborted) return;
		await this.#quiet();
		if (controller.signal.aborted) return;
		controller.abort(record.abort.deadline ? new DeadlineExceededError() : record.abort.reason);
	}

	/** The journal itself failed: remember the first such error and report it once. */
	#engineFailed(error: unknown): void {
		if (this.#engineFailure) return;
		this.#engineFailure = { error };
		this.#options.onEngineFailure?.(error);
	}

	/** One journal read fewer in flight (its record came back, or its step started running live). */
	#readSettled(): void {
		this.#reading--;
		if (this.#reading > 0) return;
		const waiters = this.#quietWaiters;
		this.#quietWaiters = [];
		for (const wake of waiters) wake();
	}

	/**
	 * Resolves when no journal read is in flight and the loop has taken what the reads returned: the records'
	 * callers continue in microtasks, so one macrotask after the last read lets them settle their calls.
	 */
	async #quiet(): Promise<void> {
		for (;;) {
			while (this.#reading > 0) await new Promise<void>((resolve) => this.#quietWaiters.push(resolve));
			await new Promise<void>((resolve) => setImmediate(resolve));
			if (this.#reading === 0) return;
		}
	}
}

/**
 * A step runner (rule L13) over a durable journal: model calls and tool executions are journaled steps named
 * by their step ids; a non-idempotent tool interrupted by a crash follows its `onInterrupted` rule.
 */
export function durableStepRunner(journal: DurableJournal, options: DurableStepOptions): StepRunner {
	return new DurableSteps(journal, options).runStep;
}
