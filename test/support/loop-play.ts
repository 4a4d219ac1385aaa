/**
 * Playing a scenario (loop-scenarios.ts) as a real run: real tools whose behaviour the call arguments choose,
 * the scripted model, host queues or the Agent's, steering, follow-ups, aborts and deadlines on fake timers;
 * everything the invariants need is recorded in a `Played`.
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
	emptyUsage,
	type StreamFunction,
	type ToolCall,
	type ToolResult,
} from "../../src/index.js";
import { type ScriptedBlock, type ScriptedReply, scriptedModel } from "../../src/testing/index.js";
import {
	type CallPlan,
	isAgent,
	isResume,
	type ReplyPlan,
	type Scenario,
	type StopPlan,
	TOOL_NAMES,
	type ToolBehaviour,
	type ToolPlan,
} from "./loop-scenarios.js";
import { user } from "./run.js";

// ---------------------------------------------------------------------------------------------------------
// Building the run

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new Error("tool aborted"));
		const onAbort = (): void => {
			clearTimeout(timer);
			reject(new Error("tool aborted"));
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

const GARBAGE: unknown[] = [
	null,
	"just a string",
	{ content: "not an array" },
	{ content: [{ type: "video", url: "x" }] },
	{ content: [], isError: true },
	[1, 2, 3],
];

function okResult(name: string, ms: number): ToolResult {
	return { content: [{ type: "text", text: `${name} done after ${ms}` }] };
}

/** A real tool whose behaviour is chosen by its arguments `{ ms, b }`. */
function makeTool(
	name: string,
	plan: ToolPlan,
	onExecute: (toolCallId: string) => void,
	onFinished: (toolCallId: string) => void,
): AgentTool<{ ms: number; b: ToolBehaviour }> {
	const tool: AgentTool<{ ms: number; b: ToolBehaviour }> = {
		name,
		description: `property-test tool ${name}`,
		parameters: {
			type: "object",
			properties: { ms: { type: "integer", minimum: 0 }, b: { type: "string" } },
			required: ["ms", "b"],
		},
		execute(id, { ms, b }, signal, onUpdate) {
			onExecute(id);
			const finished = (): void => onFinished(id);
			if (b === "syncThrow") {
				finished();
				throw new Error(`${name} threw synchronously`);
			}
			const work = (async (): Promise<ToolResult> => {
				switch (b) {
					case "hang":
						return new Promise<ToolResult>(() => {});
					case "ignoreAbort":
						await sleep(ms);
						// Reports progress even after it was abandoned: nothing of it may reach the run.
						onUpdate({ content: [{ type: "text", text: "still going" }] });
						return okResult(name, ms);
					case "throw":
						await sleep(ms, signal);
						throw new Error(`${name} failed`);
					case "garbage":
						await sleep(ms, signal);
						return GARBAGE[ms % GARBAGE.length] as ToolResult;
					case "updates":
						for (let i = 0; i < 3; i++) {
							await sleep(Math.floor(ms / 3), signal);
							onUpdate(i === 1 ? (GARBAGE[0] as ToolResult) : { content: [{ type: "text", text: `${i}` }] });
						}
						return okResult(name, ms);
					default:
						await sleep(ms, signal);
						return okResult(name, ms);
				}
			})();
			return work.finally(finished);
		},
	};
	if (plan.concurrency === "shared" || plan.concurrency === "exclusive") tool.concurrency = plan.concurrency;
	else if (plan.concurrency === "byArgs")
		tool.concurrency = (args) => (args.ms % 2 === 0 ? "shared" : "exclusive");
	else if (plan.concurrency === "throws")
		tool.concurrency = () => {
			throw new Error("resolver broke");
		};
	if (plan.interruptible === "yes") tool.interruptible = true;
	else if (plan.interruptible === "byArgs") tool.interruptible = (args) => args.ms % 3 === 0;
	return tool;
}

