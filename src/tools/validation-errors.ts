/**
 * Rule T3: validation errors as lines a model can act on — each names a path (`root`, `/items/0/count`) and
 * what was expected there, and what was received when that helps (`must be integer (received string "5")`).
 */

/** At most this many error lines are reported; a model drowns in more, and the first ones matter most. */
const MAX_ERRORS = 20;

/** A zod issue, as much of it as capstan reads. */
export interface ZodIssueLike {
	path: PropertyKey[];
	message: string;
}

/**
 * One JSON Schema validation failure, in the shape the formatter reads (the validator's own errors are
 * mapped onto it in json-schema.ts). `params` carries what the line names: `missingProperty` (required),
 * `additionalProperty`, `allowedValues` (enum), `allowedValue` (const), `type` (comma-joined).
 */
export interface SchemaIssue {
	keyword: string;
	/** JSON pointer of the failing value; `""` is the root. */
	instancePath: string;
	/** Where in the schema the keyword sits; a union's branches extend its path with `/<index>/…`. */
	schemaPath: string;
	params: Record<string, unknown>;
	message?: string;
}

/** Format JSON Schema issues; `data` is the validated value (to say what was received). */
export function formatSchemaIssues(errors: readonly SchemaIssue[], data: unknown): string[] {
	const { merged, consumed } = mergeAlternatives(errors, data);
	const lines: string[] = [];
	for (const error of errors) {
		const line = merged.get(error) ?? (consumed.has(error) ? undefined : issueText(error, data));
		if (line !== undefined) lines.push(line);
	}
	return limit([...new Set(lines)]);
}

/** Format zod issues; `input` is what the model sent (to tell a missing key from a wrong value). */
export function formatZodIssues(issues: readonly ZodIssueLike[], input: unknown): string[] {
	return limit(issues.map((issue) => zodIssueText(issue, input)));
}

/** A short description of a received value: its JSON type, and the value itself when it is small. */
export function describeValue(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "array";
	if (typeof value === "string") return `string ${JSON.stringify(truncate(value, 40))}`;
	if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
	return typeof value;
}

/**
 * A failed `anyOf`/`oneOf` whose branches all failed on a type or a constant at the same path reads best as
 * one line (`/v: must be string or number`) instead of one line per branch plus "must match a schema in
 * anyOf". Branches with deeper failures are left as the validator reported them.
 */
function mergeAlternatives(
	errors: readonly SchemaIssue[],
	data: unknown,
): { merged: Map<SchemaIssue, string>; consumed: Set<SchemaIssue> } {
	const merged = new Map<SchemaIssue, string>();
	const consumed = new Set<SchemaIssue>();
	for (const union of errors) {
		if (union.keyword !== "anyOf" && union.keyword !== "oneOf") continue;
		const branches = errors.filter((error) => error.schemaPath.startsWith(`${union.schemaPath}/`));
		const simple = branches.every(
			(error) =>
				error.instancePath === union.instancePath && (error.keyword === "type" || error.keyword === "const"),
		);
		if (branches.length === 0 || !simple) continue;
		const expected = branches.map((error) => {
			const params = error.params;
			return error.keyword === "type" ? String(params.type) : JSON.stringify(params.allowedValue);
		});
		const received = describeValue(valueAt(data, union.instancePath));
		const alternatives = [...new Set(expected)].join(" or ");
		merged.set(union, `${pathText(union.instancePath)}: must be ${alternatives} (received ${received})`);
		for (const branch of branches) consumed.add(branch);
	}
	return { merged, consumed };
}

function issueText(error: SchemaIssue, data: unknown): string {
	const path = pathText(error.instancePath);
	const params = error.params;
	switch (error.keyword) {
		case "required":
			return `${path}: missing required property ${JSON.stringify(params.missingProperty)}`;
		case "additionalProperties":
			return `${path}: unexpected property ${JSON.stringify(params.additionalProperty)}`;
		case "enum":
			return `${path}: must be one of ${listValues(params.allowedValues)}`;
		case "const":
			return `${path}: must be equal to ${JSON.stringify(params.allowedValue)}`;
		case "type":
			return `${path}: must be ${String(params.type)} (received ${describeValue(valueAt(data, error.instancePath))})`;
		default:
			return `${path}: ${error.message ?? `fails "${error.keyword}"`}`;
	}
}

function zodIssueText(issue: ZodIssueLike, input: unknown): string {
	const parentPath = issue.path.slice(0, -1);
	const key = issue.path[issue.path.length - 1];
	const parent = valueAtPath(input, parentPath);
	// Zod reports a missing key as "expected string, received undefined"; say what actually went wrong.
	if (
		typeof key === "string" &&
		typeof parent === "object" &&
		parent !== null &&
		!Array.isArray(parent) &&
		!Object.hasOwn(parent, key)
	)
		return `${pathText(pointerOf(parentPath))}: missing required property ${JSON.stringify(key)}`;
	return `${pathText(pointerOf(issue.path))}: ${issue.message}`;
}

function pointerOf(path: readonly PropertyKey[]): string {
	return path.map((segment) => `/${String(segment).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function pathText(pointer: string): string {
	return pointer === "" ? "root" : pointer;
}

function valueAt(data: unknown, pointer: string): unknown {
	if (pointer === "") return data;
	const segments = pointer
		.slice(1)
		.split("/")
		.map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
	return valueAtPath(data, segments);
}

function valueAtPath(data: unknown, path: readonly PropertyKey[]): unknown {
	let current = data;
	for (const segment of path) {
		if (typeof current !== "object" || current === null) return undefined;
		current = (current as Record<PropertyKey, unknown>)[segment];
	}
	return current;
}

function listValues(values: unknown): string {
	return Array.isArray(values) ? values.map((value) => JSON.stringify(value)).join(", ") : String(values);
}

function truncate(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function limit(lines: string[]): string[] {
	if (lines.length <= MAX_ERRORS) return lines;
	return [...lines.slice(0, MAX_ERRORS), `… and ${lines.length - MAX_ERRORS} more errors`];
}
