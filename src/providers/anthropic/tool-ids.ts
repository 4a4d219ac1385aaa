/**
 * Tool-call ids Anthropic accepts (rule C4): `^[a-zA-Z0-9_-]+$`, at most 64 characters. Ids from other
 * providers (OpenAI `call_…|fc_…`, Gemini names, anything with dots or pipes) are rewritten deterministically,
 * so a call and its result — converted separately — always get the same id.
 */

import { safeCallId } from "../base/call-id.js";

/** The id to send for `id`: unchanged when valid, else sanitized and suffixed with a short hash. */
export function anthropicToolCallId(id: string): string {
	return safeCallId(id);
}
