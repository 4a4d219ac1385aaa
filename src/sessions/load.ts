import { readFileSync } from "node:fs";
import type { AgentMessage } from "../core/messages.js";
import { SESSION_FORMAT_VERSION, SessionFormatError, type SessionHeader } from "./format.js";

/** A session read back: the header, the transcript with revisions applied, and what was skipped and why. */
export interface LoadedSession {
	header: SessionHeader;
	messages: AgentMessage[];
	/** Lines that were dropped (a torn last line after a crash, a corrupt line), each with its line number. */
	warnings: string[];
}

/** The parsed file before it becomes a transcript; {@link openSessionFile} also needs where complete lines end. */
export interface ParsedSession extends LoadedSession {
	/** Byte length of the file up to and including the last complete line's newline. */
	completeBytes: number;
	/** True when the last line was complete JSON but had no newline (nothing lost; a writer must add one). */
	missingFinalNewline: boolean;
}

/**
 * Read a session file. Validates the header (refusing a format from a newer capstan with a clear error),
 * applies revisions, skips unknown entry types, and tolerates a torn last line — a crash mid-write drops
 * only that line, with a warning. Every complete line is kept.
 */
export function loadSession(path: string): LoadedSession {
	const { header, messages, warnings } = parseSession(path);
	return { header, messages, warnings };
}

/** {@link loadSession} plus where the complete lines end. */
export function parseSession(path: string): ParsedSession {
	const bytes = readFileSync(path);
	const text = bytes.toString("utf8");
	const lines = text.split("\n");
	const endsWithNewline = text.endsWith("\n");
	// With a trailing newline the last element is "", not a line.
	if (endsWithNewline) lines.pop();
	// A byte order mark an editor added is not part of the header's JSON.
	const header = readHeader(path, lines[0]?.replace(/^\uFEFF/, ""));
	const messages: AgentMessage[] = [];
	const warnings: string[] = [];
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
			if (entry === undefined) warnings.push(`line ${i + 1}: not valid JSON, skipped`);
			else applyEntry(entry, messages, warnings, i + 1);
		}
		// In the file's bytes: a corrupt line's invalid UTF-8 decodes to U+FFFD, which is longer.
		completeBytes = hasNewline ? bytes.indexOf(0x0a, completeBytes) + 1 : bytes.length;
		if (!hasNewline) missingFinalNewline = true;
	}
	return {
		header,
		messages: migrateMessages(header, messages),
		warnings,
		completeBytes,
		missingFinalNewline,
	};
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
			`it was written by a newer capstan (${value.capstanVersion ?? "unknown version"}, format ${value.version}); ` +
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

function applyEntry(
	entry: Record<string, unknown>,
	messages: AgentMessage[],
	warnings: string[],
	lineNo: number,
) {
	const message = isObject(entry.message) ? (entry.message as unknown as AgentMessage) : undefined;
	if (entry.type === "message") {
		if (message) messages.push(message);
		else warnings.push(`line ${lineNo}: message entry without a message, skipped`);
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
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Version 1 is the only format so far; older formats would be brought up to date here. */
function migrateMessages(_header: SessionHeader, messages: AgentMessage[]): AgentMessage[] {
	return messages;
}
