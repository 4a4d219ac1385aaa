/**
 * RPC mode (`capstan --rpc`): JSON-line commands on stdin, JSON lines on stdout — `ready` once, every
 * AgentEvent as `{type:"event", event}`, one `{type:"response", id, command, ok, data?|error?}` per command,
 * and `{type:"approval_request", …}` when a mutating tool waits for the client's `approve`/`deny` (the run
 * has then ended `awaiting_approval`, rule T15; the last answer resumes it). A bad line
 * gets an error response and the loop reads on; end of input waits for the run, then exits 0 (a signal with
 * no run active ends it the same way, exit 130). The protocol is documented in docs/rpc.md.
 */
import { createInterface } from "node:readline";
import { ApprovalPendingError } from "../agent/agent.js";
import { isThinkingLevel, THINKING_LEVELS } from "../core/model.js";
import { findDanglingBatch } from "../loop/pairing.js";
import type { CliApp } from "./app.js";
import type { ApprovalRequest } from "./host.js";
import { EXIT } from "./outcome.js";
import type { SignalHooks } from "./signals.js";

/** A command as read from one line. */
interface Command {
	id?: unknown;
	type: string;
	[field: string]: unknown;
}

/** Thrown by a handler: becomes `ok: false` with this text. */
class CommandError extends Error {}

/** A line that is not a command: `ok: false`, `command: null`, and the line's `id` if it is an object with one. */
class MalformedCommand extends Error {
	constructor(
		message: string,
		readonly id: unknown = null,
	) {
		super(message);
	}
}

type Handler = (command: Command) => Promise<unknown> | unknown;

/** What {@link runRpc} may be given besides its streams. */
export interface RpcOptions {
	/** A session to load first (`--resume`/`--continue`). */
	resume?: string | undefined;
	/** A signal with no run active ends the loop as end of input does, with exit code 130. */
	signals?: SignalHooks;
}

/** Run the RPC loop until `input` ends (exit 0) or a signal stops it (exit 130); resolves to the exit code. */
export async function runRpc(
	app: CliApp,
	input: NodeJS.ReadableStream,
	write: (line: string) => void,
	options: RpcOptions = {},
): Promise<number> {
	const { resume, signals } = options;
	const send = (value: unknown): void => write(`${JSON.stringify(value)}\n`);
	const session = new RpcSession(app, send);
	send({
		type: "ready",
		version: app.version,
		cwd: app.cwd,
		model: app.describeModel(),
		session: app.sessions.current ?? null,
		...(app.scripted ? { scripted: app.scripted.notice } : {}),
	});
	if (resume !== undefined) await session.resumeInBackground(resume);
	const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
	let stopped = false;
	const offStop = signals?.onStop(() => {
		stopped = true;
		lines.close();
	});
	try {
		for await (const line of lines) {
			if (line.trim() === "") continue;
			await session.handleLine(line);
			if (stopped) break;
		}
	} finally {
		offStop?.();
	}
	await session.finish();
	return stopped ? EXIT.interrupted : EXIT.ok;
}

/** The state of one RPC connection: the agent's events, pending approvals, the command table. */
class RpcSession {
	private readonly approvals = new Map<string, (approved: boolean) => void>();
	private inputEnded = false;
	private readonly handlers: Record<string, Handler>;

	constructor(
		private readonly app: CliApp,
		private readonly send: (value: unknown) => void,
	) {
		app.agent.subscribe((event) => send({ type: "event", event }));
		if (!app.autoApprove) app.setApprover((request, signal) => this.askClient(request, signal));
		this.handlers = this.commandTable();
	}

	async handleLine(line: string): Promise<void> {
		let command: Command;
		try {
			command = parseCommand(line);
		} catch (error) {
			const { id, message } = error as MalformedCommand;
			this.send({ type: "response", id, command: null, ok: false, error: message });
			return;
		}
		const base = { type: "response", id: command.id ?? null, command: command.type };
		const handler = Object.hasOwn(this.handlers, command.type) ? this.handlers[command.type] : undefined;
		if (!handler) {
			const known = Object.keys(this.handlers).join(", ");
			this.send({ ...base, ok: false, error: `unknown command "${command.type}" (known: ${known})` });
			return;
		}
		try {
			const data = await handler(command);
			this.send(data === undefined ? { ...base, ok: true } : { ...base, ok: true, data });
		} catch (error) {
			this.send({ ...base, ok: false, error: (error as Error).message });
		}
	}

	/**
	 * `--resume`/`--continue`: load the session; a dangling batch it left runs as a run the client sees and
	 * can steer or abort. A file that cannot be loaded fails the command (exit 2), before any command is read.
	 */
	async resumeInBackground(path: string): Promise<void> {
		const resuming = this.app.sessions.resume(path);
		if (!this.app.agent.state.isStreaming) {
			for (const warning of await resuming) this.send({ type: "warning", warning });
			return;
		}
		resuming.then(
			(warnings) => {
				for (const warning of warnings) this.send({ type: "warning", warning });
			},
			(error: unknown) => this.send({ type: "error", error: (error as Error).message }),
		);
	}

