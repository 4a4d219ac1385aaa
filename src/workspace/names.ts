import { isUtf8 } from "node:buffer";
import { join } from "node:path";

/**
 * A path with a name in it that is not valid UTF-8 (a Latin-1 `café.txt` from an old archive): `shown` is the
 * text the model sees, each such name in its escape form ({@link escapeName}), and `bytes` the real path, the
 * one that opens the file. Node's text for such a name has U+FFFD where the bad bytes were, and opens nothing.
 */
export interface BytesPath {
	/** The absolute path as shown, its names that are not UTF-8 in their escape form. */
	readonly shown: string;
	/** The absolute path's real bytes. */
	readonly bytes: Buffer;
}

/** A path the workspace tools work on: an ordinary string, or, for a name that is not UTF-8, a {@link BytesPath}. */
export type ToolPath = string | BytesPath;

/** The path as shown to the model. */
export function shownPath(path: ToolPath): string {
	return typeof path === "string" ? path : path.shown;
}

/** The path to hand the file system. */
export function realPath(path: ToolPath): string | Buffer {
	return typeof path === "string" ? path : path.bytes;
}

const SLASH = Buffer.from("/");

/** The path of `name` in the folder `dir`, kept as bytes when either is. */
export function childPath(dir: ToolPath, name: string, nameBytes?: Buffer): ToolPath {
	const shown = join(shownPath(dir), name);
	if (typeof dir === "string" && nameBytes === undefined) return shown;
	const parent = typeof dir === "string" ? Buffer.from(dir) : dir.bytes;
	return { shown, bytes: Buffer.concat([parent, SLASH, nameBytes ?? Buffer.from(name)]) };
}

/** The length of the valid UTF-8 sequence at `bytes[i]`, or 0 when the byte there starts none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
	const first = bytes[i] as number;
	if (first < 0x80) return 1;
	const within = (at: number, low = 0x80, high = 0xbf) => {
		const byte = bytes[at];
		return byte !== undefined && byte >= low && byte <= high;
	};
	if (first >= 0xc2 && first <= 0xdf) return within(i + 1) ? 2 : 0;
	if (first >= 0xe0 && first <= 0xef) {
		// No overlong form (E0 80..9F) and no surrogate (ED A0..BF).
		const low = first === 0xe0 ? 0xa0 : 0x80;
		const high = first === 0xed ? 0x9f : 0xbf;
		return within(i + 1, low, high) && within(i + 2) ? 3 : 0;
	}
	if (first >= 0xf0 && first <= 0xf4) {
		// No overlong form (F0 80..8F) and nothing past U+10FFFF (F4 90..).
		const low = first === 0xf0 ? 0x90 : 0x80;
		const high = first === 0xf4 ? 0x8f : 0xbf;
		return within(i + 1, low, high) && within(i + 2) && within(i + 3) ? 4 : 0;
	}
	return 0;
}

const hex = (byte: number): string => `\\x${byte.toString(16).toUpperCase().padStart(2, "0")}`;

/**
 * One file name's text. A valid UTF-8 name is its text. A name that is not is written in its escape form: the
 * UTF-8 parts as text, each byte that is not part of one as `\xHH` (`caf\xE9.txt`), a control character the
 * same way (`\x0A`), and a backslash doubled (`\\`), so that {@link unescapeName} gives the bytes back exactly.
 */
export function escapeName(bytes: Uint8Array): string {
	const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
	if (isUtf8(buffer)) return buffer.toString("utf8");
	let text = "";
	for (let i = 0; i < bytes.length; ) {
		const length = sequenceLength(bytes, i);
		const byte = bytes[i] as number;
		if (length === 0 || byte < 0x20 || byte === 0x7f) text += hex(byte);
		else if (byte === 0x5c) text += "\\\\";
		else text += buffer.toString("utf8", i, i + length);
		i += length || 1;
	}
	return text;
}

/** Whether a path the model gave has an escape of {@link escapeName} in it: `\xHH`. */
export function hasByteEscape(text: string): boolean {
	return /\\x[0-9A-Fa-f]{2}/.test(text);
}

/** The bytes a path in escape form stands for: `\xHH` is that byte, `\\` a backslash, the rest UTF-8. */
export function unescapeName(text: string): Buffer {
	const parts: Buffer[] = [];
	let last = 0;
	for (const match of text.matchAll(/\\(\\|x[0-9A-Fa-f]{2})/g)) {
		parts.push(Buffer.from(text.slice(last, match.index)));
		const code = match[1] as string;
		parts.push(Buffer.from([code === "\\" ? 0x5c : Number.parseInt(code.slice(1), 16)]));
		last = (match.index as number) + match[0].length;
	}
	parts.push(Buffer.from(text.slice(last)));
	return Buffer.concat(parts);
}

/** A relative path of bytes as text, each of its names as {@link escapeName} writes it. */
export function escapeRelative(bytes: Buffer): string {
	const names: string[] = [];
	let start = 0;
	for (;;) {
		const slash = bytes.indexOf(0x2f, start);
		names.push(escapeName(bytes.subarray(start, slash === -1 ? bytes.length : slash)));
		if (slash === -1) return names.join("/");
		start = slash + 1;
	}
}

/** What the read tools' descriptions say about names that are not UTF-8. */
export const NON_UTF8_NAMES =
	"A file name that is not valid UTF-8 is written with each bad byte as \\xHH (caf\\xE9.txt) and its " +
	"backslashes doubled; read_file, list_dir and search_text accept it written so, write_file and edit_file refuse it.";
