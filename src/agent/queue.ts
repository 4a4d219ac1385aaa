import type { AgentMessage } from "../core/messages.js";

/** rule Q2: `one-at-a-time` (default) hands out one message per dequeue; `all` hands out everything. */
export type QueueMode = "one-at-a-time" | "all";

/**
 * Rule Q2: throws a `TypeError` for a mode that is neither; `undefined` is the default. A typo would otherwise
 * quietly hand out one message at a time.
 */
export function checkQueueMode(mode: unknown, where: string): QueueMode | undefined {
	if (mode === undefined || mode === "one-at-a-time" || mode === "all") return mode;
	throw new TypeError(
		`${where}: a queue mode is "one-at-a-time" or "all" (received ${JSON.stringify(mode) ?? String(mode)})`,
	);
}

/** A FIFO of messages waiting for the loop, with listeners told when something is queued. */
export class MessageQueue {
	private items: AgentMessage[] = [];
	private readonly listeners = new Set<() => void>();

	constructor(public mode: QueueMode = "one-at-a-time") {}

	/** Number of queued messages. */
	get size(): number {
		return this.items.length;
	}

	/** A read-only view of what is queued. */
	peek(): readonly AgentMessage[] {
		return this.items;
	}

	/** Queue a message and wake listeners (rule T10 event-driven wake-up). */
	enqueue(message: AgentMessage): void {
		this.items.push(message);
		for (const listener of this.listeners) listener();
	}

	/** Take messages according to the mode. */
	dequeue(): AgentMessage[] {
		if (this.items.length === 0) return [];
		if (this.mode === "all") {
			const all = this.items;
			this.items = [];
			return all;
		}
		return this.items.splice(0, 1);
	}

	/** Drop everything queued. */
	clear(): void {
		this.items = [];
	}

	/** Listen for newly queued messages; returns the unsubscribe function. */
	onQueued(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}
