/**
 * Tool-call ids Anthropic accepts (rule C4): `^[a-zA-Z0-9_-]+$`, at most 64 characters. Ids from other
 * providers (OpenAI `call_…|fc_…`, Gemini names, anything with dots or pipes) are rewritten deterministically,
 * so a call and its result — converted separately — always get the same id.
 */

const VALID_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** The id to send for `id`: unchanged when valid, else sanitized and suffixed with a short hash. */
export function anthropicToolCallId(id: string): string {
	if (VALID_ID.test(id)) return id;
	const sanitized = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 55);
	return `${sanitized}_${hash(id)}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: enough to keep two rewritten ids of one conversation apart. */
function hash(text: string): string {
	let value = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		value ^= text.charCodeAt(i);
		value = Math.imul(value, 0x01000193) >>> 0;
	}
	return value.toString(16).padStart(8, "0");
}
