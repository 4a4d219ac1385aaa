/**
 * `@cfworker/json-schema` errors → `SchemaIssue`s for the model-readable formatter (rule T3). The validator
 * reports a flat list in which wrappers ("Property "a" does not match schema.") precede the leaf failures
 * they wrap; only the leaves say what is wrong, so wrappers are dropped. Leaf texts are mapped onto the
 * wording capstan's messages had with ajv ("must be >= 1", "must NOT have fewer than 3 characters"): the
 * model reads the same lines whichever validator runs. The validator's messages are fixed templates whose
 * only variable parts are the values they name, which is what the slicing below reads (the version is
 * pinned exactly; the tests pin every mapped line).
 */
import type { OutputUnit } from "@cfworker/json-schema";
import type { SchemaIssue } from "./validation-errors.js";

/** Wrappers that only say "a subschema failed"; the leaf failures they wrap follow them and say what. */
const WRAPPERS = new Set([
	"properties",
	"additionalProperties",
	"unevaluatedProperties",
	"patternProperties",
	"items",
	"prefixItems",
	"additionalItems",
	"unevaluatedItems",
	"$ref",
	"$recursiveRef",
	"$dynamicRef",
	"allOf",
	"dependentSchemas",
	"dependencies",
	"propertyNames",
]);

/**
 * Map the validator's output units onto `SchemaIssue`s, an object's own issues before its members'. `schema`
 * is what was validated against: a `pattern` failure names its pattern when the location leads to it.
 */
export function issuesOf(units: readonly OutputUnit[], schema: unknown): SchemaIssue[] {
	const issues: SchemaIssue[] = [];
	// ajv reported `must match "then" schema` after the failures inside `then`; the validator, before them.
	const deferred: { issue: SchemaIssue; branch: string }[] = [];
	const flush = (location?: string): void => {
		while (
			deferred.length > 0 &&
			(location === undefined || !location.startsWith(deferred.at(-1)?.branch ?? ""))
		)
			issues.push((deferred.pop() as { issue: SchemaIssue }).issue);
	};
	for (let index = 0; index < units.length; index++) {
		const unit = units[index] as OutputUnit;
		flush(unit.keywordLocation);
		const next = units[index + 1];
		// A false schema (`additionalProperties: false`, `additionalItems: false`) fails at the extra key or
		// item; the line is about the enclosing value: which key is unexpected, how many items are allowed.
		if (next?.keyword === "false" && isExtraMember(unit, next)) {
			const extra = extraMemberIssue(unit, lastSegment(pointerOf(next.instanceLocation)));
			// Every extra item fails on its own; the first one's index is the number allowed.
			const counted =
				extra.keyword !== "additionalProperties" && issues.some((seen) => sameIssue(seen, extra));
			if (!counted) issues.push(extra);
			index++;
			continue;
		}
		if (unit.keyword === "if") {
			const branch = unit.error.includes('"then"') ? "/then/" : "/else/";
			deferred.push({ issue: leafIssue(unit), branch: unit.keywordLocation.replace(/\/if$/, branch) });
			continue;
		}
		// `dependencies` wraps a failed dependent schema, or is itself a leaf: a key missing with its dependant.
		const dependency = dependsOn(unit);
		if (dependency)
			issues.push(
				message(unit, `must have property ${dependency[1]} when property ${dependency[0]} is present`),
			);
		else if (unit.keyword === "pattern") issues.push(message(unit, patternWording(unit, schema)));
		else if (!WRAPPERS.has(unit.keyword)) issues.push(leafIssue(unit));
	}
	flush();
	return ancestorsFirst(issues);
}

const EXTRA_KEYWORDS = new Set([
	"additionalProperties",
	"unevaluatedProperties",
	"additionalItems",
	"unevaluatedItems",
	"items",
]);

function isExtraMember(wrapper: OutputUnit, falseSchema: OutputUnit): boolean {
	return (
		EXTRA_KEYWORDS.has(wrapper.keyword) &&
		falseSchema.instanceLocation.startsWith(`${wrapper.instanceLocation}/`)
	);
}

function sameIssue(a: SchemaIssue, b: SchemaIssue): boolean {
	return a.keyword === b.keyword && a.instancePath === b.instancePath && a.schemaPath === b.schemaPath;
}

function extraMemberIssue(wrapper: OutputUnit, member: string): SchemaIssue {
	if (wrapper.keyword.endsWith("Properties"))
		return issue(wrapper, "additionalProperties", { additionalProperty: member });
	return message(wrapper, `must NOT have more than ${member} items`);
}

function leafIssue(unit: OutputUnit): SchemaIssue {
	const text = unit.error;
	switch (unit.keyword) {
		case "required":
			return issue(unit, "required", { missingProperty: between(text, 'required property "', '".') });
		case "type":
			// `Instance type "x" is invalid. Expected "a", "b".` — type names never contain quotes.
			return issue(unit, "type", { type: between(text, 'Expected "', '".').split('", "').join(",") });
		case "enum":
			return issue(unit, "enum", { allowedValues: JSON.parse(between(text, "match any of ", ".")) });
		case "const":
			return issue(unit, "const", { allowedValue: JSON.parse(between(text, "does not match ", ".")) });
		default:
			return message(unit, ajvWording(unit) ?? text.replace(/\.$/, ""));
	}
}