function toBlock(call: CallPlan): ScriptedBlock {
	const name = TOOL_NAMES[call.tool] ?? "no_such_tool";
	if (call.args === "broken") return { type: "toolCall", name, arguments: `{"ms": ${call.ms}, "b": ` };
	const ms = call.args === "invalid" ? "soon" : call.ms;
	// Some calls state an intent (SPEC C5): stripped before validation when intent tracing is on.
	const intent = call.ms % 4 === 0 ? { i: `run ${name}` } : {};
	return { type: "toolCall", name, arguments: { ...intent, ms, b: call.behaviour } };
}

/** One reply plan as the scripted model plays it. */
export function toScriptedReply(plan: ReplyPlan): ScriptedReply {
	const content: ScriptedBlock[] = plan.text ? [{ type: "text", text: "Working on it." }] : [];
	content.push(...plan.calls.map(toBlock));
	const reply: ScriptedReply = { content, ignoreAbort: plan.ignoreAbort };
	// Delayed replies stream in big chunks: every delayed event costs the fake clock one real macrotask.
	if (plan.delayMs > 0) Object.assign(reply, { delayMs: plan.delayMs, chunkSize: 64 });
	switch (plan.ending) {
		case "length":
			reply.stopReason = "length";
			break;
		case "pause":
			reply.stopDetails = { type: "pause_turn" };
			break;
		case "error":
			reply.error = { message: "provider overloaded", kind: "overloaded", afterEvents: plan.errorAfter };
			break;
		case "refusal":
			reply.stopDetails = { type: "refusal" };
			break;
		case "throwSync":
			reply.throws = "sync";
			break;
		case "throwAsync":
			reply.throws = "async";
			break;
		case "noTerminal":
			reply.endWithoutTerminal = true;
			break;
		case "endTurn":
			reply.stopReason = "stop";
			break;
		case "hang":
			reply.hang = true;
			break;
	}
	return reply;
}

/** The first reply as a committed assistant message whose calls never got results (SPEC L6). */
function danglingReply(plan: ReplyPlan | undefined, timestamp: number): AssistantMessage {
	const calls = plan?.calls.length
		? plan.calls
		: [{ tool: 0, args: "valid", ms: 0, behaviour: "ok" } as const];
	const content = calls.map((call, i): ToolCall => {
		const block = toBlock(call);
		if (block.type !== "toolCall") throw new Error("unreachable");
		const id = `resumed_${i}`;
		if (typeof block.arguments === "string")
			return {
				type: "toolCall",
				id,
				name: block.name,
				arguments: {},
				argumentsError: "Invalid JSON in tool arguments",
			};
		return { type: "toolCall", id, name: block.name, arguments: block.arguments ?? {} };
	});
	return {
		role: "assistant",
		content,
		api: "scripted",
		provider: "scripted",
		model: "scripted-model",
		usage: emptyUsage(),
		stopReason: "toolUse",
		timestamp,
	};
}

// ---------------------------------------------------------------------------------------------------------
// Playing it

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

function abortReason(stop: Extract<StopPlan, { kind: "abort" }>): unknown {
	if (stop.reason === "string") return "user pressed stop";
	if (stop.reason === "error") return new Error("host shutting down");
	return undefined;
}

