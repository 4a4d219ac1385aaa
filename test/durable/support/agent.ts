// The scripted agent of the durable tests: several tool turns, every model call and tool execution counted,
// deterministic across processes (explicit tool call ids, replies chosen from the transcript, clock 0), so a
// crashed-and-replayed run can be compared with an uninterrupted one.

import type { DurableAgent, DurableRunResult } from "../../../src/durable/index.js";
import type { AgentMessage, AgentTool, ToolResultMessage } from "../../../src/index.js";
import { type ScriptedReply, scriptedModel } from "../../../src/testing/index.js";

/** The tool calls of the script, in turn order: `charge` is the one a kill test interrupts. */
export const SCRIPT_CALLS = [
	{ id: "t1", name: "lookup", arguments: { key: "balance" } },
	{ id: "t2", name: "charge", arguments: { amount: 5 } },
	{ id: "t3", name: "lookup", arguments: { key: "receipt" } },
] as const;

/** How the test observes side effects: one call per model call (`model:<n>`) and per tool run (`tool:<id>`). */
export type Counter = (key: string) => void;

/** Options of `countingAgent`. */
export interface CountingAgentOptions {
	count: Counter;
	/** Whether `charge` declares itself idempotent (re-run after a crash) or not (reported, not re-run). */
	idempotentCharge?: boolean;
	/** Whether `charge` needs a person's approval (rule T14): the run then pauses before it. */
	chargeNeedsApproval?: boolean;
	/** Awaited inside `charge` (with its abort signal) after it counted itself: where a kill test kills the worker. */
	insideCharge?: (signal: AbortSignal) => Promise<void>;
	/** Awaited inside `lookup` (with the call id) after it counted itself. */
	insideLookup?: (id: string) => Promise<void>;
}

function replyFor(turn: number): ScriptedReply {
	const call = SCRIPT_CALLS[turn];
	if (!call) return { content: [{ type: "text", text: "All done." }] };
	return {
		content: [
			{ type: "text", text: `step ${turn}` },
			{ type: "toolCall", ...call },
		],
	};
}

/** Replies are chosen by the number of assistant messages so far, so a fresh process picks the same one. */
function turnOf(messages: readonly { role: string }[]): number {
	return messages.filter((message) => message.role === "assistant").length;
}

/** The durable agent the tests run: lookup → charge → lookup → text. */
export function countingAgent(options: CountingAgentOptions): DurableAgent {
	const scripted = scriptedModel(
		(call) => {
			const turn = turnOf(call.context.messages);
			options.count(`model:${turn}`);
			return replyFor(turn);
		},
		{ now: () => 0 },
	);
	const lookup: AgentTool = {
		name: "lookup",
		description: "Look a value up (a read: idempotent).",
		parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
		idempotent: true,
		async execute(id, args: { key: string }) {
			options.count(`tool:${id}`);
			await options.insideLookup?.(id);
			return { content: [{ type: "text", text: `value of ${args.key}` }] };
		},
	};
	const charge: AgentTool = {
		name: "charge",
		description: "Charge the card (a side effect).",
		parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
		idempotent: options.idempotentCharge === true,
		...(options.chargeNeedsApproval ? { needsApproval: true } : {}),
		async execute(id, args: { amount: number }, signal) {
			options.count(`tool:${id}`);
			await options.insideCharge?.(signal);
			return {
				content: [{ type: "text", text: `charged ${args.amount}` }],
				details: { amount: args.amount },
			};
		},
	};
	return { model: scripted.model, streamFn: scripted.stream, tools: [lookup, charge] };
}

/** A transcript with every timestamp zeroed: two processes' clocks differ, the path must not. */
export function withoutTimestamps(messages: readonly AgentMessage[]): unknown[] {
	return JSON.parse(JSON.stringify(messages, (key, value) => (key === "timestamp" ? 0 : value)));
}

/** Counts by key (model calls, tool executions) across the attempts of one durable run. */
export function counter(): { counts: Map<string, number>; count: (key: string) => void } {
	const counts = new Map<string, number>();
	return { counts, count: (key) => counts.set(key, (counts.get(key) ?? 0) + 1) };
}

/** The tool result of call `id` in a durable run's transcript. */
export function toolResult(result: DurableRunResult, id: string): ToolResultMessage | undefined {
	return result.messages.find(
		(message): message is ToolResultMessage => message.role === "toolResult" && message.toolCallId === id,
	);
}
