/**
 * The command's session file (`capstan/sessions`): created with the first message (so a command that never
 * prompts leaves no empty file), every message appended as its `message_end` fires — before any mode shows
 * it — `/clear` starting a new file, and `--resume`/`--continue` reopening a file to go on in it; a batch
 * the file left without results runs first (rule L6, Q4). A folder that could never hold the file is refused
 * up front, so the command ends before running instead of failing at every message.
 */
import { accessSync, closeSync, constants, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Agent } from "../agent/agent.js";
import type { AgentMessage } from "../core/messages.js";
import { findDanglingBatch } from "../loop/pairing.js";
import {
	createSessionFile,
	latestSession,
	listSessions,
	loadSession,
	openSessionFile,
	recordSession,
	type SessionFile,
	SessionFormatError,
} from "../sessions/index.js";
import { describeSystemError } from "../workspace/fs-errors.js";
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
	/** Told, once, when the session file can no longer be written; the conversation goes on unrecorded. */
	warn: (text: string) => void;
}

/** The {@link SessionControl} of the command, with its folder. */
export interface CliSessions extends SessionControl {
	readonly dir: string;
}

/**
 * Start session bookkeeping for an agent (no file is written until its first run starts). The folder is
 * checked before, with {@link checkSessionFolder}, while nothing has been started that would need stopping.
 */
export async function openSessions(setup: SessionSetup): Promise<CliSessions> {
	return new FileSessions(setup);
}

/**
 * Throw a {@link SessionError} unless `dir` is a writable folder or could be created (its nearest existing
 * ancestor is a writable folder). Creates nothing: the folder appears with the first session file.
 */
export function checkSessionFolder(dir: string): void {
	const problem = folderProblem(dir);
	if (problem !== undefined)
		throw new SessionError(
			`cannot write sessions to ${dir}: ${problem}; choose another folder with --session-dir, or --no-session`,
		);
}

function folderProblem(dir: string): string | undefined {
	for (let path = dir; ; path = dirname(path)) {
		let isFolder: boolean;
		try {
			isFolder = statSync(path).isDirectory();
		} catch (error) {
			// Missing, or under a file (ENOTDIR): the ancestor that exists tells what is wrong.
			const code = (error as NodeJS.ErrnoException).code;
			if ((code === "ENOENT" || code === "ENOTDIR") && dirname(path) !== path) continue;
			return (error as Error).message;
		}
		if (!isFolder) return `${path} is not a directory`;
		try {
			accessSync(path, constants.W_OK | constants.X_OK);
			return undefined;
		} catch {
			return `${path} is not writable`;
		}
	}
}

class FileSessions implements CliSessions {
	private file: SessionFile | undefined;
	private stopRecording: (() => void) | undefined;

	constructor(private readonly setup: SessionSetup) {
		// Recording starts now, before any mode subscribes its output, so a message is on disk before it is
		// shown; the file itself appears with the first message.
		this.recordNew();
	}

	get enabled(): boolean {
		return this.setup.enabled;
	}

	get dir(): string {
		return this.setup.dir;
	}

	get current(): string | undefined {
		const file = this.file;
		return file instanceof LazySessionFile && !file.created ? undefined : file?.path;
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

	load(path: string): string[] {
		const loaded = loadOrExplain(path);
		// A repaired transcript is no longer what the file reads back as: it goes on in a new file, which
		// recordSession starts with the loaded messages, and the damaged file is left as it is. Opened before
		// anything changes: a file that cannot be written leaves the conversation and its recording as they were.
		const file =
			this.enabled && !loaded.repaired ? explainWriteError(path, () => openSessionFile(path)) : undefined;
		this.setup.agent.replaceMessages(loaded.messages);
		this.closeFile();
		const warnings = loaded.warnings.map((warning) => `${path}: ${warning}`);
		if (!this.enabled) return warnings;
		if (file !== undefined) this.record(file);
		else {
			this.recordNew();
			warnings.push(`${path}: repaired as above; the conversation goes on in ${this.current}`);
		}
		return warnings;
	}

	async resume(path: string): Promise<string[]> {
		const { agent } = this.setup;
		const warnings = this.load(path);
		if (findDanglingBatch(agent.state.messages) !== undefined) await agent.continue();
		return warnings;
	}

	async clear(): Promise<void> {
		await this.setup.agent.reset();
		this.closeFile();
		this.recordNew();
	}

	private recordNew(): void {
		if (this.enabled) this.record(new LazySessionFile(() => this.newFile()));
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
		// A file that can no longer be written (a full disk) is said once; the conversation goes on.
		this.stopRecording = recordSession(this.setup.agent, file, {
			onError: (error) => this.setup.warn(error instanceof Error ? error.message : String(error)),
		});
	}

	private closeFile(): void {
		this.stopRecording?.();
		this.stopRecording = undefined;
		this.file?.close();
		this.file = undefined;
	}
}

/** A session file created on its first entry, so a command that never runs leaves no empty file behind. */
class LazySessionFile implements SessionFile {
	private real: SessionFile | undefined;