function hooksOf(scenario: Scenario): Partial<AgentLoopConfig> {
	const hooks: Partial<AgentLoopConfig> = {
		interruptMode: scenario.interruptMode,
		now: Date.now,
		intentTracing: scenario.intentTracing,
	};
	const { approveMs, turnEndThrowsAt } = scenario;
	if (approveMs !== undefined) {
		// Blocks calls with `ms % 5 === 1` (SPEC T4); revises `ms % 5 === 3` to `ms + 6`, which keeps the
		// concurrency and interruptibility classes (`% 2`, `% 3`) the checks compute from the recorded arguments.
		hooks.beforeToolCall = async ({ args }) => {
			await sleep(approveMs);
			const { ms } = args as { ms: number };
			if (ms % 5 === 1) return { block: true, reason: "policy" };
			if (ms % 5 === 3) return { args: { ...args, ms: ms + 6 } };
			return undefined;
		};
	}
	const { afterThrows, afterMs } = scenario;
	if (afterThrows || afterMs !== undefined) {
		hooks.afterToolCall = async ({ args }) => {
			if (afterMs !== undefined) await sleep(afterMs);
			if (afterThrows && (args as { ms: number }).ms % 7 === 2) throw new Error("afterToolCall broke");
			return undefined;
		};
	}
	const { transform, yieldMs } = scenario;
	if (transform !== "none") {
		let calls = 0;
		hooks.transformContext = (messages) => {
			if (calls++ === transform) throw new Error("transformContext broke");
			return messages;
		};
	}
	if (yieldMs !== undefined) hooks.onBeforeYield = () => sleep(yieldMs);
	if (scenario.softRequirement) {
		hooks.getToolChoice = () => ({
			soft: true,
			id: "alpha-first",
			toolName: "alpha",
			reminder: [user("Please call alpha first.")],
		});
	}
	const { gateStopsAt } = scenario;
	if (gateStopsAt !== undefined) {
		let gates = 0;
		hooks.beforeModelCall = () => (gates++ === gateStopsAt ? { stop: true, reason: "budget" } : undefined);
	}
	const { steps } = scenario;
	if (steps !== "default") {
		let modelSteps = 0;
		hooks.runStep = async (step, fn) => {
			const failing = typeof steps === "object" && step.kind === "model" && modelSteps++ === steps.throwAt;
			if (failing && steps.when === "before") throw new Error("step runner broke before the step");
			const result = await fn();
			if (failing) throw new Error("step runner broke after the step");
			return result;
		};
	}
	if (turnEndThrowsAt !== undefined) {
		let turns = 0;
		hooks.onTurnEnd = () => {
			if (turns++ === turnEndThrowsAt) throw new Error("onTurnEnd broke");
		};
	}
	return hooks;
}

/** A FIFO with the Agent's dequeue modes, for the `loop` driver. */
function hostQueue(mode: Scenario["queueMode"], onTake: (taken: AgentMessage[]) => void) {
	const items: AgentMessage[] = [];
	const listeners = new Set<() => void>();
	return {
		items,
		push(message: AgentMessage) {
			items.push(message);
			for (const listener of listeners) listener();
		},
		take() {
			const taken = mode === "all" ? items.splice(0) : items.splice(0, 1);
			onTake(taken);
			return taken;
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
	outcomeAbortedBeforeEnd = false;
	steeringQueued: () => boolean = () => false;
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
	const steering = hostQueue(scenario.queueMode, onTake);
	const followUps = hostQueue(scenario.queueMode, onTake);
	const asides = hostQueue("all", onTake);
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
		if (recorder.settled) return;
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

/** The scripted model playing the scenario's replies, then plain answers (or pauses, SPEC S3). */
function scriptedFor(scenario: Scenario) {
	let replay = true;
	const skipped = isResume(scenario) ? 1 : 0;
	const scripted = scriptedModel(
		({ index }) => {
			const plan = replay ? scenario.replies[index + skipped] : undefined;
			if (plan) return toScriptedReply(plan);
			// SPEC S3: a backend that pauses forever still lets the run end (1 + 8 calls per stop).
			if (replay && scenario.endlessPause) return { stopDetails: { type: "pause_turn" } };
			return { content: [{ type: "text", text: "done" }] };
		},
		{ now: Date.now },
	);
	const streamFn: StreamFunction = scenario.plainIterable
		? (model, context, options) => {
				const stream = scripted.stream(model, context, options);
				const plain = { [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() };
				return plain as unknown as ReturnType<StreamFunction>;
			}
		: scripted.stream;
	return {
		scripted,
		streamFn,
		stopReplaying() {
			replay = false;
		},
	};
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
