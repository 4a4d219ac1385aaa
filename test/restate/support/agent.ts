/**
 * The scripted agent of the Restate tests, built the same way in the worker processes and in the test's own
 * uninterrupted reference run. Every model call and tool execution appends to a count file (`model <n> start`,
 * `model <n> end`, `tool <id> start`, `tool <id> end`): the file outlives a killed worker, so the test can
 * count what ran, across processes.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { abortReasonText } from "../../../src/core/abort.js";
import type { DurableAgent } from "../../../src/durable/index.js";
import type { AgentMessage, AgentTool, StreamFunction } from "../../../src/index.js";
import { type ScriptedReply, scriptedModel, textReply, toolReply } from "../../../src/testing/index.js";

/** What a worker is told (as JSON on its command line). */
export interface WorkerConfig {
	/** The Restate object name: unique per test, so parallel test files' workers never take each other's calls. */
	name: string;
	port: number;
	adminUrl: string;
	countFile: string;
	/** A tool call id: its tool hangs on the first attempt (until the test kills the worker). */
	hangAt?: string;
	/** Whether `charge` needs a person's approval (rule T14): a run then pauses before it. */
	approveCharge?: boolean;
	/**
	 * A tool call id: on the first attempt, Restate's answer to its start marker is held back until the run
	 * has failed (see worker.ts), so a cancel sent meanwhile reaches the tool while it waits for its marker.
	 */
	holdMarkerOf?: string;
	/**
	 * A journal entry's name (e.g. `model:1`): on the first attempt, Restate's answer to it is held back until
	 * the run has failed, as with `holdMarkerOf`, so a cancel sent meanwhile reaches the run in that step.
	 */
	holdResultOf?: string;
	/**
	 * A conversation whose key is `hold-<handler>-…` holds the first call of that inbox handler (`begin`,
	 * `boundary` or `end`) until the test opens the gate named by the key (see worker.ts).
	 */
	holdInboxByKey?: boolean;
	/** The conversation object's `inactivityTimeout` and `abortTimeout` (ms): short ones end a long step's attempt. */
	timeouts?: { inactivityTimeout: number; abortTimeout: number };
	/**
	 * Serve one of the agent's two objects only (default both): with the inbox in another worker, a test can
	 * kill the run's worker while the inbox goes on answering the run's calls.
	 */
	serve?: "conversation" | "inbox";
}

/** The steer text the script answers differently (steering test). */
export const STEER_TEXT = "Use the blue one instead.";
/** A prompt with this text gets a turn of two concurrent tool calls, then a text. */
export const PARALLEL_TEXT = "Do both at once.";

function parallelReply(turns: number): ScriptedReply {
	if (turns > 0) return textReply("Both done.");
	return {
		content: [
			{ type: "toolCall", name: "charge", arguments: { amount: 7 }, id: "par_1" },
			{ type: "toolCall", name: "lookup", arguments: { q: "gamma" }, id: "par_2" },
		],
	};
}

/** The follow-up text the script answers differently. */
export const FOLLOW_UP_TEXT = "And the red one?";

/** A prompt with this text gets a call of `wait_signal` (id `sig_1`), which runs until its signal fires. */
export const WAIT_SIGNAL_TEXT = "Wait until you are stopped.";
/** A prompt with this text gets a reply that never ends until its call's signal fires. */
export const HANG_MODEL_TEXT = "Think until you are stopped.";

/**
 * The script, chosen from the context rather than a call counter (a new worker process starts counting from
 * zero, but replays do not call the model): several tool turns, then a final text. Tool call ids are explicit
 * for the same reason.
 */
export function replyFor(messages: readonly AgentMessage[]): ScriptedReply {
	const turns = messages.filter((message) => message.role === "assistant").length;
	const last = messages.at(-1) as { role?: string; content?: unknown };
	const said = (text: string) => last.role === "user" && JSON.stringify(last.content).includes(text);
	if (said(STEER_TEXT)) return textReply("Switched to the blue one.");
	if (said(FOLLOW_UP_TEXT)) return textReply("The red one is sold out.");
	if (said(HANG_MODEL_TEXT)) return textReply("Thinking", { hang: true });
	if (said(WAIT_SIGNAL_TEXT)) return toolReply("wait_signal", {}, { id: "sig_1" });
	if (JSON.stringify(messages[0]).includes(PARALLEL_TEXT)) return parallelReply(turns);
	switch (turns) {
		case 0:
			return toolReply("lookup", { q: "alpha" }, { id: "call_1", text: "Looking it up." });
		case 1:
			return toolReply("charge", { amount: 5 }, { id: "call_2" });
		case 2:
			return toolReply("lookup", { q: "beta" }, { id: "call_3" });
		case 3:
			return toolReply("wait_for", { name: "gate" }, { id: "call_4" });
		default:
			return textReply("All done.");
	}
}

