/**
 * FNV-1a over a string's UTF-16 code units, 32 bits: the short, stable digest the providers and the MCP
 * bridge append to a name or id they had to cut or rewrite, so two rewritten ones stay apart. Not for
 * anything that needs resistance to a chosen collision.
 */

/** The 32-bit FNV-1a of `text`; `seed` replaces the standard offset basis (for a second, independent hash). */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
	let value = seed >>> 0;
	for (let i = 0; i < text.length; i++) {
		value ^= text.charCodeAt(i);
		value = Math.imul(value, 0x01000193) >>> 0;
	}
	return value;
}

/** {@link fnv1a} as 8 hex digits. */
export function fnv1aHex(text: string): string {
	return fnv1a(text).toString(16).padStart(8, "0");
}
