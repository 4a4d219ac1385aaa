/**
 * Tool-call ids for the APIs that take `^[a-zA-Z0-9_-]{1,64}$` (Anthropic's `tool_use_id`, the Responses
 * API's `call_id`; rule C4). Ids from other providers (OpenAI `call_…|fc_…`, Gemini names, anything with
 * dots or pipes) are rewritten deterministically, so a call and its result — converted separately — always
 * get the same id. Each provider exports it under its own name.
 */

import { fnv1aHex } from "../../core/fnv1a.js";

const VALID_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** The id to send for `id`: unchanged when valid, else sanitized, cut to 55 characters and suffixed with a hash. */
export function safeCallId(id: string): string {
	if (VALID_ID.test(id)) return id;
	const sanitized = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 55);
	return `${sanitized}_${fnv1aHex(id)}`;
}
