/**
 * Random whole-run scenarios for the loop's property tests (SPEC I1–I4): what the model replies, what the
 * tools do, when steering and follow-ups are queued and when the run is aborted or crosses its deadline.
 * A scenario is plain data (fast-check prints it as the counterexample); `playScenario` (loop-play.ts) turns
 * it into a real run of `agentLoop` or `Agent` on the scripted model, driven by vitest fake timers.
 */
import fc from "fast-check";
import type { ToolCall } from "../../src/index.js";

/** What one tool call does when it runs. `hang` never settles and ignores its signal (only with a stop). */
export type ToolBehaviour = "ok" | "throw" | "syncThrow" | "garbage" | "updates" | "ignoreAbort" | "hang";

/** One tool call of a scripted reply. `tool` 0–2 names a real tool, 3 an unknown one. */
export interface CallPlan {
	tool: number;
	args: "valid" | "invalid" | "broken";
	ms: number;
	behaviour: ToolBehaviour;
}

/** How a scripted reply ends. `hang` streams its content, then never finishes (only with a stop). */
export type Ending =
	| "stop"
	| "length"
	| "pause"
	| "error"
	| "refusal"
	| "throwSync"
	| "throwAsync"
	| "noTerminal"
	| "hang"
	/** `stopReason: "stop"` even with tool calls (SPEC S1: they run all the same). */
	| "endTurn";

/** One scripted model reply. */
export interface ReplyPlan {
	text: boolean;
	calls: CallPlan[];
	ending: Ending;
	/** For `error`: content events before the error event. */
	errorAfter: number;
	delayMs: number;
	/** The provider keeps streaming (or hanging) when aborted (SPEC I4). */
	ignoreAbort: boolean;
}

/** How one of the three real tools is declared (SPEC T6, T10). */
export interface ToolPlan {
	concurrency: "default" | "shared" | "exclusive" | "byArgs" | "throws";
	interruptible: "no" | "yes" | "byArgs";
}

/** How the run is stopped from outside, if at all (SPEC A1, A7). */
export type StopPlan =
	| { kind: "none" }
	| { kind: "abort"; at: number; reason: "none" | "string" | "error"; onEvent?: EventTrigger | undefined }
	| { kind: "deadline"; at: number }
	/** `Agent.reset()` (abort, then empty transcript and queues); with the bare loop it is an abort. */
	| { kind: "reset"; at: number; onEvent?: EventTrigger | undefined };

/**
 * Stop from inside the run: the Agent's subscriber aborts (or resets) when the `nth` event of `type` arrives,
 * synchronously, while the loop is still emitting it. `at` still stops the run should that event never come,
 * and is the only stop with the bare loop (whose reader lags behind the run).
 */
export interface EventTrigger {
	type: (typeof TRIGGER_EVENTS)[number];
	nth: number;
}

const TRIGGER_EVENTS = [
	"turn_start",
	"message_start",
	"message_update",
	"message_end",
	"tool_execution_start",
	"tool_execution_update",
	"tool_execution_end",
	"turn_end",
] as const;

/** One whole run. */
export interface Scenario {
	/** `resume`: `agentLoopContinue` from a transcript whose last reply (the first of `replies`) is unanswered. */
	driver: "loop" | "agent" | "resume" | "agentResume";
	/** Not generated: set by a driver that replays the scenario through `mutateInPlace` (SPEC L5). */
	mutatingStream?: boolean;
	tools: ToolPlan[];
	replies: ReplyPlan[];
	/** Fake-time ms at which a steering / follow-up message is queued. */
	steers: number[];
	followUps: number[];
	stop: StopPlan;
	interruptMode: "immediate" | "wait";
	/** `loop` driver: offer `onSteeringQueued` (event-driven wake-up) or let the batch poll. */
	eventDriven: boolean;
	queueMode: "one-at-a-time" | "all";
	/** `beforeToolCall` takes this long (ignoring its signal) and blocks calls with `ms % 5 === 1`. */
	approveMs: number | undefined;
	/** `afterToolCall` throws for calls with `ms % 7 === 2`. */
	afterThrows: boolean;
	/** `afterToolCall` takes this long, ignoring its signal (SPEC T5, A1). */
	afterMs: number | undefined;
	/** `onTurnEnd` throws after this turn (0-based), SPEC L12. */
	turnEndThrowsAt: number | undefined;
	/** Fake-time ms at which an aside (passive notice, SPEC L10) is queued. */
	asides: number[];
	/** `transformContext` (SPEC C1): none, identity, or one that throws on the given model call (SPEC L12). */
	transform: "none" | "identity" | number;
	/** `onBeforeYield` takes this long, ignoring any abort (SPEC L11). */
	yieldMs: number | undefined;
	/** After the scripted replies, the model answers `pause_turn` forever (SPEC S3). */
	endlessPause: boolean;
	/** The stream function returns a plain async iterable instead of capstan's EventStream (SPEC A2, E3). */
	plainIterable: boolean;
	/** `beforeModelCall` stops the run before the given model call (SPEC X6). */
	gateStopsAt: number | undefined;
	/** The host drops every queued message at this fake time (`Agent.clearQueues()`, SPEC T12). */
	clearAt: number | undefined;
	/** SPEC C5: tools get a required intent field `i`, removed from the arguments at dispatch. */
	intentTracing: boolean;
	/** `loop` drivers: the host's dequeue callbacks return promises. */
	asyncQueues: boolean;
	/** SPEC X1: a soft requirement to call `alpha` (reminder once, escalation, failure after 3 forced turns). */
	softRequirement: true | undefined;
	/** A step runner (SPEC L13) that passes through, or throws before / after the given model step (SPEC L12). */
	steps: "default" | "passthrough" | { throwAt: number; when: "before" | "after" };
}

