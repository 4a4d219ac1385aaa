/**
 * Confirmation of mutating tool calls (`write_file`, `edit_file`, `shell`) through the host's approver,
 * which the loop calls from `beforeToolCall`. Requests are answered one at a time in the live region;
 * an aborted run withdraws its pending requests (the answer would be moot).
 */
import type { ApprovalRequest } from "../host.js";

interface Pending {
	request: ApprovalRequest;
	resolve: (allowed: boolean) => void;
}

/** The queue of questions waiting for y/n, plus the tools the user allowed for the rest of the session. */
export class ApprovalQueue {
	private readonly pending: Pending[] = [];
	private readonly always = new Set<string>();

	constructor(private readonly changed: () => void) {}

	/** The question on screen now, if any. */
	get current(): ApprovalRequest | undefined {
		return this.pending[0]?.request;
	}

	/** The approver to install on the host. */
	readonly approve = (request: ApprovalRequest, signal: AbortSignal): Promise<boolean> => {
		if (this.always.has(request.toolName)) return Promise.resolve(true);
		if (signal.aborted) return Promise.resolve(false);
		return new Promise((resolve) => {
			const entry: Pending = {
				request,
				resolve: (allowed) => {
					signal.removeEventListener("abort", withdraw);
					resolve(allowed);
				},
			};
			const withdraw = (): void => this.settle(entry, false);
			signal.addEventListener("abort", withdraw, { once: true });
			this.pending.push(entry);
			this.changed();
		});
	};

	/**
	 * Answer the current question: `y` allows, `a` allows this tool from now on (the calls of it already
	 * waiting in the queue included), anything else declines.
	 */
	answer(key: string): boolean | undefined {
		const entry = this.pending[0];
		if (!entry) return undefined;
		const allowed = key === "y" || key === "Y" || key === "a" || key === "A";
		this.settle(entry, allowed);
		if (key === "a" || key === "A") {
			const { toolName } = entry.request;
			this.always.add(toolName);
			for (const other of this.pending.filter((p) => p.request.toolName === toolName))
				this.settle(other, true);
		}
		return allowed;
	}

	/** Decline everything waiting (Esc, exit). */
	declineAll(): void {
		for (const entry of [...this.pending]) this.settle(entry, false);
	}

	private settle(entry: Pending, allowed: boolean): void {
		const index = this.pending.indexOf(entry);
		if (index === -1) return;
		this.pending.splice(index, 1);
		entry.resolve(allowed);
		this.changed();
	}
}