function note(countFile: string, line: string): void {
	appendFileSync(countFile, `${line}\n`);
}

/** Where a worker writes the events its `onEvent` saw, one `<key> <type>` line each (see worker.ts). */
export function eventsFile(countFile: string): string {
	return `${countFile}.events`;
}

/** The count file's lines. */
export function countLines(countFile: string): string[] {
	if (!existsSync(countFile)) return [];
	return readFileSync(countFile, "utf8").split("\n").filter(Boolean);
}

/**
 * The scripted model, counting each call's start, its end (when its reply is complete) and its signal firing
 * before then (`model <n> aborted: <reason>`).
 */
function countingModel(countFile: string): { model: DurableAgent["model"]; streamFn: StreamFunction } {
	const scripted = scriptedModel((call) => replyFor(call.context.messages), { now: () => 0 });
	const streamFn: StreamFunction = (model, context, options) => {
		const n = context.messages.filter((message) => message.role === "assistant").length + 1;
		note(countFile, `model ${n} start`);
		let ended = false;
		options?.signal?.addEventListener("abort", () => {
			if (!ended) note(countFile, `model ${n} aborted: ${abortReasonText(options.signal?.reason)}`);
		});
		const events = scripted.stream(model, context, options);
		void events.result().then(() => {
			ended = true;
			note(countFile, `model ${n} end`);
		});
		return events;
	};
	return { model: scripted.model, streamFn };
}

/** The gate file of a `wait_for` call: the tool waits until it exists (the test opens it). */
export function gateFile(countFile: string, name: string): string {
	return `${countFile}.${name}`;
}

function tools(config: Pick<WorkerConfig, "countFile" | "hangAt" | "approveCharge">): AgentTool[] {
	const { countFile, hangAt } = config;
	const run = async (id: string, work: () => Promise<string>) => {
		note(countFile, `tool ${id} start`);
		const crashMarker = `${countFile}.hung`;
		if (id === hangAt && !existsSync(crashMarker)) {
			writeFileSync(crashMarker, "");
			note(countFile, `tool ${id} hang`);
			await new Promise(() => {}); // the test SIGKILLs this process now
		}
		const text = await work();
		note(countFile, `tool ${id} end`);
		return { content: [{ type: "text" as const, text }] };
	};
	return [
		{
			name: "lookup",
			description: "Look a word up (a read: safe to run twice).",
			parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
			idempotent: true,
			execute: (id, args: { q: string }) => run(id, async () => `found ${args.q}`),
		},
		{
			name: "charge",
			description: "Charge the card (not idempotent).",
			...(config.approveCharge ? { needsApproval: true } : {}),
			parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
			execute: (id, args: { amount: number }) => run(id, async () => `charged ${args.amount}`),
		},
		{
			name: "wait_signal",
			description: "Run until stopped (not idempotent).",
			parameters: { type: "object", properties: {} },
			// No timer: it ends only when its signal fires, and notes that it did (`tool <id> aborted: <reason>`).
			execute: (id, _args, signal) => {
				note(countFile, `tool ${id} start`);
				return new Promise((_resolve, reject) => {
					signal.addEventListener("abort", () => {
						note(countFile, `tool ${id} aborted: ${abortReasonText(signal.reason)}`);
						reject(signal.reason);
					});
				});
			},
		},
		{
			name: "wait_for",
			description: "Wait until the test opens a gate.",
			parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
			idempotent: true,
			execute: (id, args: { name: string }, signal) =>
				run(id, async () => {
					const file = gateFile(countFile, args.name);
					// Bounded: a test that never opens the gate fails by its own timeout, not by a hung worker.
					for (let waited = 0; !existsSync(file) && waited < 30_000 && !signal.aborted; waited += 20)
						await new Promise((resolve) => setTimeout(resolve, 20));
					return `gate ${args.name} open`;
				}),
		},
	];
}

/** The agent every worker registers, and the reference run uses. */
export function testAgent(
	config: Pick<WorkerConfig, "countFile" | "hangAt" | "approveCharge">,
): DurableAgent {
	const { model, streamFn } = countingModel(config.countFile);
	return { model, streamFn, tools: tools(config), systemPrompt: "You are a test agent." };
}
