/**
 * Rule T9: turn whatever a tool returned into a well-formed result before it reaches the transcript or an
 * event. Tools are host code and may be written in plain JavaScript, so nothing about the shape is trusted.
 * Applied to results, `onUpdate` partials and results patched by `afterToolCall`: the single entry where tool
 * output enters the transcript, so it is also where that output becomes plain JSON (rule M6, I5).
 */
import { errorText } from "../core/abort.js";
import type { ImageContent, TextContent, UserContent } from "../core/messages.js";
import { toPlainJson } from "../core/plain-json.js";

/** A result after coercion: always a content array and an explicit error flag. */
export interface CoercedToolResult {
	content: UserContent[];
	details?: unknown;
	isError: boolean;
}

/** Text of an error result that carried no substantive content (some providers reject empty error results). */
export const EMPTY_ERROR_TEXT = "The tool failed with no output.";

/**
 * Coerce a raw tool result (rule T9). A value without a `content` array becomes an error result saying the
 * tool returned an invalid result; blocks other than text and image are dropped and counted in an appended
 * note, which makes the result an error; an error result with no substantive content gets a short text.
 * `declaredError` forces the error flag (e.g. for a thrown error); the result's own `isError` is honoured
 * too. `details` becomes a plain JSON copy (`toPlainJson`: BigInt → string, cycles → `"[Circular]"`, functions
 * dropped, Dates → ISO strings, class instances → their data) and blocks keep only their own fields, so the
 * transcript always survives `JSON.stringify` and nothing the tool does to its objects later leaks in.
 * Never mutates `raw`; never throws; linear in the size of the result.
 */
export function coerceToolResult(raw: unknown, declaredError?: boolean): CoercedToolResult {
	const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : undefined;
	try {
		// A value JSON would drop entirely (a function, `undefined`) leaves no `details`.
		const details = record && "details" in record ? toPlainJson(record.details) : undefined;
		if (!record || !Array.isArray(record.content)) return invalidResult(raw, details);
		const content: UserContent[] = [];
		let dropped = 0;
		const blocks = record.content as unknown[];
		for (let i = 0; i < blocks.length; i++) {
			const block = blocks[i];
			if (isTextBlock(block)) content.push({ type: "text", text: block.text });
			else if (isImageBlock(block))
				content.push({ type: "image", data: block.data, mimeType: block.mimeType });
			else dropped++;
		}
		const isError = declaredError === true || record.isError === true || dropped > 0;
		return isError ? errorCoerced(content, details, dropped) : coerced(content, details, false);
	} catch (error) {
		// A getter that throws, a revoked proxy: the `onUpdate` a tool calls must not throw back at it.
		return coerced([{ type: "text", text: unreadableResultText(error) }], undefined, true);
	}
}

/**
 * An error result: the note on dropped blocks, and a short text when nothing substantive is left. Out of
 * `coerceToolResult`, so the code every result runs (and V8 compiles while the run goes on) stays small.
 */
function errorCoerced(content: UserContent[], details: unknown, dropped: number): CoercedToolResult {
	if (dropped > 0) content.push({ type: "text", text: droppedNote(dropped) });
	if (!hasSubstance(content)) return coerced([{ type: "text", text: EMPTY_ERROR_TEXT }], details, true);
	return coerced(content, details, true);
}

/**
 * A result with `details` only when there are any. Two literals, not a conditional spread: once per tool
 * result, mostly as cold code, where V8's object spread is slow. Same keys in the same order either way.
 */
export function coerced(content: UserContent[], details: unknown, isError: boolean): CoercedToolResult {
	return details === undefined ? { content, isError } : { content, details, isError };
}

function invalidResult(raw: unknown, details: unknown): CoercedToolResult {
	return coerced([{ type: "text", text: invalidResultText(raw) }], details, true);
}

function invalidResultText(raw: unknown): string {
	const got = raw === null ? "null" : Array.isArray(raw) ? "an array" : typeof raw;
	return `The tool returned an invalid result (expected an object with a "content" array, got ${got}).`;
}

function unreadableResultText(error: unknown): string {
	return `The tool returned an invalid result (reading it threw: ${errorText(error)}).`;
}

function droppedNote(count: number): string {
	const blocks = count === 1 ? "1 unsupported content block was" : `${count} unsupported content blocks were`;
	return `[${blocks} dropped from this tool result: only text and image blocks are supported.]`;
}

function isTextBlock(block: unknown): block is TextContent {
	const candidate = block as Partial<TextContent> | null;
	return (
		typeof block === "object" &&
		candidate !== null &&
		candidate.type === "text" &&
		typeof candidate.text === "string"
	);
}

function isImageBlock(block: unknown): block is ImageContent {
	const candidate = block as Partial<ImageContent> | null;
	return (
		typeof block === "object" &&
		candidate !== null &&
		candidate.type === "image" &&
		typeof candidate.data === "string" &&
		candidate.data.length > 0 &&
		typeof candidate.mimeType === "string"
	);
}

function hasSubstance(content: readonly UserContent[]): boolean {
	return content.some((block) => block.type === "image" || block.text.trim().length > 0);
}
