/**
 * Playing a scenario (loop-scenarios.ts) as a real run with its tools, model and hooks (loop-actors.ts): the
 * Agent or the bare loop with host queues, steering, follow-ups, aborts and deadlines on fake timers;
 * everything the invariants (loop-invariants.ts) need is recorded in a `Played`.
 */
import { vi } from "vitest";
import {
	Agent,
	AgentBusyError,
	type AgentEvent,
	type AgentLoopConfig,
	type AgentMessage,
	type AgentTool,
	type AssistantMessage,
	agentLoop,
	agentLoopContinue,
	type StreamFunction,
} from "../../src/index.js";
import { abortReason, danglingReply, hooksOf, makeTool, scriptedFor } from "./loop-actors.js";
import { isAgent, isResume, type Scenario, TOOL_NAMES } from "./loop-scenarios.js";
import { user } from "./run.js";

/** Everything a property checks after a run. */
export interface Played {
	scenario: Scenario;
	events: AgentEvent[];
	/** The full transcript after the run(s). */
	transcript: readonly AgentMessage[];
	/** Every steer / follow-up actually queued (by identity), and what is still queued at the end. */
	queued: AgentMessage[];
	/** Messages queued before `Agent.reset()` or dropped by `clearQueues()`, by design. */
	dropped: AgentMessage[];
	/** SPEC Q3 violations seen by prompt()/continue() attempts during the Agent's run. */
	busyViolations: string[];
	/** The transcript the run started from (`resume`). */
	initial: readonly AgentMessage[];
	/** Queued before the first run's agent_end. */
	queuedWhileRunning: AgentMessage[];
	/** `loop` driver: messages the loop dequeued after the abort or the deadline (must stay empty). */
	lateDequeues: AgentMessage[];
	stillQueued: () => readonly AgentMessage[];
	/** Fake time (ms since start) of the stop (abort call or deadline), if it happened during the run. */
	stoppedAt: number | undefined;
	/** Fake time of `agent_end` / of the settled `result()` / `prompt()`. */
	endedAt: number | undefined;
	settledAt: number | undefined;
	/** Events seen after the run had settled (must stay empty). */
	lateEvents: AgentEvent[];
	outcomeAbortedBeforeEnd: boolean;
	/** With a stop planned at an event: how many events were recorded when the subscriber stopped the run. */
	abortedAtEvent: number | undefined;
	agent?: Agent;
	/** Each event of the first run as JSON at the moment it was received (SPEC L5). */
	snapshots: string[];
	/** Every tool execution of the first run, with the steering it saw (SPEC T10). */
	executions: Execution[];
	/** Fake time at which each tool's `execute` was called, by call id (first run). */
	executeStarts: ReadonlyMap<string, number>;
	/** Fake time at which each tool's `execute` settled (returned or threw), by call id (first run). */
	executeEnds: ReadonlyMap<string, number>;
	/** The messages of every provider request, in call order. */
	requests: () => readonly (readonly AgentMessage[])[];
	/** A second run (`Agent.continue()`) after the first one, when something was left queued. */
	second?: { events: AgentEvent[]; settled: boolean };
}

/** Fake time given to tools and providers that ignored their signal to finish after the run ended. */
const LATE_MS = 2000;

/** One tool execution as the events show it, and when steering was queued while it ran (SPEC T10). */
export interface Execution {
	toolCallId: string;
	toolName: string;
	args: Record<string, unknown>;
	startedAt: number;
	endedAt: number | undefined;
	status: string | undefined;
	/** Fake time at which a steer was queued during the execution, or its start when one was already queued. */
	steeredAt: number | undefined;
}

function trackExecution(
	event: AgentEvent,
	executions: Map<string, Execution>,
	now: number,
	steerQueued: () => boolean,
): void {
	if (event.type === "tool_execution_start") {
		executions.set(event.toolCallId, {
			toolCallId: event.toolCallId,
			toolName: event.toolName,
			args: event.args,
			startedAt: now,
			endedAt: undefined,
			status: undefined,
			steeredAt: steerQueued() ? now : undefined,
		});
	} else if (event.type === "tool_execution_end") {
		const execution = executions.get(event.toolCallId);
		if (execution) Object.assign(execution, { endedAt: now, status: event.status });
	}
}

/** How long (fake ms) a run may take at most before it counts as hanging. */
export const RUN_LIMIT_MS = 10 * 60_000;

/**
 * Advance fake time timer by timer until `done()` holds. Returns false when the run cannot settle: no timer is
 * left to fire and nothing settled (a hang), or `RUN_LIMIT_MS` passed.
 */
