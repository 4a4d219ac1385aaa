/**
 * Walks over JSON Schema documents that know which keywords hold subschemas (drafts 4 to 2020-12), for the two
 * things the interpreting validator does not do itself: a private copy without `format` (capstan validates no
 * formats — see validate.ts), and schema defaults filled into the arguments before they are validated.
 */
import type { JsonSchema } from "../core/model.js";

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = new Set([
	"additionalItems",
	"unevaluatedItems",
	"items",
	"contains",
	"additionalProperties",
	"unevaluatedProperties",
	"propertyNames",
	"not",
	"if",
	"then",
	"else",
]);
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAY_KEYWORDS = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
/** Keywords whose value maps names to subschemas (`dependencies` values may also be string arrays). */
const SCHEMA_MAP_KEYWORDS = new Set([
	"$defs",
	"definitions",
	"properties",
	"patternProperties",
	"dependentSchemas",
	"dependencies",
]);

/** Resolves a schema node's `$ref` to the schema it names, or undefined when it has none. */
export type RefResolver = (schema: JsonSchema) => unknown;

/**
 * A deep copy of `schema` with every `format` keyword removed, so the validator checks no formats. Only
 * keywords in schema positions are dropped: a property *named* `format` stays, and so does every JSON
 * pointer into the copy (no node moves).
 */
export function withoutFormats(schema: unknown): unknown {
	if (!isRecord(schema)) return schema;
	const copy: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		if (key === "format") continue;
		copy[key] = copyKeyword(key, value);
	}
	return copy;
}

function copyKeyword(key: string, value: unknown): unknown {
	if (Array.isArray(value))
		return SCHEMA_ARRAY_KEYWORDS.has(key) ? value.map(withoutFormats) : copyJson(value);
	if (!isRecord(value)) return value;
	if (SCHEMA_KEYWORDS.has(key)) return withoutFormats(value);
	if (SCHEMA_MAP_KEYWORDS.has(key))
		return Object.fromEntries(
			Object.entries(value).map(([name, sub]) => [name, isRecord(sub) ? withoutFormats(sub) : copyJson(sub)]),
		);
	return copyJson(value);
}

/**
 * Whether any object in `schema` has a `default` key: when none does, filling defaults is a no-op and the
 * validator skips the walk on every call. Conservative (a property *named* `default` counts too); `schema`
 * must be a tree, as `withoutFormats` returns.
 */
export function mentionsDefault(schema: unknown): boolean {
	if (Array.isArray(schema)) return schema.some(mentionsDefault);
	if (typeof schema !== "object" || schema === null) return false;
	return Object.hasOwn(schema, "default") || Object.values(schema).some(mentionsDefault);
}

/**
 * Fill schema defaults into `data` in place (callers pass a private copy), as ajv's `useDefaults` did: a
 * missing property whose schema under `properties` has a `default` gets a copy of it, then present
 * properties and array items are filled from their own subschemas; `allOf` branches and `$ref` targets
 * apply to the same value. `anyOf`/`oneOf`/`not` branches are not used: which branch holds is only known
 * after validation.
 */
export function fillDefaults(schema: unknown, data: unknown, resolveRef: RefResolver): void {
	fillNode(schema, data, resolveRef, new Set());
}

/** `seen` holds the schema nodes already applied to this `data` value: `$ref: "#"` inside `allOf` must end. */
function fillNode(schema: unknown, data: unknown, resolveRef: RefResolver, seen: Set<unknown>): void {
	if (!isRecord(schema) || seen.has(schema)) return;
	seen.add(schema);
	const target = resolveRef(schema);
	if (target !== undefined) fillNode(target, data, resolveRef, seen);
	if (Array.isArray(schema.allOf))
		for (const branch of schema.allOf) fillNode(branch, data, resolveRef, seen);
	if (isRecord(data) && isRecord(schema.properties)) fillProperties(schema.properties, data, resolveRef);
	if (Array.isArray(data)) fillItems(schema, data, resolveRef);
}

function fillProperties(
	properties: Record<string, unknown>,
	data: Record<string, unknown>,
	resolveRef: RefResolver,
): void {
	for (const [key, sub] of Object.entries(properties)) {
		if (!isRecord(sub)) continue;
		// A `default: undefined` (a schema built in code from an unset option) is no default, as in its JSON:
		// filled in, it would be a value no JSON argument can be, and the validator would reject it.
		if (!Object.hasOwn(data, key) && sub.default !== undefined)
			// defineProperty: a property named `__proto__` must become data, never the object's prototype.
			Object.defineProperty(data, key, {
				value: copyJson(sub.default),
				enumerable: true,
				writable: true,
				configurable: true,
			});
		// Only an object or an array has anything to fill (a primitive's walk would do nothing).
		if (Object.hasOwn(data, key) && typeof data[key] === "object" && data[key] !== null)
			fillNode(sub, data[key], resolveRef, new Set());
	}
}

function fillItems(schema: JsonSchema, data: unknown[], resolveRef: RefResolver): void {
	const tuple = Array.isArray(schema.prefixItems)
		? schema.prefixItems
		: Array.isArray(schema.items)
			? schema.items
			: [];
	// After a tuple, draft-07 puts the rest under `additionalItems`; 2020-12 under `items`.
	const rest = isRecord(schema.items)
		? schema.items
		: Array.isArray(schema.items) && isRecord(schema.additionalItems)
			? schema.additionalItems
			: undefined;
	data.forEach((item, index) => {
		const sub = index < tuple.length ? tuple[index] : rest;
		if (sub !== undefined) fillNode(sub, item, resolveRef, new Set());
	});
}

/** A plain JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a JSON round trip gives for `value`; primitives (most defaults are one) without the round trip. */
function copyJson(value: unknown): unknown {
	switch (typeof value) {
		case "string":
		case "boolean":
		case "undefined":
			return value;
		case "number":
			// As JSON has it: `-0` becomes 0 (`+ 0` does that), a non-finite number `null`.
			return Number.isFinite(value) ? (value as number) + 0 : null;
	}
	return value === null ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}
