import type { AgentMessage } from "../core/messages.js";

/** The session file format this capstan writes; {@link loadSession} reads it and every older one. */
export const SESSION_FORMAT_VERSION = 1;

/** The capstan version written into new session headers (kept equal to package.json by a test). */
export const CAPSTAN_VERSION = "0.1.0";

/** Which model a session was started with: names only, never options, headers or keys. */
export interface SessionModel {
	/** The model's `provider`. */
	provider: string;
	/** The model's `id`. */
	id: string;
	/** The model's wire `api`. */
	api: string;
}

/**
 * The first line of a session file: what a later capstan needs to read or migrate it. The rest of the file
 * is one {@link SessionEntry} per line.
 */
export interface SessionHeader {
	/** Marks the file as a capstan session. */
	type: "capstan-session";
	/** The file's format version ({@link SESSION_FORMAT_VERSION} when this capstan wrote it). */
	version: number;
	/** Random id, also part of the file name. */
	id: string;
	/** ISO 8601 time the session started. */
	createdAt: string;
	/** The working directory the session ran in. */
	cwd: string;
	/** The model the session started with. */
	model: SessionModel;
	/** The capstan version that created the file. */
	capstanVersion: string;
}

/** One transcript message, appended when its `message_end` fired. */
export interface MessageEntry {
	/** Entry discriminator. */
	type: "message";
	/** The message, as the event carried it. */
	message: AgentMessage;
}

/**
 * A `beforeToolCall` hook revised the arguments of a reply already written (rule T4): the message at `index`
 * (0-based among the file's messages) is replaced by this one, as the Agent replaced it in its transcript.
 */
export interface RevisionEntry {
	/** Entry discriminator. */
	type: "revision";
	/** The 0-based position, among the file's messages, of the message replaced. */
	index: number;
	/** The revised message. */
	message: AgentMessage;
}

/**
 * A line after the header. Readers skip entry types they do not know, so a later capstan may add some
 * (a title, a model switch) without breaking older readers.
 */
export type SessionEntry = MessageEntry | RevisionEntry;

/**
 * A session file that cannot be read: not a session, a broken header, a format from a newer capstan, or not a
 * regular file at all (a named pipe, a device). The message quotes the file (its name, its header's
 * `capstanVersion`) with control and format characters as `\uXXXX` escapes, so printing it cannot send a
 * crafted file's escape sequences to a terminal.
 */
export class SessionFormatError extends Error {
	/** Always `"SessionFormatError"`. */
	override readonly name = "SessionFormatError";
	/** The file. */
	readonly path: string;

	constructor(path: string, problem: string) {
		// The path and the problem quote the file (a header field, its name): a crafted one must not reach a
		// terminal as commands.
		super(visible(`Cannot read session ${path}: ${problem}`));
		this.path = path;
	}
}

/**
 * `text` with its control and format characters — a terminal escape sequence, a bidi override, a line
 * separator — written as `\uXXXX` escapes, for an error or warning that quotes a file: it may be printed to a
 * terminal, which would run them as commands.
 */
export function visible(text: string): string {
	return text.replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, (char) => {
		const code = char.codePointAt(0) ?? 0;
		return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
	});
}
