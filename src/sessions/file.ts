import { randomUUID } from "node:crypto";
import { closeSync, ftruncateSync, openSync, rmSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { fnv1a } from "../core/fnv1a.js";
import { makeFolders } from "../core/make-folders.js";
import type { AgentMessage } from "../core/messages.js";
import {
	CAPSTAN_VERSION,
	type MessageEntry,
	type RevisionEntry,
	SESSION_FORMAT_VERSION,
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
	 * The index of the first of the file's messages (revisions applied) that `messages` does not hold at that
	 * index — it is shorter, or its message there is other JSON than the file's — or undefined when `messages`
	 * starts with every message of the file. {@link recordSession} asks it before writing, to refuse recording
	 * an agent into a file that holds another conversation, or this one edited. The files
	 * {@link createSessionFile} and {@link openSessionFile} return keep a 32-bit digest of each message's JSON:
	 * an append costs the one message, and this check one pass over `messages`. Optional for other
	 * implementations: without it only the counts are compared.
	 */
	firstDifference?(messages: readonly AgentMessage[]): number | undefined;
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
	makeFolders(dir);
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
	return new AppendingSessionFile(path, header, fd, [], Buffer.byteLength(line));
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
	const digests = parsed.messages.map((message) => fnv1a(JSON.stringify(message)));
	const file = new AppendingSessionFile(path, parsed.header, appendFd, digests, parsed.completeBytes);
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
		/** The FNV-1a of each of the file's messages' JSON, revisions applied: one per message. */
		private readonly digests: number[],
		/** The file's length in bytes: where a failed entry is cut back to. */
		private size: number,
	) {
		this.fd = fd;
	}

	get messageCount(): number {
		return this.digests.length;
	}

	append(message: AgentMessage): void {
		const json = JSON.stringify(message);
		this.writeLine(entryLine({ type: "message" }, json));
		this.digests.push(fnv1a(json));
	}

	revise(index: number, message: AgentMessage): void {
		if (!Number.isInteger(index) || index < 0 || index >= this.messageCount) {
			throw new RangeError(`Cannot revise message ${index}: the session has ${this.messageCount} messages.`);
		}
		const json = JSON.stringify(message);
		this.writeLine(entryLine({ type: "revision", index }, json));
		this.digests[index] = fnv1a(json);
	}

	firstDifference(messages: readonly AgentMessage[]): number | undefined {
		const digests = this.digests;
		for (let i = 0; i < digests.length; i++) {
			if (i >= messages.length || fnv1a(JSON.stringify(messages[i])) !== digests[i]) return i;
		}
		return undefined;
	}

	close(): void {
		if (this.fd === undefined) return;
		closeSync(this.fd);
		this.fd = undefined;
	}

	/**
	 * Write a whole line or nothing, in one `writeSync` (the line reaches the kernel before the event that
	 * caused it is shown): a failed or short write is cut back off and ends the file's writing.
	 */
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

/**
 * The line of an entry whose message is already serialized as `json` (the file's digest is taken of the same
 * text): what `JSON.stringify` makes of the whole entry, without serializing the message a second time.
 */
function entryLine(
	entry: Omit<MessageEntry, "message"> | Omit<RevisionEntry, "message">,
	json: string,
): string {
	return `${JSON.stringify(entry).slice(0, -1)},"message":${json}}\n`;
}
