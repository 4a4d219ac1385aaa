import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats, statSync } from "node:fs";
import type { AgentMessage } from "../core/messages.js";
import { repairPairing } from "../loop/pairing.js";
import { SESSION_FORMAT_VERSION, SessionFormatError, type SessionHeader, visible } from "./format.js";

/** A session read back: the header, the transcript with revisions applied, and what was skipped and why. */
export interface LoadedSession {
	/** The file's header, validated. */
	header: SessionHeader;
	/** The transcript, revisions applied and pairing repaired where a line was lost. */
	messages: AgentMessage[];
	/**
	 * Lines that were dropped (a torn last line after a crash, a corrupt line), and the tool results dropped or
	 * added to pair the transcript again, each with its line number.
	 */
	warnings: string[];
	/**
	 * True when a lost line left tool calls and results unpaired and `messages` was repaired (rule I1): the
	 * file no longer reads back as the transcript, so {@link openSessionFile} refuses to append to it; go on
	 * in a new file ({@link recordSession} writes the loaded messages into it first).
	 */
	repaired: boolean;
}

/** The parsed file before it becomes a transcript; {@link openSessionFile} also needs where complete lines end. */
export interface ParsedSession extends LoadedSession {
	/** Byte length of the file up to and including the last complete line's newline. */
	completeBytes: number;
	/** True when the last line was complete JSON but had no newline (nothing lost; a writer must add one). */
	missingFinalNewline: boolean;
	/** Byte length of the whole file as read, a torn last line included. */
	totalBytes: number;
}

/**
 * Read a session file. Validates the header (refusing a format from a newer capstan with a clear error),
 * applies revisions, skips unknown entry types, and tolerates a torn last line — a crash mid-write drops
 * only that line, with a warning. Every complete line is kept. A damaged line that held an assistant reply
 * or a tool result would leave calls and results unpaired, which no provider accepts (rule I1, I5): a
 * result whose call is gone is dropped, and a call whose result is gone gets a `lost` placeholder result,
 * each with a warning. A last batch with no damaged line after it is left to run (rule L6): the process
 * died before its results were written. A path that is not a regular file (a named pipe, a device) is refused
 * before anything is read from it, with a {@link SessionFormatError}: reading a named pipe would wait for a writer.
 */
export function loadSession(path: string): LoadedSession {
	const { header, messages, warnings, repaired } = parseSession(path);
	return { header, messages, warnings, repaired };
}

/**
 * The bytes of the session file at `path`, refusing with a {@link SessionFormatError} one that is neither a file
 * nor a folder (a named pipe, a socket, a device): reading a named pipe waits for a writer, forever when none
 * comes, and a device such as `/dev/zero` never ends. The file is opened without blocking (a named pipe's open
 * would wait for a writer too) and what was opened is checked, so a file swapped for a pipe after a check
 * cannot block the read. A folder is left to fail as `EISDIR`, and a missing path as `ENOENT`.
 */
function readSessionBytes(path: string): Buffer {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		// A socket cannot be opened at all (ENXIO): say what it is, as for the others.
		if ((error as NodeJS.ErrnoException).code === "ENXIO") refuseSpecial(path, statSync(path));
		throw error;
	}
	try {
		refuseSpecial(path, fstatSync(fd));
		return readFileSync(fd);
	} finally {
		closeSync(fd);
	}
}

function refuseSpecial(path: string, stats: Stats): void {
	if (stats.isFile() || stats.isDirectory()) return;
	const kind = stats.isFIFO() ? "a named pipe" : stats.isSocket() ? "a socket" : "a device";
	throw new SessionFormatError(path, `not a regular file (${kind}).`);
}

/** {@link loadSession} plus where the complete lines end. */
export function parseSession(path: string): ParsedSession {
	const bytes = readSessionBytes(path);
	const text = bytes.toString("utf8");
	const lines = text.split("\n");
	const endsWithNewline = text.endsWith("\n");
	// With a trailing newline the last element is "", not a line.
	if (endsWithNewline) lines.pop();
	// A byte order mark an editor added is not part of the header's JSON.
	const header = readHeader(path, lines[0]?.replace(/^\uFEFF/, ""));
	const messages: AgentMessage[] = [];
	const warnings: string[] = [];
	/** The line number of each message, for the repair's warnings. */
	const lineOf: number[] = [];
	/** How many messages came before the last damaged line: a message it held is missing there. */
	let lostAt: number | undefined;
	let completeBytes = 0;
	let missingFinalNewline = false;
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i]!;
		const hasNewline = i < lines.length - 1 || endsWithNewline;
		if (i > 0) {
			const entry = parseLine(line);
			if (entry === undefined && !hasNewline) {
				warnings.push(`line ${i + 1}: incomplete last line dropped (the session was cut off mid-write)`);
				break;
			}
			const count = messages.length;
			if (entry === undefined) {
				warnings.push(`line ${i + 1}: not valid JSON, skipped`);
				lostAt = count;
			} else if (applyEntry(entry, messages, warnings, i + 1) === "missing") lostAt = count;
			if (messages.length > count) lineOf.push(i + 1);
		}
		// In the file's bytes: a corrupt line's invalid UTF-8 decodes to U+FFFD, which is longer.
		completeBytes = hasNewline ? bytes.indexOf(0x0a, completeBytes) + 1 : bytes.length;
		if (!hasNewline) missingFinalNewline = true;
	}
	const paired = pairedTranscript(migrateMessages(header, messages), lineOf, lostAt, warnings);
	return {
		header,
		messages: paired.messages,
		// A warning quotes the file (a tool call's name, a revision's index): no terminal escape reaches a screen.
		warnings: warnings.map(visible),
		repaired: paired.repaired,
		completeBytes,
		missingFinalNewline,
		totalBytes: bytes.length,
	};
}

