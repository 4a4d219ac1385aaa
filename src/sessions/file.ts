import { randomUUID } from "node:crypto";
import { closeSync, ftruncateSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AgentMessage } from "../core/messages.js";
import {
	CAPSTAN_VERSION,
	SESSION_FORMAT_VERSION,
	type SessionEntry,
	SessionFormatError,
	type SessionHeader,
	type SessionModel,
	visible,
} from "./format.js";
import { parseSession } from "./load.js";

/** An open session file: entries are written synchronously, so a `kill -9` loses nothing already appended. */
export interface SessionFile {
	/** The file's path. */
	readonly path: string;
	/** The file's first line. */
	readonly header: SessionHeader;
	/** Messages in the file so far (the index the next appended message gets). */
	readonly messageCount: number;
	/**
	 * The file's last message (message `messageCount - 1`, revisions applied), or undefined when it holds none.
	 * {@link recordSession} compares it with the agent's message at that index, to refuse recording an agent
	 * into a file that holds another conversation. Optional for other implementations: without it only the
	 * counts are compared.
	 */
	readonly lastMessage?: AgentMessage | undefined;
	/**
	 * Append one transcript message as a complete line. Throws after `close()`, and once a write has failed
	 * (a full disk): the failed entry is cut back off, and nothing is written after it, so the file never
	 * holds a torn line or a gap and still reads back as the conversation up to that point.
	 */
	append(message: AgentMessage): void;
	/** Replace message `index` (a reply whose tool arguments `beforeToolCall` revised, rule T4). */
	revise(index: number, message: AgentMessage): void;
	/** Close the file; appending afterwards throws. Calling it again does nothing. */
	close(): void;
}

/** Options of {@link createSessionFile}. */
export interface CreateSessionOptions {
	/** The working directory the session belongs to. */
	cwd: string;
	/** Where the file goes (default `<cwd>/.capstan/sessions`); created when missing. */
	dir?: string;
	/** The model; only `provider`, `id` and `api` are written, never options, headers or keys. */
	model: SessionModel;
	/** Default: this capstan's version. */
	capstanVersion?: string;
	/** Clock for `createdAt` and the file name (default `Date.now`). */
	now?: () => number;
}

/** The default session folder of a working directory. */
export function defaultSessionDir(cwd: string): string {
	return join(resolve(cwd), ".capstan", "sessions");
}

/** Start a new session file with its header line written; named `<time>_<id>.jsonl` so names sort by age. */
export function createSessionFile(options: CreateSessionOptions): SessionFile {
	const dir = options.dir ?? defaultSessionDir(options.cwd);
	mkdirSync(dir, { recursive: true });
	const createdAt = new Date((options.now ?? Date.now)()).toISOString();
	const id = randomUUID();
	const header: SessionHeader = {
		type: "capstan-session",
		version: SESSION_FORMAT_VERSION,
		id,
		createdAt,
		cwd: resolve(options.cwd),
		model: { provider: options.model.provider, id: options.model.id, api: options.model.api },
		capstanVersion: options.capstanVersion ?? CAPSTAN_VERSION,
	};
	const path = join(dir, `${createdAt.replace(/[:.]/g, "-")}_${id.slice(0, 8)}.jsonl`);
	// Owner-only: a transcript holds whatever the user and the tools put into it.
	const fd = openSync(path, "wx", 0o600);
	const line = `${JSON.stringify(header)}\n`;
	try {
		writeSync(fd, line);
	} catch (error) {
		closeSync(fd);
		// Left empty or torn, it would be the newest session, which `--continue` refuses to go on from.
		rmSync(path, { force: true });
		throw error;
	}
	return new AppendingSessionFile(path, header, fd, 0, Buffer.byteLength(line));
}

/**
 * Open an existing session to append to it (`--resume`, `--continue`). A torn last line from a crash is cut
 * off first, so the next entry starts on a line of its own; a file that ends in a whole line is not touched.
 * A session has one writer: nothing here stops another process from appending to the same file, and the two
 * conversations would interleave, so open a session only when no other process records it. Refuses a file
 * whose transcript {@link loadSession} had to repair (`repaired`): the file no longer reads back as the
 * loaded messages, and entries appended after it would not continue them; go on in a new file.
 */
export function openSessionFile(path: string): SessionFile {
	const parsed = parseSession(path);
	if (parsed.repaired) {
		throw new SessionFormatError(
			path,
			"lost lines left tool calls and results unpaired, so it no longer reads back as the transcript loadSession repaired; record the conversation in a new session file instead.",
		);
	}
	const fd = openSync(path, "r+");
	try {
		// Only a torn line is cut: a line another writer appended since the file was read is left alone.
		if (parsed.completeBytes < parsed.totalBytes) ftruncateSync(fd, parsed.completeBytes);
		closeSync(fd);
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	const appendFd = openSync(path, "a");
	const file = new AppendingSessionFile(
		path,
		parsed.header,
		appendFd,
		parsed.messages.length,
		parsed.completeBytes,
		parsed.messages.at(-1),
	);
	if (parsed.missingFinalNewline) {
		try {
			file.writeLine("\n");
		} catch (error) {
			// The caller gets no file to close: its descriptor would stay open for the life of the process.
			file.close();
			const cause = (error as Error).cause ?? error;
			throw new Error(
				`Cannot open session ${visible(path)} to append to it: its last line has no newline, and writing one failed (${(cause as Error).message}). The file is unchanged.`,
				{ cause },
			);
		}
	}
	return file;
}

class AppendingSessionFile implements SessionFile {
	private fd: number | undefined;
	/** Why the file stopped taking entries, once a write failed. */
	private failure: Error | undefined;

	constructor(
		readonly path: string,
		readonly header: SessionHeader,
		fd: number,
		public messageCount: number,
		/** The file's length in bytes: where a failed entry is cut back to. */
		private size: number,
		public lastMessage: AgentMessage | undefined = undefined,
	) {
		this.fd = fd;
	}

	append(message: AgentMessage): void {
		this.write({ type: "message", message });
		this.messageCount++;
		this.lastMessage = message;
	}

	revise(index: number, message: AgentMessage): void {
		if (!Number.isInteger(index) || index < 0 || index >= this.messageCount) {
			throw new RangeError(`Cannot revise message ${index}: the session has ${this.messageCount} messages.`);
		}
		this.write({ type: "revision", index, message });
		if (index === this.messageCount - 1) this.lastMessage = message;
	}

	close(): void {
		if (this.fd === undefined) return;
		closeSync(this.fd);
		this.fd = undefined;
	}

	/** One `writeSync` per entry: the line reaches the kernel before the event that caused it is shown. */
	private write(entry: SessionEntry): void {
		this.writeLine(`${JSON.stringify(entry)}\n`);
	}

	/** Write a whole line or nothing: a failed or short write is cut back off and ends the file's writing. */
	writeLine(line: string): void {
		if (this.failure) throw this.failure;
		if (this.fd === undefined) throw new Error(`Session ${visible(this.path)} is closed.`);
		const bytes = Buffer.from(line);
		let written = 0;
		try {
			while (written < bytes.length) written += writeSync(this.fd, bytes, written);
			this.size += bytes.length;
		} catch (error) {
			try {
				ftruncateSync(this.fd, this.size);
			} catch {
				// The torn line stays; loading the file cuts a torn last line off (openSessionFile, parseSession).
			}
			this.failure = new Error(
				`Session ${visible(this.path)} can no longer be written (${(error as Error).message}); it holds the conversation's first ${this.messageCount} messages, and nothing after them is recorded.`,
				{ cause: error },
			);
			throw this.failure;
		}
	}
}
