/**
 * The command's session file (`capstan/sessions`): created when the first run starts (so a command that
 * never prompts leaves no empty file), every message appended as its `message_end` fires, `/clear` starting
 * a new file, and `--resume`/`--continue` reopening a file to go on in it — a batch the file left without
 * results runs first (SPEC L6, Q4).
 */
import type { Agent } from "../agent/agent.js";
import { findDanglingBatch } from "../loop/pairing.js";
import {
	createSessionFile,
	latestSession,
	listSessions,
	loadSession,
	openSessionFile,
	recordSession,
	type SessionFile,
} from "../sessions/index.js";
import type { SessionControl, SessionSummary } from "./host.js";

/** A session that cannot be loaded: exit code 2 with this text. */
export class SessionError extends Error {
	override readonly name = "SessionError";
}

/** What {@link openSessions} needs. */
export interface SessionSetup {
	agent: Agent;
	enabled: boolean;
	/** Absolute folder of this project's sessions. */
	dir: string;
	/** The working directory recorded in the header. */
	cwd: string;
	version: string;
}

/** The {@link SessionControl} of the command, with its folder. */
export interface CliSessions extends SessionControl {
	readonly dir: string;
}

/** Start session bookkeeping for an agent (no file is written until its first run starts). */
export async function openSessions(setup: SessionSetup): Promise<CliSessions> {
	return new FileSessions(setup);
}

class FileSessions implements CliSessions {
	private file: SessionFile | undefined;
	private stopRecording: (() => void) | undefined;

	constructor(private readonly setup: SessionSetup) {
		setup.agent.subscribe((event) => {
			// Created on the run's first event, before any message_end, so the run's messages all land in it.
			if (event.type === "agent_start" && this.enabled && !this.file) this.record(this.newFile());
		});
	}

	get enabled(): boolean {
		return this.setup.enabled;
	}

	get dir(): string {
		return this.setup.dir;
	}

	get current(): string | undefined {
		return this.file?.path;
	}

	async list(): Promise<SessionSummary[]> {
		return listSessions(this.dir).map((session) => {
			const summary: SessionSummary = {
				path: session.path,
				modified: session.modifiedAt.getTime(),
				messageCount: session.messageCount,
			};
			if (session.preview !== undefined) summary.title = session.preview;
			return summary;
		});
	}

	async resume(path: string): Promise<string[]> {
		const { agent } = this.setup;
		const loaded = loadOrExplain(path);
		agent.replaceMessages(loaded.messages);
		this.closeFile();
		if (this.enabled) this.record(openSessionFile(path));
		if (findDanglingBatch(agent.state.messages) !== undefined) await agent.continue();
		return loaded.warnings.map((warning) => `${path}: ${warning}`);
	}

	async clear(): Promise<void> {
		await this.setup.agent.reset();
		this.closeFile();
	}

	private newFile(): SessionFile {
		const { agent, cwd, dir, version } = this.setup;
		const { model } = agent.state;
		return createSessionFile({
			cwd,
			dir,
			model: { provider: model.provider, id: model.id, api: model.api },
			capstanVersion: version,
		});
	}

	private record(file: SessionFile): void {
		this.file = file;
		this.stopRecording = recordSession(this.setup.agent, file);
	}

	private closeFile(): void {
		this.stopRecording?.();
		this.stopRecording = undefined;
		this.file?.close();
		this.file = undefined;
	}
}

function loadOrExplain(path: string): ReturnType<typeof loadSession> {
	try {
		return loadSession(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") throw new SessionError(`no session file at ${path}`);
		throw new SessionError(`cannot resume ${path}: ${(error as Error).message}`);
	}
}

/** The newest session of the folder, for `--continue`; a clear error when there is none. */
export function latestSessionPath(sessions: CliSessions): string {
	const latest = latestSession(sessions.dir);
	if (!latest)
		throw new SessionError(`no session to continue in ${sessions.dir}: start one without --continue`);
	return latest.path;
}
