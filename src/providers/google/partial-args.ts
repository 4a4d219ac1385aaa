/**
 * Assembly of Vertex `streamFunctionCallArguments` fragments: each `PartialArg` names a JSON path
 * (`$.a.b[0]`, `$['odd key']`) and one typed value; a string value with `willContinue` is continued by the
 * next fragment for the same path. Work per fragment is proportional to its path and value (linear overall).
 */
import type { PartialArg } from "./wire.js";

/** Arguments being assembled for one streamed call. */
export interface PartialArgsState {
	/** The arguments assembled so far. */
	args: Record<string, unknown>;
	/** Paths whose last string fragment said `willContinue`. */
	continuing: Set<string>;
}

/** A fresh assembly state. */
export function partialArgsState(): PartialArgsState {
	return { args: {}, continuing: new Set() };
}

/** Apply one fragment. Fragments without a readable path or value are ignored. */
export function applyPartialArg(state: PartialArgsState, arg: PartialArg): void {
	const path = arg.jsonPath;
	if (typeof path !== "string") return;
	const segments = parseJsonPath(path);
	if (!segments || segments.length === 0) return;
	let value: unknown;
	if (typeof arg.stringValue === "string") {
		const previous = state.continuing.has(path) ? getAt(state.args, segments) : undefined;
		value = typeof previous === "string" ? previous + arg.stringValue : arg.stringValue;
		if (arg.willContinue) state.continuing.add(path);
		else state.continuing.delete(path);
	} else if (typeof arg.numberValue === "number") value = arg.numberValue;
	else if (typeof arg.boolValue === "boolean") value = arg.boolValue;
	else if (arg.nullValue !== undefined) value = null;
	else return;
	setAt(state.args, segments, value);
}

type Segment = string | number;

/** `$.a.b[0]['c d']` → `["a", "b", 0, "c d"]`; `undefined` when unreadable. */
export function parseJsonPath(path: string): Segment[] | undefined {
	if (!path.startsWith("$")) return undefined;
	const segments: Segment[] = [];
	const pattern = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
	pattern.lastIndex = 1;
	while (pattern.lastIndex < path.length) {
		const match = pattern.exec(path);
		if (!match) return undefined;
		if (match[1] !== undefined) segments.push(match[1]);
		else if (match[2] !== undefined) segments.push(Number(match[2]));
		else segments.push((match[3] ?? match[4] ?? "").replace(/\\(.)/g, "$1"));
	}
	// Model-chosen keys must not reach object prototypes.
	if (segments.some((segment) => segment === "__proto__")) return undefined;
	return segments;
}

function getAt(root: Record<string, unknown>, segments: Segment[]): unknown {
	let node: unknown = root;
	for (const segment of segments) {
		if (node === null || typeof node !== "object") return undefined;
		node = (node as Record<string | number, unknown>)[segment];
	}
	return node;
}

/**
 * Set `value` at `segments`. An array index may point at an element or one past the last, never further: the
 * arguments grow element by element, and an index of 50,000,000 in one 60-byte fragment would otherwise make
 * an array as long (hundreds of megabytes of `null`s once serialized). Such a fragment is ignored.
 */
function setAt(root: Record<string, unknown>, segments: Segment[], value: unknown): void {
	let node = root as Record<string | number, unknown>;
	for (let i = 0; i < segments.length; i++) {
		const segment = segments[i] as Segment;
		if (Array.isArray(node) && typeof segment === "number" && segment > node.length) return;
		if (i === segments.length - 1) break;
		let next = node[segment];
		if (next === null || typeof next !== "object") {
			if (typeof segments[i + 1] === "number" && segments[i + 1] !== 0) return;
			next = typeof segments[i + 1] === "number" ? [] : {};
			node[segment] = next;
		}
		node = next as Record<string | number, unknown>;
	}
	node[segments[segments.length - 1] as Segment] = value;
}

/**
 * Best-effort JSON text for `toolcall_delta` (rule E4) while fragments arrive: exact for the common shape
 * (top-level keys, strings continued in order); on any other shape it stops writing and the call's final
 * arguments come from the assembled object alone. Each fragment writes only its own characters (linear).
 */
export class PartialArgsJsonWriter {
	private started = false;
	private openKey: string | undefined;
	private readonly written = new Set<string>();
	private gaveUp = false;

	/** The JSON text this fragment adds, or `""` when nothing can be written. */
	write(arg: PartialArg): string {
		if (this.gaveUp) return "";
		const key = topLevelKey(arg.jsonPath);
		if (key === undefined) return this.giveUp();
		const continuing = this.openKey === key;
		if (!continuing && this.written.has(key)) return this.giveUp();
		let out = "";
		if (!continuing) {
			out += this.closeString();
			out += `${this.started ? "," : "{"}${JSON.stringify(key)}:`;
			this.started = true;
			this.written.add(key);
		}
		if (typeof arg.stringValue === "string") {
			if (!continuing) out += '"';
			out += JSON.stringify(arg.stringValue).slice(1, -1);
			this.openKey = key;
			if (!arg.willContinue) out += this.closeString();
			return out;
		}
		if (continuing) return this.giveUp();
		if (typeof arg.numberValue === "number") return out + JSON.stringify(arg.numberValue);
		if (typeof arg.boolValue === "boolean") return out + JSON.stringify(arg.boolValue);
		if (arg.nullValue !== undefined) return `${out}null`;
		return this.giveUp();
	}

	/** True when the text written so far no longer follows the fragments. */
	get abandoned(): boolean {
		return this.gaveUp;
	}

	private closeString(): string {
		if (this.openKey === undefined) return "";
		this.openKey = undefined;
		return '"';
	}

	private giveUp(): string {
		this.gaveUp = true;
		return "";
	}
}

function topLevelKey(path: string | undefined): string | undefined {
	if (typeof path !== "string") return undefined;
	const segments = parseJsonPath(path);
	return segments?.length === 1 && typeof segments[0] === "string" ? segments[0] : undefined;
}