/** The real tools of every scenario; a call to index 3 names an unknown tool. */
export const TOOL_NAMES = ["alpha", "beta", "gamma"] as const;

const callArb: fc.Arbitrary<CallPlan> = fc.record({
	tool: fc.integer({ min: 0, max: 3 }),
	args: fc.constantFrom<CallPlan["args"]>("valid", "valid", "valid", "valid", "valid", "invalid", "broken"),
	ms: fc.integer({ min: 0, max: 400 }),
	behaviour: fc.oneof(
		{ weight: 6, arbitrary: fc.constant<ToolBehaviour>("ok") },
		{
			weight: 4,
			arbitrary: fc.constantFrom<ToolBehaviour>(
				"throw",
				"syncThrow",
				"garbage",
				"updates",
				"ignoreAbort",
				"hang",
			),
		},
	),
});

const replyArb: fc.Arbitrary<ReplyPlan> = fc.record({
	text: fc.boolean(),
	calls: fc.array(callArb, { maxLength: 6 }),
	ending: fc.oneof(
		{ weight: 12, arbitrary: fc.constant<Ending>("stop") },
		{
			weight: 1,
			arbitrary: fc.constantFrom<Ending>(
				"length",
				"pause",
				"error",
				"refusal",
				"throwSync",
				"throwAsync",
				"noTerminal",
				"hang",
				"endTurn",
			),
		},
	),
	errorAfter: fc.nat({ max: 12 }),
	delayMs: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 40 })),
	ignoreAbort: fc.boolean(),
});

const toolArb: fc.Arbitrary<ToolPlan> = fc.record({
	concurrency: fc.constantFrom<ToolPlan["concurrency"]>("default", "shared", "exclusive", "byArgs", "throws"),
	interruptible: fc.constantFrom<ToolPlan["interruptible"]>("no", "yes", "byArgs"),
});

const time = fc.integer({ min: 0, max: 1500 });

/** Half the time none; else the subscriber stops the run at one of its events (SPEC A1, L4 under re-entry). */
const triggerArb: fc.Arbitrary<EventTrigger | undefined> = fc.option(
	fc.record({ type: fc.constantFrom(...TRIGGER_EVENTS), nth: fc.integer({ min: 1, max: 3 }) }),
	{ nil: undefined },
);

/** Stops from outside; `none` is as likely as the two others together. */
export const stopArb: fc.Arbitrary<StopPlan> = fc.oneof(
	{ weight: 2, arbitrary: fc.constant<StopPlan>({ kind: "none" }) },
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("abort" as const),
			at: time,
			reason: fc.constantFrom("none" as const, "string" as const, "error" as const),
			onEvent: triggerArb,
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("deadline" as const), at: time }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("reset" as const), at: time, onEvent: triggerArb }) },
);

