/**
 * Tool-call ids Anthropic accepts (rule C4): `^[a-zA-Z0-9_-]+$`, at most 64 characters. Ids from other
 * providers (OpenAI `call_…|fc_…`, Gemini names, anything with dots or pipes) are rewritten deterministically,
 * so a call and its result — converted separately — always get the same id.
 */

import { fnv1aHex } from "../../core/fnv1a.js";

const VALID_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** The id to send for `id`: unchanged when valid, else sanitized and suffixed with a short hash. */
export function anthropicToolCallId(id: string): string {
	if (VALID_ID.test(id)) return id;
	const sanitized = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 55);
	return `${sanitized}_${fnv1aHex(id)}`;
}
