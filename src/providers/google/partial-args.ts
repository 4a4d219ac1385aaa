/**
 * Assembly of Vertex `streamFunctionCallArguments` fragments: each `PartialArg` names a JSON path
 * (`$.a.b[0]`, `$['odd key']`) and one typed value; a string value with `willContinue` is continued by the
 * next fragment for the same path. Work per fragment is proportional to its path and value (linear overall).
 */
import type { PartialArg } from "@google/genai";

/** Arguments being assembled for one streamed call. */
export interface PartialArgsState {
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

function setAt(root: Record<string, unknown>, segments: Segment[], value: unknown): void {
	let node = root as Record<string | number, unknown>;
	for (let i = 0; i < segments.length - 1; i++) {
		const segment = segments[i] as Segment;
		let next = node[segment];
		if (next === null || typeof next !== "object") {
			next = typeof segments[i + 1] === "number" ? [] : {};
			node[segment] = next;
		}
		node = next as Record<string | number, unknown>;
	}
	node[segments[segments.length - 1] as Segment] = value;
}