/** `undefined` most of the time; a value once in `odds` runs. */
function rarely<T>(value: fc.Arbitrary<T>, odds: number): fc.Arbitrary<T | undefined> {
	return fc.oneof({ weight: odds - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
}

/** Every knob at random. Things that never end by themselves only appear when the run has a stop. */
export function scenarioArb(stop: fc.Arbitrary<StopPlan> = stopArb): fc.Arbitrary<Scenario> {
	return fc
		.record({
			driver: fc.constantFrom<Scenario["driver"]>("loop", "agent", "agent", "resume", "agentResume"),
			tools: fc.tuple(toolArb, toolArb, toolArb),
			replies: fc.array(replyArb, { minLength: 1, maxLength: 4 }),
			steers: fc.array(time, { maxLength: 3 }),
			followUps: fc.array(time, { maxLength: 2 }),
			stop,
			interruptMode: fc.constantFrom<Scenario["interruptMode"]>("immediate", "immediate", "wait"),
			eventDriven: fc.boolean(),
			queueMode: fc.constantFrom<Scenario["queueMode"]>("one-at-a-time", "all"),
			approveMs: rarely(fc.integer({ min: 0, max: 50 }), 3),
			afterThrows: fc.boolean(),
			afterMs: rarely(fc.integer({ min: 1, max: 60 }), 3),
			turnEndThrowsAt: rarely(fc.nat({ max: 4 }), 8),
			asides: fc.array(time, { maxLength: 2 }),
			transform: fc.oneof(
				{ weight: 4, arbitrary: fc.constant("none" as const) },
				{ weight: 2, arbitrary: fc.constant("identity" as const) },
				{ weight: 1, arbitrary: fc.nat({ max: 4 }) },
			),
			yieldMs: rarely(fc.integer({ min: 0, max: 30 }), 4),
			endlessPause: fc.boolean(),
			plainIterable: fc.boolean(),
			gateStopsAt: rarely(fc.nat({ max: 4 }), 8),
			clearAt: rarely(time, 6),
			intentTracing: fc.boolean(),
			asyncQueues: fc.boolean(),
			softRequirement: rarely(fc.constant(true as const), 5),
			steps: fc.oneof(
				{ weight: 4, arbitrary: fc.constant("default" as const) },
				{ weight: 2, arbitrary: fc.constant("passthrough" as const) },
				{
					weight: 1,
					arbitrary: fc.record({
						throwAt: fc.nat({ max: 4 }),
						when: fc.constantFrom("before" as const, "after" as const),
					}),
				},
			),
		})
		.map(({ tools, ...rest }) => withoutEndlessParts({ ...rest, tools: [...tools] }));
}

/** Without a stop from outside, a hanging tool or provider would (correctly) keep the run open forever. */
function withoutEndlessParts(scenario: Scenario): Scenario {
	if (scenario.stop.kind === "reset" && !isAgent(scenario))
		return {
			...scenario,
			stop: { kind: "abort", at: scenario.stop.at, reason: "string", onEvent: scenario.stop.onEvent },
		};
	if (scenario.stop.kind !== "none") return scenario;
	return {
		...scenario,
		replies: scenario.replies.map((reply) => ({
			...reply,
			ending: reply.ending === "hang" ? "stop" : reply.ending,
			calls: reply.calls.map((call) =>
				call.behaviour === "hang" ? { ...call, behaviour: "ignoreAbort" as const } : call,
			),
		})),
	};
}

/**
 * The SPEC T6 class of a call of the scenario, mirroring `makeTool`: `none` for calls that never run
 * (unknown tool, arguments that did not parse or do not validate).
 */
export function concurrencyOf(scenario: Scenario, call: ToolCall): "shared" | "exclusive" | "none" {
	const plan = scenario.tools[TOOL_NAMES.indexOf(call.name as (typeof TOOL_NAMES)[number])];
	const { ms, b } = call.arguments as { ms?: unknown; b?: unknown };
	const valid = Number.isInteger(ms) && (ms as number) >= 0 && typeof b === "string";
	if (!plan || call.argumentsError !== undefined || !valid) return "none";
	switch (plan.concurrency) {
		case "default":
		case "shared":
			return "shared";
		case "byArgs":
			return (ms as number) % 2 === 0 ? "shared" : "exclusive";
		default:
			return "exclusive";
	}
}

/** Whether a tool of the scenario is interruptible for these arguments (SPEC T10), mirroring `makeTool`. */
export function isInterruptible(
	scenario: Scenario,
	toolName: string,
	args: Record<string, unknown>,
): boolean {
	const plan = scenario.tools[TOOL_NAMES.indexOf(toolName as (typeof TOOL_NAMES)[number])];
	if (!plan) return false;
	if (plan.interruptible === "byArgs") return typeof args.ms === "number" && args.ms % 3 === 0;
	return plan.interruptible === "yes";
}

/** Whether the scenario drives the `Agent` (else the bare loop). */
export function isAgent(scenario: Scenario): boolean {
	return scenario.driver === "agent" || scenario.driver === "agentResume";
}

/** Whether the run resumes an unanswered batch (`agentLoopContinue` / `Agent.continue()`). */
export function isResume(scenario: Scenario): boolean {
	return scenario.driver === "resume" || scenario.driver === "agentResume";
}
