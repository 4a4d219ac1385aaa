/**
 * The shape most tools' parameters have — an object of named primitive fields, some required, perhaps no
 * others — checked by a few lines before the interpreting validator (json-schema.ts) is asked. That
 * validator destructures some forty keywords per schema node on every call; for a call's handful of fields
 * that is most of the time between a model's reply and its first tool starting, and it runs mostly as cold
 * code.
 *
 * The check only ever says "valid" or "ask the validator": a refusal is never reported as an error, so
 * every error still comes from the validator, worded as before. It must therefore never accept what the
 * validator would reject, which is why it only takes schemas built from keywords whose meaning is the same
 * in every draft (draft-04 to 2020-12): `type` (one primitive name), `enum` of primitives, `properties`,
 * `required`, boolean `additionalProperties`, and annotations. Anything else — a nested object, an array, a
 * `$ref`, a bound, a pattern — goes to the validator alone.
 *
 * Its "valid" is the private copy the validator would have handed on: a field-by-field copy, taken only
 * when that copy is exactly what a JSON round trip gives — a plain object whose values are strings,
 * booleans, `null` or finite numbers other than `-0`, and no `__proto__` key — with the fields' defaults
 * filled in after the fields present, in the schema's order, as `fillDefaults` (schema-walk.ts) fills them.
 * Anything else is refused, valid or not, and copied, filled and checked the long way. Checking and copying
 * in one pass is most of what a call's preparation costs while the code is still cold.
 */
import { isRecord } from "./schema-walk.js";

/**
 * A private copy of `value`, its missing fields' defaults filled in, when that copy surely satisfies the
 * schema the check was built from (and is exactly what a JSON round trip and `fillDefaults` give); `undefined`
 * means "copy, fill and validate it the long way".
 */
export type FlatCheck = (value: unknown) => Record<string, unknown> | undefined;

type Primitive = "string" | "number" | "integer" | "boolean" | "null";

interface FieldRule {
	type: Primitive | undefined;
	/** Allowed values (`enum`), all primitives: strict equality is the validator's deep equality for them. */
	allowed: readonly unknown[] | undefined;
}

/** A field's `default`, filled in when the field is missing: a primitive that satisfies the field's rule. */
interface FieldDefault {
	name: string;
	value: unknown;
}

const ANNOTATIONS = new Set([
	"title",
	"description",
	"$comment",
	"examples",
	"default",
	"deprecated",
	"readOnly",
	"writeOnly",
]);
const ROOT_KEYWORDS = new Set(["type", "properties", "required", "additionalProperties", ...ANNOTATIONS]);
const FIELD_KEYWORDS = new Set(["type", "enum", ...ANNOTATIONS]);
const PRIMITIVES = new Set<unknown>(["string", "number", "integer", "boolean", "null"]);

/** The check for `schema` (formats already removed), or undefined when it is not a flat object schema. */
export function flatObjectCheck(schema: unknown): FlatCheck | undefined {
	if (!isRecord(schema) || schema.type !== "object" || !onlyKeywords(schema, ROOT_KEYWORDS)) return undefined;
	const { properties = {}, required = [], additionalProperties = true } = schema;
	if (!isRecord(properties) || typeof additionalProperties !== "boolean") return undefined;
	if (!Array.isArray(required) || !required.every((key) => typeof key === "string")) return undefined;
	const fields = new Map<string, FieldRule>();
	const defaults: FieldDefault[] = [];
	for (const name of Object.keys(properties)) {
		const field = properties[name];
		const rule = fieldRule(field);
		if (!rule) return undefined;
		fields.set(name, rule);
		if (!isRecord(field) || !("default" in field)) continue;
		// A default the copy could not take as it is (an object, `-0`, a `__proto__` field), or one its own
		// field rejects (every call that leaves the field out then fails), is the validator's to handle.
		if (name === "__proto__" || !copiesAsIs(field.default) || !satisfies(rule, field.default))
			return undefined;
		defaults.push({ name, value: field.default });
	}
	const requiredKeys = (required as string[]).filter((key) => !defaults.some((d) => d.name === key));
	return (value) => {
		if (!isRecord(value)) return undefined;
		const proto = Object.getPrototypeOf(value);
		if (proto !== Object.prototype && proto !== null) return undefined;
		for (let i = 0; i < requiredKeys.length; i++)
			if (!Object.hasOwn(value, requiredKeys[i] as string)) return undefined;
		const copy: Record<string, unknown> = {};
		const keys = Object.keys(value);
		for (let i = 0; i < keys.length; i++) {
			const key = keys[i] as string;
			const field = value[key];
			if (!copiesAsIs(field) || key === "__proto__") return undefined;
			const rule = fields.get(key);
			if (rule === undefined ? !additionalProperties : !satisfies(rule, field)) return undefined;
			copy[key] = field;
		}
		for (let i = 0; i < defaults.length; i++) {
			const { name, value: fallback } = defaults[i] as FieldDefault;
			if (!Object.hasOwn(value, name)) copy[name] = fallback;
		}
		return copy;
	};
}

/** True for a value a JSON round trip gives back as it is: a string, boolean, `null` or finite non-`-0` number. */
export function copiesAsIs(value: unknown): value is string | boolean | number | null {
	return typeof value === "number"
		? Number.isFinite(value) && !Object.is(value, -0)
		: typeof value === "string" || typeof value === "boolean" || value === null;
}

function fieldRule(schema: unknown): FieldRule | undefined {
	if (!isRecord(schema) || !onlyKeywords(schema, FIELD_KEYWORDS)) return undefined;
	const { type, enum: allowed } = schema;
	if (type !== undefined && !PRIMITIVES.has(type)) return undefined;
	if (allowed !== undefined && !(Array.isArray(allowed) && allowed.every(isPrimitiveValue))) return undefined;
	// A field with neither keyword accepts anything, which only the validator can tell apart from "nested".
	if (type === undefined && allowed === undefined) return undefined;
	return { type: type as Primitive | undefined, allowed };
}

function satisfies(rule: FieldRule, value: unknown): boolean {
	if (rule.allowed !== undefined && !rule.allowed.includes(value)) return false;
	switch (rule.type) {
		case undefined:
			return true;
		case "integer":
			return Number.isInteger(value);
		case "null":
			return value === null;
		default:
			return typeof value === rule.type;
	}
}

function isPrimitiveValue(value: unknown): boolean {
	// NaN never comes out of JSON, and `includes` would find it where the validator's equality would not.
	return (
		value === null ||
		typeof value === "string" ||
		typeof value === "boolean" ||
		(typeof value === "number" && Number.isFinite(value))
	);
}

function onlyKeywords(schema: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
	for (const key of Object.keys(schema)) if (!allowed.has(key)) return false;
	return true;
}