	constructor(private readonly create: () => SessionFile) {}

	get created(): boolean {
		return this.real !== undefined;
	}

	private get file(): SessionFile {
		this.real ??= this.create();
		return this.real;
	}

	get path(): string {
		return this.file.path;
	}

	get header(): SessionFile["header"] {
		return this.file.header;
	}

	get messageCount(): number {
		return this.real?.messageCount ?? 0;
	}

	firstDifference(messages: readonly AgentMessage[]): number | undefined {
		return this.real?.firstDifference?.(messages);
	}

	append(message: AgentMessage): void {
		this.file.append(message);
	}

	revise(index: number, message: AgentMessage): void {
		this.file.revise(index, message);
	}

	close(): void {
		this.real?.close();
	}
}

/**
 * Throw the {@link SessionError} `--resume` would end with (no such file, a folder, not a session, one it may
 * not read, or — when sessions are `recorded` — may not write) before anything is shown: the demo's banner or
 * RPC's `ready` line before it read as if the command had started.
 */
export function checkSessionFile(path: string, recorded: boolean): void {
	loadOrExplain(path);
	// Opened to write and closed, nothing written: whether the session can go on in it.
	if (recorded) explainWriteError(path, () => closeSync(openSync(path, "r+")));
}

function loadOrExplain(path: string): ReturnType<typeof loadSession> {
	try {
		return loadSession(path);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") throw new SessionError(`no session file at ${path}`);
		if (code === "EISDIR")
			throw new SessionError(`${path} is a folder, not a session file: name one of the .jsonl files in it`);
		// Its text already names the file ("Cannot read session …: the file is empty."): not said twice.
		if (error instanceof SessionFormatError) throw new SessionError(error.message);
		// Said like those, not in Node's words ("EACCES: permission denied, open '…'"), which name the path twice.
		const reason = describeSystemError(error);
		if (reason !== undefined) throw new SessionError(`Cannot read session ${path}: ${reason}.`);
		throw new SessionError(`cannot resume ${path}: ${(error as Error).message}`);
	}
}

/**
 * `open()`, with a file a resumed session cannot go on in (read-only: EACCES, EROFS) said as a
 * {@link SessionError} instead of Node's text, which ended the command as an internal error.
 */
function explainWriteError<T>(path: string, open: () => T): T {
	try {
		return open();
	} catch (error) {
		const reason = describeSystemError(error);
		if (reason !== undefined)
			throw new SessionError(
				`Cannot write session ${path}: ${reason}. A resumed session goes on in its file: make it writable, or resume a copy.`,
			);
		// openSessionFile's own errors already name the file and say what happened.
		if (error instanceof Error) throw new SessionError(error.message);
		throw error;
	}
}

/** The newest session of the folder, for `--continue`; a clear error when there is none. */
export function latestSessionPath(sessions: CliSessions): string {
	let latest: ReturnType<typeof latestSession>;
	try {
		latest = latestSession(sessions.dir);
	} catch (error) {
		throw new SessionError(
			`the newest session in ${sessions.dir} cannot be continued: ${error instanceof Error ? error.message : String(error)}`,
		);
	}
	if (!latest)
		throw new SessionError(`no session to continue in ${sessions.dir}: start one without --continue`);
	return latest.path;
}