/** The ajv wording of a leaf failure whose values the message ends with. */
function ajvWording(unit: OutputUnit): string | undefined {
	const text = unit.error;
	const limit = lastValue(text);
	const orEqual = text.includes("or equal to");
	switch (unit.keyword) {
		case "minimum":
			return orEqual ? `must be > ${limit}` : `must be >= ${limit}`;
		case "maximum":
			return orEqual ? `must be < ${limit}` : `must be <= ${limit}`;
		case "exclusiveMinimum":
			return `must be > ${limit}`;
		case "exclusiveMaximum":
			return `must be < ${limit}`;
		case "multipleOf":
			return `must be multiple of ${limit}`;
		case "minLength":
			return `must NOT have fewer than ${limit} characters`;
		case "maxLength":
			return `must NOT have more than ${limit} characters`;
		case "minItems":
			return `must NOT have fewer than ${limit} items`;
		case "maxItems":
			return `must NOT have more than ${limit} items`;
		case "minProperties":
			return `must NOT have fewer than ${limit} properties`;
		case "maxProperties":
			return `must NOT have more than ${limit} properties`;
		case "uniqueItems": {
			const [first, second] = text.match(/\d+/g) ?? [];
			return `must NOT have duplicate items (items ## ${first} and ${second} are identical)`;
		}
		default:
			return fixedWording(unit);
	}
}

/** Failures whose ajv wording names no value. */
function fixedWording(unit: OutputUnit): string | undefined {
	switch (unit.keyword) {
		case "anyOf":
			return "must match a schema in anyOf";
		case "oneOf":
			return "must match exactly one schema in oneOf";
		case "not":
			return "must NOT be valid";
		case "false":
			return "boolean schema is false";
		case "if":
			return unit.error.includes('"then"') ? 'must match "then" schema' : 'must match "else" schema';
		case "contains":
			return "must contain at least 1 valid item(s)";
		case "minContains":
			return `must contain at least ${/(?:at least |minContains \()(\d+)/.exec(unit.error)?.[1]} valid item(s)`;
		case "maxContains":
			return `must contain at most ${/at most (\d+)/.exec(unit.error)?.[1]} valid item(s)`;
		default:
			return undefined;
	}
}

/**
 * ajv named the pattern. The validator does not, but its keyword location is a JSON pointer into the schema
 * unless a `$ref` was followed on the way; then the line says less, not something wrong.
 */
function patternWording(unit: OutputUnit, schema: unknown): string {
	let node = schema;
	for (const segment of pointerOf(unit.keywordLocation).split("/").slice(1)) {
		const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
		node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
	}
	return typeof node === "string"
		? `must match pattern ${JSON.stringify(node)}`
		: "must match the schema's pattern";
}

/** `Instance has "a" but does not have "b".` → `["a", "b"]`. */
function dependsOn(unit: OutputUnit): [string, string] | undefined {
	const middle = '" but does not have "';
	const at = unit.error.lastIndexOf(middle);
	if (!unit.error.startsWith('Instance has "') || at < 0) return undefined;
	const key = unit.error.slice('Instance has "'.length, at);
	const dependant = unit.error.slice(at + middle.length, -2);
	return [key, dependant];
}

function issue(
	unit: OutputUnit,
	keyword: string,
	params: Record<string, unknown>,
	text?: string,
): SchemaIssue {
	return {
		keyword,
		instancePath: pointerOf(unit.instanceLocation),
		schemaPath: unit.keywordLocation,
		params,
		...(text !== undefined ? { message: text } : {}),
	};
}

function message(unit: OutputUnit, text: string): SchemaIssue {
	return issue(unit, unit.keyword, {}, text);
}

/** The text between a fixed prefix and a fixed suffix of a validator message: exact whatever lies between. */
function between(text: string, prefix: string, suffix: string): string {
	const start = text.indexOf(prefix) + prefix.length;
	const end = text.endsWith(suffix) ? text.length - suffix.length : text.indexOf(suffix, start);
	return text.slice(start, end);
}

/** The last number of a message, the limit: `0 is less than 1.` → `1`; `(0 < 3).` → `3`. */
function lastValue(text: string): string {
	return text.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi)?.at(-1) ?? "";
}

/** `#/a~1b/0` (URI-encoded, as the validator writes locations) → the JSON pointer `/a~1b/0`. */
function pointerOf(location: string): string {
	return decodeURIComponent(location.startsWith("#") ? location.slice(1) : location);
}

function lastSegment(pointer: string): string {
	const segment = pointer.slice(pointer.lastIndexOf("/") + 1);
	return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** What is wrong with an object (a missing or unexpected key) reads before what is wrong inside it. */
function ancestorsFirst(issues: readonly SchemaIssue[]): SchemaIssue[] {
	const byPath = new Map<string, SchemaIssue[]>();
	for (const item of issues) {
		const group = byPath.get(item.instancePath);
		if (group) group.push(item);
		else byPath.set(item.instancePath, [item]);
	}
	const ordered: SchemaIssue[] = [];
	const emitted = new Set<string>();
	const emit = (path: string): void => {
		if (emitted.has(path)) return;
		emitted.add(path);
		const segments = path.split("/");
		for (let depth = 1; depth < segments.length; depth++) {
			const ancestor = segments.slice(0, depth).join("/");
			if (byPath.has(ancestor)) emit(ancestor);
		}
		ordered.push(...(byPath.get(path) ?? []));
	};
	for (const path of byPath.keys()) emit(path);
	return ordered;
}