export async function driveUntil(done: () => boolean, limitMs = RUN_LIMIT_MS): Promise<boolean> {
	const start = Date.now();
	for (;;) {
		if (done()) return true;
		if (Date.now() - start > limitMs) return false;
		if (vi.getTimerCount() === 0) {
			// Let pending promise callbacks run: they may settle the run or start new timers.
			await vi.advanceTimersByTimeAsync(0);
			if (vi.getTimerCount() === 0) return done();
		} else await vi.advanceTimersToNextTimerAsync();
	}
}

/** A FIFO with the Agent's dequeue modes, for the `loop` driver. */
function hostQueue(
	mode: Scenario["queueMode"],
	onTake: (taken: AgentMessage[]) => void,
	asynchronous: boolean,
) {
	const items: AgentMessage[] = [];
	const listeners = new Set<() => void>();
	return {
		items,
		push(message: AgentMessage) {
			items.push(message);
			for (const listener of listeners) listener();
		},
		take(): AgentMessage[] | Promise<AgentMessage[]> {
			const taken = mode === "all" ? items.splice(0) : items.splice(0, 1);
			onTake(taken);
			// SPEC Q2: the queue callbacks may be async (a host's queue behind an await).
			return asynchronous ? Promise.resolve(taken) : taken;
		},
		subscribe(listener: () => void) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
}

/** What the run records while it goes (first run only), shared by both hosts. */
class Recorder {
	readonly t0 = Date.now();
	readonly events: AgentEvent[] = [];
	readonly lateEvents: AgentEvent[] = [];
	readonly snapshots: string[] = [];
	readonly executions = new Map<string, Execution>();
	readonly executeStarts = new Map<string, number>();
	readonly executeEnds = new Map<string, number>();
	readonly queued: AgentMessage[] = [];
	readonly queuedWhileRunning: AgentMessage[] = [];
	readonly dropped: AgentMessage[] = [];
	readonly lateDequeues: AgentMessage[] = [];
	readonly busyViolations: string[] = [];
	endedAt: number | undefined;
	settledAt: number | undefined;
	settled = false;
	abortFired = false;
	/** When an abort or reset fired (before the run settled). */
	abortedAt: number | undefined;
	abortedAtEvent: number | undefined;
	outcomeAbortedBeforeEnd = false;
	steeringQueued: () => boolean = () => false;
	/** Called with every event as it is recorded (a stop planned at an event). */
	onEvent: (event: AgentEvent) => void = () => {};
	private resumedTurnEnded = false;

	constructor(
		/** The transcript a resumed run starts from; its unanswered reply is replaced by a revised one. */
		readonly initial: AgentMessage[],
		private readonly dangling: AssistantMessage | undefined,
	) {}

	now(): number {
		return Date.now() - this.t0;
	}

	readonly record = (event: AgentEvent): void => {
		if (this.settled) this.lateEvents.push(event);
		else {
			this.events.push(event);
			this.snapshots.push(JSON.stringify(event));
		}
		trackExecution(event, this.executions, this.now(), this.steeringQueued);
		// SPEC T4, L1: arguments revised in a resumed batch cannot be written into the caller's transcript (the
		// loop never mutates it) nor into result() (the reply was not added by this run); like the Agent, a host
		// takes the revised reply from turn_end.
		if (event.type === "turn_end" && !this.resumedTurnEnded && this.dangling) {
			this.resumedTurnEnded = true;
			this.initial[this.initial.indexOf(this.dangling)] = event.message;
		}
		if (event.type === "agent_end" && this.endedAt === undefined) {
			this.endedAt = this.now();
			this.outcomeAbortedBeforeEnd = this.abortFired;
		}
		this.onEvent(event);
	};

	settle(): void {
		this.settledAt = this.now();
		this.settled = true;
	}

	/** A steer was queued: every execution still running saw it (SPEC T10). */
	noteSteer(): void {
		const now = this.now();
		for (const execution of this.executions.values())
			if (execution.endedAt === undefined) execution.steeredAt ??= now;
	}
}

/** The host side of a run: the Agent, or the bare loop with host queues. */
interface Host {
	steer(message: AgentMessage): void;
	followUp(message: AgentMessage): void;
	/** Absent with the Agent, which offers no read-only view of its aside queue. */
	aside?(message: AgentMessage): void;
	abort(reason: unknown): void;
	reset?(): void;
	stillQueued(): readonly AgentMessage[];
	clearQueues(): void;
	transcript(): readonly AgentMessage[];
	agent?: Agent;
	unsubscribe(): void;
}

/** What both hosts start a run with. */
interface RunParts {
	scenario: Scenario;
	recorder: Recorder;
	hooks: Partial<AgentLoopConfig>;
	model: AgentLoopConfig["model"];
	streamFn: StreamFunction;
	tools: AgentTool[];
	prompt: AgentMessage;
}

function startAgent({ scenario, recorder, hooks, model, streamFn, tools, prompt }: RunParts): Host {
	const agent = new Agent({
		...hooks,
		messages: recorder.initial,
		model,
		streamFn,
		tools,
		steeringMode: scenario.queueMode,
		followUpMode: scenario.queueMode,
	});
	const unsubscribe = agent.subscribe(recorder.record);
	recorder.steeringQueued = () => agent.peekSteeringQueue().length > 0;
	// SPEC Q4: continue() resumes the unanswered batch of a transcript that ends in it.
	void (scenario.driver === "agentResume" ? agent.continue() : agent.prompt(prompt)).finally(() =>
		recorder.settle(),
	);
	return {
		agent,
		steer(message) {
			agent.steer(message);
			if (agent.state.isStreaming) checkBusy(agent, recorder.busyViolations);
		},
		followUp: (message) => agent.followUp(message),
		abort: (reason) => agent.abort(reason),
		reset: () => agent.reset(),
		stillQueued: () => [...agent.peekSteeringQueue(), ...agent.peekFollowUpQueue()],
		clearQueues: () => agent.clearQueues(),
		transcript: () => agent.state.messages,
		unsubscribe: () => {
			unsubscribe();
		},
	};
}

/** SPEC Q3: while a run is active, prompt() and continue() refuse with a busy error and change nothing. */
function checkBusy(agent: Agent, violations: string[]): void {
	for (const attempt of [() => agent.prompt("sneaking in"), () => agent.continue()]) {
		attempt().then(
			() => violations.push("prompt()/continue() succeeded during a run"),
			(error: unknown) => {
				if (!(error instanceof AgentBusyError)) violations.push(String(error));
			},
		);
	}
}

function startLoop({ scenario, recorder, hooks, model, streamFn, tools, prompt }: RunParts): Host {
	// SPEC A6, A7: nothing is dequeued once the run was aborted or crossed its deadline.
	const onTake = (taken: AgentMessage[]): void => {
		const late = recorder.abortFired || (hooks.deadline !== undefined && Date.now() >= hooks.deadline);
		if (late && taken.length > 0) recorder.lateDequeues.push(...taken);
	};
	const steering = hostQueue(scenario.queueMode, onTake, scenario.asyncQueues);
	const followUps = hostQueue(scenario.queueMode, onTake, scenario.asyncQueues);
	const asides = hostQueue("all", onTake, scenario.asyncQueues);
	const controller = new AbortController();
	const config: AgentLoopConfig = {
		...hooks,
		model,
		streamFn,
		getSteeringMessages: steering.take,
		hasSteeringMessages: () => steering.items.length > 0,
		getFollowUpMessages: followUps.take,
		getAsideMessages: asides.take,
	};
	if (scenario.eventDriven) config.onSteeringQueued = steering.subscribe;
	recorder.steeringQueued = () => steering.items.length > 0;
	const { initial } = recorder;
	const stream =
		scenario.driver === "resume"
			? agentLoopContinue({ messages: initial.slice(), tools }, config, controller.signal)
			: agentLoop([prompt], { messages: [], tools }, config, controller.signal);
	let added: readonly AgentMessage[] = [];
	void (async () => {
		for await (const event of stream) recorder.record(event);
		added = await stream.result();
		recorder.settle();
	})();
	return {
		steer: steering.push,
		followUp: followUps.push,
		aside: asides.push,
		abort: (reason) => controller.abort(reason),
		stillQueued: () => [...steering.items, ...followUps.items, ...asides.items],
		clearQueues() {
			for (const queue of [steering, followUps, asides]) queue.items.length = 0;
		},
		transcript: () => [...initial, ...added],
		unsubscribe() {},
	};
}

/** Steering, follow-ups, asides, a queue clear and the stop, each at its fake time. */
function scheduleHostActions(scenario: Scenario, recorder: Recorder, host: Host): void {
	const queueAt = (at: number, message: AgentMessage, queue: (m: AgentMessage) => void): void => {
		setTimeout(() => {
			recorder.queued.push(message);
			if (recorder.endedAt === undefined) recorder.queuedWhileRunning.push(message);
			queue(message);
		}, at);
	};
	const steer = (message: AgentMessage): void => {
		host.steer(message);
		recorder.noteSteer();
	};
	for (const [i, at] of scenario.steers.entries()) queueAt(at, user(`steer ${i}`), steer);
	for (const [i, at] of scenario.followUps.entries()) queueAt(at, user(`follow-up ${i}`), host.followUp);
	const { aside } = host;
	if (aside) for (const [i, at] of scenario.asides.entries()) queueAt(at, user(`aside ${i}`), aside);
	if (scenario.clearAt !== undefined) {
		setTimeout(() => {
			recorder.dropped.push(...host.stillQueued());
			host.clearQueues();
		}, scenario.clearAt);
	}
	const stop = scenario.stop;
	if (stop.kind !== "abort" && stop.kind !== "reset") return;
	const fire = (): void => {
		if (recorder.settled || recorder.abortFired) return;
		recorder.abortFired = true;
		recorder.abortedAt = recorder.now();
		if (stop.kind === "reset") {
			// Everything queued so far is gone: dropped from the queues or from the discarded transcript.
			recorder.dropped.push(...recorder.queued);
			host.reset?.();
			return;
		}
		host.abort(abortReason(stop));
		host.abort("aborted twice"); // a second abort changes nothing
	};
	// Only the Agent hands its subscribers each event as it happens; the bare loop's reader lags behind the run,
	// so an abort from there may land after the run ended, which the outcome checks cannot tell apart.
	const trigger = host.agent ? stop.onEvent : undefined;
	if (trigger) {
		let seen = 0;
		recorder.onEvent = (event) => {
			if (event.type !== trigger.type || ++seen !== trigger.nth || recorder.abortFired) return;
			recorder.abortedAtEvent = recorder.events.length;
			fire();
		};
	}
	// `at: 0` aborts synchronously, before the run has done anything.
	if (stop.at === 0) fire();
	else setTimeout(fire, stop.at);
}

/** Run a scenario to its end on fake timers. Call with fake timers installed. */
export async function playScenario(scenario: Scenario): Promise<Played & { settled: boolean }> {
	const prompt = user("go");
	// SPEC L6, T13: a run that crashed between the reply and its results leaves this transcript behind.
	const dangling = isResume(scenario) ? danglingReply(scenario.replies[0], Date.now()) : undefined;
	const recorder = new Recorder(dangling ? [prompt, dangling] : [], dangling);
	const model = scriptedFor(scenario);
	const tools = scenario.tools.map((plan, index) =>
		makeTool(
			TOOL_NAMES[index] as string,
			plan,
			(id) => recorder.executeStarts.set(id, recorder.now()),
			(id) => recorder.executeEnds.set(id, recorder.now()),
		),
	);
	const hooks = hooksOf(scenario);
	if (scenario.stop.kind === "deadline") hooks.deadline = recorder.t0 + scenario.stop.at;
	const parts: RunParts = {
		scenario,
		recorder,
		hooks,
		model: model.scripted.model,
		streamFn: model.streamFn,
		tools,
		prompt,
	};
	const host = isAgent(scenario) ? startAgent(parts) : startLoop(parts);
	scheduleHostActions(scenario, recorder, host);

	await driveUntil(() => recorder.settled);
	const stoppedAt = scenario.stop.kind === "deadline" ? scenario.stop.at : recorder.abortedAt;
	const { endedAt } = recorder;
	const played: Played & { settled: boolean } = {
		scenario,
		events: recorder.events,
		transcript: [],
		queued: recorder.queued,
		stillQueued: () => host.stillQueued(),
		stoppedAt:
			stoppedAt !== undefined && endedAt !== undefined && stoppedAt > endedAt ? undefined : stoppedAt,
		endedAt,
		settledAt: recorder.settledAt,
		lateEvents: recorder.lateEvents,
		outcomeAbortedBeforeEnd: recorder.outcomeAbortedBeforeEnd,
		abortedAtEvent: recorder.abortedAtEvent,
		settled: recorder.settled,
		initial: recorder.initial,
		dropped: recorder.dropped,
		busyViolations: recorder.busyViolations,
		queuedWhileRunning: recorder.queuedWhileRunning,
		lateDequeues: recorder.lateDequeues,
		executions: [...recorder.executions.values()],
		snapshots: recorder.snapshots,
		executeStarts: recorder.executeStarts,
		executeEnds: recorder.executeEnds,
		requests: () => model.scripted.calls.map((call) => call.context.messages),
	};
	if (!recorder.settled) return { ...played, transcript: host.transcript() };

	// Tools and providers that ignored their signal finish now; nothing of it may reach the run (SPEC I4).
	// Steers and follow-ups timed after the end are queued now too: they must stay queued (SPEC I3).
	// (No vi.clearAllTimers() here: it also resets the fake clock, which would undo a passed deadline.)
	await vi.advanceTimersByTimeAsync(LATE_MS);
	host.unsubscribe();
	if (host.agent) {
		played.agent = host.agent;
		// SPEC Q4, I3: whatever is still queued is picked up by `continue()`; the model now only answers.
		if (host.stillQueued().length > 0) {
			model.stopReplaying();
			played.second = await continueAgent(host.agent);
		}
	}
	return { ...played, transcript: host.transcript() };
}

/** A second Agent run with `continue()`, driven to its end. */
async function continueAgent(agent: Agent): Promise<{ events: AgentEvent[]; settled: boolean }> {
	const events: AgentEvent[] = [];
	const off = agent.subscribe((event) => events.push(event));
	let done = false;
	void agent.continue().finally(() => {
		done = true;
	});
	const settled = await driveUntil(() => done);
	off();
	return { events, settled };
}
