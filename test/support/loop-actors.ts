/**
 * What a scenario (loop-scenarios.ts) becomes in a run: real tools whose behaviour the call arguments choose,
 * the scripted model, the hooks, and the unanswered reply a resumed run starts from.
 */
import {
	type AgentLoopConfig,
	type AgentTool,
	type AssistantMessage,
	emptyUsage,
	type StreamFunction,
	type ToolCall,
	type ToolResult,
} from "../../src/index.js";
import { type ScriptedBlock, type ScriptedReply, scriptedModel } from "../../src/testing/index.js";
import {
	type CallPlan,
	isResume,
	type ReplyPlan,
	type Scenario,
	type StopPlan,
	TOOL_NAMES,
	type ToolBehaviour,
	type ToolPlan,
} from "./loop-scenarios.js";
import { mutateInPlace } from "./mutating-stream.js";
import { user } from "./run.js";

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
export function makeTool(
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
export function danglingReply(plan: ReplyPlan | undefined, timestamp: number): AssistantMessage {
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

export function abortReason(stop: Extract<StopPlan, { kind: "abort" }>): unknown {
	if (stop.reason === "string") return "user pressed stop";
	if (stop.reason === "error") return new Error("host shutting down");
	return undefined;
}

export function hooksOf(scenario: Scenario): Partial<AgentLoopConfig> {
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

/** The scripted model playing the scenario's replies, then plain answers (or pauses, SPEC S3). */
export function scriptedFor(scenario: Scenario) {
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
	const plainOrOwn: StreamFunction = scenario.plainIterable
		? (model, context, options) => {
				const stream = scripted.stream(model, context, options);
				const plain = { [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() };
				return plain as unknown as ReturnType<StreamFunction>;
			}
		: scripted.stream;
	// SPEC L5: the same replies through a provider that keeps one message and mutates it in place.
	const streamFn = scenario.mutatingStream ? mutateInPlace(plainOrOwn) : plainOrOwn;
	return {
		scripted,
		streamFn,
		stopReplaying() {
			replay = false;
		},
	};
}
