/**
 * Tool-call ids rewritten to what a Chat Completions server accepts (rule C4). The rewrite is a pure function
 * of the id, so a call and its result — converted separately — always get the same wire id, and a valid id
 * passes through unchanged.
 */
import { fnv1a, fnv1aHex } from "../../core/fnv1a.js";
import type { ToolCallIdFormat } from "./compat.js";

const OPENAI_ID = /^[a-zA-Z0-9_-]{1,40}$/;
const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;
const ALPHANUMERIC = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** The id to send for `id` under `format`. */
export function wireToolCallId(id: string, format: ToolCallIdFormat): string {
	switch (format) {
		case "passthrough":
			return id;
		case "openai":
			if (OPENAI_ID.test(id)) return id;
			return `${id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 31)}_${fnv1aHex(id)}`;
		case "mistral9":
			return MISTRAL_ID.test(id) ? id : alphanumericDigest(id, 9);
	}
}

/** `length` characters of `[0-9a-zA-Z]` derived from two independent FNV-1a hashes of `text`. */
function alphanumericDigest(text: string, length: number): string {
	let a = fnv1a(text);
	let b = fnv1a(text, 0x01000193 ^ 0x9e3779b9);
	let out = "";
	for (let i = 0; i < length; i++) {
		const source = i % 2 === 0 ? a : b;
		out += ALPHANUMERIC[source % 62];
		if (i % 2 === 0) a = Math.floor(a / 62) ^ Math.imul(a, 31);
		else b = Math.floor(b / 62) ^ Math.imul(b, 37);
		a >>>= 0;
		b >>>= 0;
	}
	return out;
}
