/**
 * SIGINT and SIGTERM (exit code 130, `--help`'s table). A signal during a run — or a run paused for approval —
 * aborts it, and the mode goes on as after any abort (print mode then exits 130). A signal with no run ends
 * the mode the way its own exit does (RPC stops reading, the TTY restores the terminal), with exit 130. A
 * second signal while the first one's abort or exit is still under way exits at once, after the synchronous
 * clean-ups the modes registered (the terminal restored, the stdio MCP servers sent SIGTERM); so does a signal
 * once the mode has ended, while the command closes. Once the aborted run has ended, the next signal counts as
 * a first one again.
 */
import type { Agent } from "../agent/agent.js";
import { endRunningCommands } from "../workspace/index.js";
import { EXIT } from "./outcome.js";

/** What one signal does: abort the run, end the mode gracefully, or exit the process at once. */
export type SignalAction = "abort" | "stop" | "exit";

/** What the decision depends on. */
export interface SignalState {
	/** A run is active or paused for approval. */
	busy: boolean;
	/** An earlier signal's abort or stop is still under way. */
	handling: boolean;
}

/** The decision, as a table: a signal while one is being handled exits; otherwise abort a run, or stop. */
export function signalAction(state: SignalState): SignalAction {
	if (state.handling) return "exit";
	return state.busy ? "abort" : "stop";
}

/** The process the handler listens on: `process` in the command, a stand-in in tests. */
export interface SignalSource {
	on(signal: "SIGINT" | "SIGTERM", listener: (signal: NodeJS.Signals) => void): unknown;
	off(signal: "SIGINT" | "SIGTERM", listener: (signal: NodeJS.Signals) => void): unknown;
	exit(code: number): void;
}

/** What a mode registers: how it ends on a signal with no run, and what a forced exit must still undo. */
export interface SignalHooks {
	/** `stop` ends the mode as its own exit would, resolving its exit code to 130. Returns the removal. */
	onStop(stop: () => void): () => void;
	/** A synchronous clean-up run before a forced exit (e.g. restore the terminal). Returns the removal. */
	onForcedExit(cleanup: () => void): () => void;
}

/** Installs the SIGINT/SIGTERM handlers for one command; {@link dispose} removes them. */
export class SignalHandler implements SignalHooks {
	private handling: "abort" | "stop" | undefined;
	private stop: (() => void) | undefined;
	private readonly cleanups = new Set<() => void>();
	private readonly unsubscribe: () => void;

	constructor(
		private readonly agent: Agent,
		private readonly source: SignalSource = process,
	) {
		// The aborted run has ended: a later signal is a first one again (it aborts the next run, not the process).
		this.unsubscribe = agent.subscribe((event) => {
			if (event.type === "agent_end" && this.handling === "abort") this.handling = undefined;
		});
		source.on("SIGINT", this.onSignal);
		source.on("SIGTERM", this.onSignal);
	}

	onStop(stop: () => void): () => void {
		this.stop = stop;
		return () => {
			if (this.stop === stop) this.stop = undefined;
		};
	}

	onForcedExit(cleanup: () => void): () => void {
		this.cleanups.add(cleanup);
		return () => this.cleanups.delete(cleanup);
	}

	/** Remove the handlers. */
	dispose(): void {
		this.unsubscribe();
		this.source.off("SIGINT", this.onSignal);
		this.source.off("SIGTERM", this.onSignal);
	}

	private readonly onSignal = (signal: NodeJS.Signals): void => {
		const { state } = this.agent;
		const busy = state.isStreaming || state.pendingApprovals.length > 0;
		const action = signalAction({ busy, handling: this.handling !== undefined });
		if (action === "abort") {
			this.handling = "abort";
			this.agent.abort(`interrupted (${signal})`);
		} else if (action === "stop" && this.stop) {
			this.handling = "stop";
			this.stop();
		} else this.exitNow();
	};

	private exitNow(): void {
		for (const cleanup of this.cleanups) {
			try {
				cleanup();
			} catch {
				// The exit goes ahead: a clean-up that fails must not keep the process alive.
			}
		}
		// Node runs no exit hook on a signal: end the shell commands' process groups ourselves.
		endRunningCommands();
		this.source.exit(EXIT.interrupted);
	}
}