	/** End of input: nobody can answer approvals any more; let the run finish. */
	async finish(): Promise<void> {
		this.inputEnded = true;
		for (const resolve of this.approvals.values()) resolve(false);
		this.approvals.clear();
		await this.app.idle();
	}

	private askClient(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
		if (this.inputEnded || signal.aborted) return Promise.resolve(false);
		return new Promise((resolve) => {
			const settle = (approved: boolean): void => {
				this.approvals.delete(request.toolCallId);
				signal.removeEventListener("abort", onAbort);
				resolve(approved);
			};
			const onAbort = (): void => settle(false);
			signal.addEventListener("abort", onAbort, { once: true });
			this.approvals.set(request.toolCallId, settle);
			this.send({ type: "approval_request", ...request });
		});
	}

	private commandTable(): Record<string, Handler> {
		const { app } = this;
		const { agent } = app;
		return {
			prompt: (c) => this.start(() => agent.prompt(text(c, "message"))),
			continue: () => this.start(() => agent.continue()),
			steer: (c) => void agent.steer(text(c, "message")),
			followUp: (c) => void agent.followUp(text(c, "message")),
			abort: (c) => void agent.abort(optionalText(c, "reason") ?? "aborted by the RPC client"),
			approve: (c) => this.answer(text(c, "toolCallId"), true),
			deny: (c) => this.answer(text(c, "toolCallId"), false),
			getState: () => this.state(),
			getMessages: () => ({ messages: agent.state.messages }),
			listModels: () => ({ models: app.listModels() }),
			setModel: (c) => {
				app.setModel(text(c, "model"));
				return { model: app.describeModel() };
			},
			setThinking: (c) => {
				const level = c.level;
				if (!isThinkingLevel(level))
					throw new CommandError(`"level" must be one of ${THINKING_LEVELS.join(", ")}`);
				app.setThinking(level);
				return { model: app.describeModel() };
			},
			reset: async () => {
				await app.sessions.clear();
				return { session: app.sessions.current ?? null };
			},
			listSessions: async () => ({ sessions: await app.sessions.list() }),
			resume: async (c) => {
				if (agent.state.isStreaming) throw new CommandError("a run is active: abort it or wait");
				// Like prompt: a run paused for approval is still this transcript's (docs/rpc.md, Approvals).
				const pending = agent.state.pendingApprovals;
				if (pending.length > 0) throw new ApprovalPendingError("resume", pending);
				// Loaded now; a batch it left without results runs like a prompt's run, in the background, so the
				// client can steer or abort it while it runs (as with --resume).
				const warnings = app.sessions.load(text(c, "path"));
				const data = {
					session: app.sessions.current ?? null,
					messages: agent.state.messages.length,
					warnings,
				};
				if (findDanglingBatch(agent.state.messages) !== undefined) await this.start(() => agent.continue());
				return data;
			},
		};
	}

	/**
	 * Start a run without waiting for it (events report its progress). `prompt()`/`continue()` decide
	 * synchronously whether they can start, so a refusal (busy, nothing to continue) is the response.
	 */
	private async start(run: () => Promise<void>): Promise<undefined> {
		if (this.app.agent.state.isStreaming)
			throw new CommandError("a run is active: send steer or followUp, or abort it first");
		const running = run();
		if (this.app.agent.state.isStreaming) {
			running.catch((error: unknown) => this.send({ type: "error", error: (error as Error).message }));
			return undefined;
		}
		await running;
		return undefined;
	}

	private answer(toolCallId: string, approved: boolean): undefined {
		const settle = this.approvals.get(toolCallId);
		if (!settle) throw new CommandError(`no approval is pending for tool call "${toolCallId}"`);
		settle(approved);
		return undefined;
	}

	private state(): Record<string, unknown> {
		const { agent } = this.app;
		const { state } = agent;
		return {
			model: this.app.describeModel(),
			isStreaming: state.isStreaming,
			messageCount: state.messages.length,
			pendingToolCalls: [...state.pendingToolCalls],
			pendingApprovals: [...this.approvals.keys()],
			queued: { steer: agent.peekSteeringQueue().length, followUp: agent.peekFollowUpQueue().length },
			session: this.app.sessions.current ?? null,
			autoApprove: this.app.autoApprove,
			cwd: this.app.cwd,
			error: state.error ?? null,
		};
	}
}

function parseCommand(line: string): Command {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch (error) {
		throw new MalformedCommand(`malformed command (not JSON): ${(error as Error).message}`);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value))
		throw new MalformedCommand("malformed command: expected a JSON object");
	// The client may wait for the response to its id: echo it even though the command cannot run.
	const { id, type } = value as { id?: unknown; type?: unknown };
	if (typeof type !== "string")
		throw new MalformedCommand('malformed command: "type" must be a string', id ?? null);
	return value as Command;
}

function text(command: Command, field: string): string {
	const value = command[field];
	if (typeof value !== "string" || value === "")
		throw new CommandError(`"${command.type}" needs a non-empty string "${field}"`);
	return value;
}

function optionalText(command: Command, field: string): string | undefined {
	const value = command[field];
	if (value === undefined) return undefined;
	if (typeof value !== "string") throw new CommandError(`"${field}" must be a string`);
	return value;
}
