import type { AgentEvent, AgentMessage } from "../../src/index.js";

function roleOf(message: AgentMessage): string {
	return String((message as { role?: unknown }).role);
}

/** One event as a compact token for golden traces. */
export function token(event: AgentEvent): string {
	switch (event.type) {
		case "message_start":
			return `ms:${roleOf(event.message)}`;
		case "message_update":
			return "mu";
		case "message_end": {
			const role = roleOf(event.message);
			return role === "assistant"
				? `me:assistant:${(event.message as { stopReason: string }).stopReason}`
				: `me:${role}`;
		}
		case "tool_execution_start":
			return `tool_start:${event.toolName}`;
		case "tool_execution_update":
			return `tool_update:${event.toolName}`;
		case "tool_execution_end":
			return `tool_end:${event.toolName}:${event.status}`;
		case "turn_end":
			return `turn_end:${event.toolResults.length}`;
		case "agent_end":
			return `agent_end:${event.outcome.type}`;
		default:
			return event.type;
	}
}

/** Golden trace: events as tokens, runs of `message_update` collapsed into one `mu+`. */
export function trace(events: readonly AgentEvent[]): string {
	const out: string[] = [];
	for (const event of events) {
		const t = token(event);
		if (t === "mu") {
			if (out[out.length - 1] !== "mu+") out.push("mu+");
		} else out.push(t);
	}
	return out.join(" ");
}

/** Collect every event of a stream and its result. */
export async function collect<R>(stream: AsyncIterable<AgentEvent> & { result(): Promise<R> }) {
	const events: AgentEvent[] = [];
	for await (const event of stream) events.push(event);
	return { events, result: await stream.result() };
}

/** SPEC L4/I2: turn, message and tool-execution scopes balance; agent_end is last and unique. */
export function assertBalanced(events: readonly AgentEvent[]): void {
	let turns = 0;
	let messages = 0;
	const tools = new Set<string>();
	events.forEach((event, index) => {
		if (event.type === "turn_start") {
			if (turns !== 0) throw new Error(`nested turn_start at ${index}`);
			turns++;
		} else if (event.type === "turn_end") {
			if (turns !== 1) throw new Error(`turn_end without turn_start at ${index}`);
			turns--;
		} else if (event.type === "message_start") {
			if (messages !== 0) throw new Error(`nested message_start at ${index}`);
			messages++;
		} else if (event.type === "message_end") {
			if (messages !== 1) throw new Error(`message_end without message_start at ${index}`);
			messages--;
		} else if (event.type === "tool_execution_start") {
			if (tools.has(event.toolCallId)) throw new Error(`tool ${event.toolCallId} started twice`);
			tools.add(event.toolCallId);
		} else if (event.type === "tool_execution_end") {
			if (!tools.delete(event.toolCallId)) throw new Error(`tool ${event.toolCallId} ended without start`);
		} else if (event.type === "agent_end" && index !== events.length - 1) {
			throw new Error("agent_end is not the last event");
		}
	});
	if (turns !== 0 || messages !== 0 || tools.size !== 0) throw new Error("unbalanced events at the end");
	if (events.filter((e) => e.type === "agent_end").length !== 1)
		throw new Error("agent_end must appear exactly once");
	if (events[0]?.type !== "agent_start") throw new Error("agent_start must come first");
}

/** SPEC I1: every tool call has exactly one result, after the assistant message holding it. */
export function assertPaired(messages: readonly AgentMessage[]): void {
	const open = new Map<string, number>();
	const seen = new Set<string>();
	messages.forEach((message, index) => {
		const m = message as { role?: string; content?: unknown; toolCallId?: string };
		if (m.role === "assistant") {
			if (open.size > 0)
				throw new Error(`assistant at ${index} while calls ${[...open.keys()]} are unanswered`);
			for (const block of m.content as { type: string; id?: string }[]) {
				if (block.type === "toolCall" && block.id) open.set(block.id, index);
			}
		} else if (m.role === "toolResult") {
			if (!m.toolCallId || !open.has(m.toolCallId))
				throw new Error(`result ${m.toolCallId} at ${index} pairs no open call`);
			if (seen.has(m.toolCallId)) throw new Error(`second result for ${m.toolCallId}`);
			open.delete(m.toolCallId);
			seen.add(m.toolCallId);
		}
	});
	if (open.size > 0) throw new Error(`unanswered tool calls at the end: ${[...open.keys()]}`);
}
