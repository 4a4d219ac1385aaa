/**
 * `capstan/sessions`: transcripts as append-only JSONL files — a header line, then one entry per line,
 * written the moment each message ends — and the loader that reads them back for resuming (rule L6, Q4).
 */
export {
	type CreateSessionOptions,
	createSessionFile,
	defaultSessionDir,
	openSessionFile,
	type SessionFile,
} from "./file.js";
export {
	CAPSTAN_VERSION,
	type MessageEntry,
	type RevisionEntry,
	SESSION_FORMAT_VERSION,
	type SessionEntry,
	SessionFormatError,
	type SessionHeader,
	type SessionModel,
} from "./format.js";
export { latestSession, listSessions, PREVIEW_CHARS, type SessionSummary } from "./list.js";
export { type LoadedSession, loadSession } from "./load.js";
export { type RecordSessionOptions, recordSession } from "./record.js";
