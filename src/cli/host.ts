/**
 * The contract between the `capstan` command and its interactive (TTY) mode. `main.ts` resolves the model,
 * the tools, the session file and the approval policy, builds the `Agent`, and hands an `InteractiveHost` to
 * `runInteractive(host)`; the interactive mode only renders, reads keys and calls these methods. Everything
 * here also backs print, JSON and RPC modes, so the TTY mode drives exactly the agent the other modes do.
 *
 * Keep this file stable: the interactive module is written against it in parallel.
 */
import type { Agent } from "../agent/agent.js";
import type { ThinkingLevel } from "../core/model.js";
import type { AgentEvent } from "../protocol/events.js";

/** What the status line shows about the model in use. */
export interface ModelDescription {
	/** Provider name, e.g. `anthropic`, `openai`, `ollama`, or `scripted` for the demo. */
	provider: string;
	/** Model id as the provider knows it. */
	id: string;
	/** `provider/id`, the spelling `--model` and {@link InteractiveHost.setModel} accept. */
	spec: string;
	thinkingLevel: ThinkingLevel;
	/** Context window in tokens, when known. */
	contextWindow?: number;
	/** True for the scripted demo model (no API key, no server). */
	scripted: boolean;
	/** The server the requests go to, for a `--base-url` model; its password and credential query values masked. */
	baseUrl?: string;
}

/** A mutating tool call waiting for the user's yes or no. */
export interface ApprovalRequest {
	toolCallId: string;
	toolName: string;
	args: Record<string, unknown>;
	/** One human-readable line, e.g. `write_file notes.md (312 bytes)`. */
	summary: string;
}

/**
 * Decides one {@link ApprovalRequest}: resolve `true` to run the call, `false` to block it (the model is told
 * the user declined). `signal` fires when the run is aborted meanwhile; the request is then moot.
 */
export type ToolApprover = (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean>;

/** One saved session, newest first in {@link SessionControl.list}. */
export interface SessionSummary {
	/** Absolute path of the JSONL file; pass it to `resume`. */
	path: string;
	/** Last modification, epoch ms. */
	modified: number;
	/** The first user prompt, shortened, when the file has one. */
	title?: string;
	/** Messages in the file. */
	messageCount?: number;
}

/** The session file the conversation is written to (rule L6: a resumed session runs a dangling batch first). */
export interface SessionControl {
	/** Path of the file being written, or undefined with `--no-session`. */
	readonly current: string | undefined;
	/** Whether sessions are written at all (false with `--no-session`). */
	readonly enabled: boolean;
	/** Saved sessions of this project, newest first. */
	list(): Promise<SessionSummary[]>;
	/**
	 * Load a saved session into the agent and keep writing to it, running nothing: a batch it left without
	 * results is the caller's to run (after showing the history and installing its approver). Not allowed
	 * during a run. Throws a clear Error when the file cannot be loaded; returns the load warnings.
	 */
	load(path: string): string[];
	/**
	 * Load a saved session into the agent and keep writing to it. If it ended between a tool call and its
	 * result, the agent resumes that batch before returning. Not allowed during a run. Returns the load
	 * warnings (e.g. a torn last line that was skipped).
	 */
	resume(path: string): Promise<string[]>;
	/** Abort any run, clear the transcript and queues, and start a new session file (`/clear`). */
	clear(): Promise<void>;
}

/**
 * The scripted demo (no API key and no base URL): what it will do, so the interactive mode can announce it
 * and let the user type the steering message themselves.
 */
export interface ScriptedDemoInfo {
	/** The announcement, e.g. "scripted demo — no API key found; set …". */
	notice: string;
	/** The fresh temporary directory the demo's tools work in (never the user's project). */
	sandbox: string;
	/** The prompt that starts the demo. */
	prompt: string;
	/** A steering message to suggest while the long-running tool runs. */
	steer: string;
	/** The follow-up that produces one more turn. */
	followUp: string;
	/** Name of the interruptible long-running tool (the moment to steer). */
	longTool: string;
	/**
	 * Queue `steer` shortly after the long tool starts and `followUp` after that, as the unattended demo
	 * does. Returns a function that stops doing so (e.g. once the user typed their own steer).
	 */
	autoplay(): () => void;
}

/** Everything the interactive mode needs from the `capstan` command. */
export interface InteractiveHost {
	/** The agent: `prompt`, `steer`, `followUp`, `abort`, `subscribe`, `state`… */
	readonly agent: Agent;
	/** The working directory the tools are confined to. */
	readonly cwd: string;
	/** capstan's version, for the banner. */
	readonly version: string;
	/** The model in use, as of now. */
	describeModel(): ModelDescription;
	/** Models `setModel` accepts as `provider/id`: the current one first, then the `--base-url` server's, then the catalog. */
	listModels(): string[];
	/**
	 * Switch model from the next run: a `provider/id` of {@link listModels}, a bare id on the current server, or
	 * any id of the `--base-url` server (slashes allowed); throws a clear Error when unknown or keyless.
	 */
	setModel(spec: string): void;
	/** Set the thinking level; applies from the next model call. */
	setThinking(level: ThinkingLevel): void;
	/** The session file. */
	readonly sessions: SessionControl;
	/** True with `--yes`: mutating tools run without asking. */
	readonly autoApprove: boolean;
	/**
	 * Install who answers {@link ApprovalRequest}s for mutating tools (`write_file`, `edit_file`, `shell`).
	 * Without an approver (and without `--yes`) such calls are blocked with a reason telling the model to
	 * ask the user to pass `--yes`. Pass undefined to remove it.
	 */
	setApprover(approver: ToolApprover | undefined): void;
	/**
	 * One user-facing line of what to do about how a run ended, when there is more to say than its events
	 * already did — e.g. for a context overflow "the conversation no longer fits the model's context window:
	 * /clear or start a new session". Undefined for a completed, aborted or stopped run, and for an error with
	 * no remedy to add (the error itself is shown).
	 */
	explainEnd(event: Extract<AgentEvent, { type: "agent_end" }>): string | undefined;
	/** Present when running the scripted demo. */
	readonly scripted?: ScriptedDemoInfo;
}