/**
 * Rule I1/I5: the transcript with calls and results paired again after a damaged line, each change a warning
 * naming the line of the message concerned. A last batch is left to run unless a damaged line follows it: then
 * its missing results were written and lost, and running the calls again could repeat what they did.
 */
function pairedTranscript(
	messages: AgentMessage[],
	lineOf: readonly number[],
	lostAt: number | undefined,
	warnings: string[],
): { messages: AgentMessage[]; repaired: boolean } {
	const repair = repairPairing(messages, {
		resumeLastBatch: lostAt === undefined || lostAt <= lastAssistantIndex(messages),
	});
	for (const { index, toolCallId } of repair.dropped)
		warnings.push(
			`line ${lineOf[index]}: result of tool call ${JSON.stringify(toolCallId)} dropped: no call before it awaits it (a provider refuses a result without its call)`,
		);
	for (const { index, call } of repair.placeholders)
		warnings.push(
			`line ${lineOf[index]}: tool call ${JSON.stringify(call.id)} of ${JSON.stringify(call.name)} has no result in the file; a placeholder result says it was lost`,
		);
	return { messages: repair.messages, repaired: repair.dropped.length > 0 || repair.placeholders.length > 0 };
}

function lastAssistantIndex(messages: readonly AgentMessage[]): number {
	return messages.findLastIndex((message) => (message as { role?: unknown }).role === "assistant");
}

function readHeader(path: string, line: string | undefined): SessionHeader {
	if (line === undefined || line.trim() === "") throw new SessionFormatError(path, "the file is empty.");
	const value = parseLine(line) as Partial<SessionHeader> | undefined;
	if (value?.type !== "capstan-session") {
		throw new SessionFormatError(path, "the first line is not a capstan session header.");
	}
	if (typeof value.version !== "number" || !Number.isInteger(value.version) || value.version < 1) {
		throw new SessionFormatError(
			path,
			`the header has no valid format version (${JSON.stringify(value.version)}).`,
		);
	}
	if (value.version > SESSION_FORMAT_VERSION) {
		throw new SessionFormatError(
			path,
			`it was written by a newer capstan (${typeof value.capstanVersion === "string" ? value.capstanVersion : "unknown version"}, format ${value.version}); ` +
				`this capstan reads formats up to ${SESSION_FORMAT_VERSION}. Upgrade capstan to resume it.`,
		);
	}
	const model = value.model as Partial<SessionHeader["model"]> | undefined;
	if (typeof model?.provider !== "string" || typeof model.id !== "string" || typeof model.api !== "string") {
		throw new SessionFormatError(path, "the header names no model (provider, id, api).");
	}
	if (typeof value.cwd !== "string" || typeof value.id !== "string") {
		throw new SessionFormatError(path, "the header lacks its id or cwd.");
	}
	return value as SessionHeader;
}

function parseLine(line: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(line);
		return isObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/** Apply one entry; `"missing"` when it was a message entry whose message is not there (a lost message). */
function applyEntry(
	entry: Record<string, unknown>,
	messages: AgentMessage[],
	warnings: string[],
	lineNo: number,
): "missing" | undefined {
	const message = isObject(entry.message) ? (entry.message as unknown as AgentMessage) : undefined;
	const flaw = message && malformation(message);
	if (flaw) {
		warnings.push(`line ${lineNo}: ${flaw}, skipped`);
		return entry.type === "message" ? "missing" : undefined;
	}
	if (entry.type === "message") {
		if (message) messages.push(message);
		else {
			warnings.push(`line ${lineNo}: message entry without a message, skipped`);
			return "missing";
		}
	} else if (entry.type === "revision") {
		const index = entry.index;
		if (!message) warnings.push(`line ${lineNo}: revision entry without a message, skipped`);
		else if (Number.isInteger(index) && (index as number) >= 0 && (index as number) < messages.length) {
			messages[index as number] = message;
		} else {
			warnings.push(
				`line ${lineNo}: revision of message ${String(index)} which the file does not have, skipped`,
			);
		}
	}
	// Any other type comes from a later capstan: skipped by design (see SessionEntry).
	return undefined;
}

/**
 * What keeps a message of one of the loop's own roles from being read the way the loop reads it (the fields
 * pairing and the providers use), or undefined. Other roles are the host's own messages, not checked here.
 */
function malformation(message: AgentMessage): string | undefined {
	const { role, content } = message as { role?: unknown; content?: unknown };
	if (typeof role !== "string") return "a message without a role";
	if (role === "user")
		return typeof content === "string" || Array.isArray(content)
			? undefined
			: "a user message without its content";
	if (role !== "assistant" && role !== "toolResult") return undefined;
	const article = role === "assistant" ? "an" : "a";
	if (!Array.isArray(content) || !content.every(isObject))
		return `${article} ${role} message without its content array`;
	if (role === "toolResult") {
		const { toolCallId } = message as { toolCallId?: unknown };
		return typeof toolCallId === "string" ? undefined : "a toolResult message without its toolCallId";
	}
	const calls = content.filter((block) => block.type === "toolCall");
	return calls.every((call) => typeof call.id === "string" && typeof call.name === "string")
		? undefined
		: "an assistant message with a tool call without its id or name";
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Version 1 is the only format so far; older formats would be brought up to date here. */
function migrateMessages(_header: SessionHeader, messages: AgentMessage[]): AgentMessage[] {
	return messages;
}
