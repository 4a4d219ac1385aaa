/**
 * A compiled fast path for the JSON Schemas most tools have: flat or nested objects of typed fields with
 * `required`, `enum`, bounds, lengths and patterns. The interpreting validator (json-schema.ts) re-reads
 * every keyword of the schema on every call and builds error records and pointer strings as it goes; on the
 * first calls of a process — which are all interpreted code — that costs more than the rest of a tool call.
 * Here the schema is read once into a tree of closures that, in one pass over the arguments, makes the
 * private copy, fills defaults and checks the keywords.
 *
 * The fast path only ever says "valid, here is the copy": for anything else — invalid arguments, data a
 * JSON round trip would change, a keyword it does not implement — it answers `FALLBACK`, and the
 * interpreting validator decides and writes the errors, exactly as without it. So it must never accept what
 * the interpreting validator rejects, nor produce a different copy; a property test pins that
 * (test/tools/json-schema-compiled.test.ts).
 */
import { ucs2length } from "@cfworker/json-schema";

/** The fast path cannot vouch for these arguments; the interpreting validator decides. */
export const FALLBACK: unique symbol = Symbol("fall back to the interpreting validator");

/** The validated private copy of the arguments (defaults filled in), or `FALLBACK`. */
export type CompiledCheck = (args: unknown) => unknown;

type Node = (value: unknown, depth: number) => unknown;

/** Keywords the interpreting validator ignores; they change nothing about validity. */
const ANNOTATIONS = new Set([
	"title",
	"description",
	"default",
	"examples",
	"$comment",
	"readOnly",
	"writeOnly",
	"deprecated",
]);
const IMPLEMENTED = new Set([
	"type",
	"const",
	"enum",
	"properties",
	"required",
	"additionalProperties",
	"minProperties",
	"maxProperties",
	"items",
	"minItems",
	"maxItems",
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
	"minLength",
	"maxLength",
	"pattern",
]);
const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
/** The same bound as the plain copy in json-schema.ts: deeper data takes the JSON round trip there. */
const MAX_DEPTH = 200;

/**
 * Compile `schema` (a private copy without `format`, not draft-04) into a fast check, or undefined when it
 * uses anything the fast path does not implement (`$ref`, combinators, tuples, `uniqueItems`, …).
 */
export function compileFastCheck(schema: unknown): CompiledCheck | undefined {
	const root = compileNode(schema, true);
	return root && ((args) => root(args, 0));
}

/**
 * `fills`: whether defaults under this node's `properties` are filled in. fillDefaults reaches a node through
 * `properties` and `items` only — never through `additionalProperties` — and the copy must be the same.
 */
function compileNode(schema: unknown, fills: boolean): Node | undefined {
	if (schema === true) return copyPlain;
	if (schema === false) return () => FALLBACK;
	if (!isRecord(schema)) return undefined;
	for (const key of Object.keys(schema)) if (!IMPLEMENTED.has(key) && !ANNOTATIONS.has(key)) return undefined;
	const accepts = compileValueTests(schema);
	const shape = compileShape(schema, fills);
	if (!accepts || !shape) return undefined;
	return (value, depth) => (accepts(value) ? shape(value, depth) : FALLBACK);
}

type Test = (value: unknown) => boolean;

/** `type`, `const`, `enum` and the number and string keywords: tests of the value itself. */
function compileValueTests(schema: Record<string, unknown>): Test | undefined {
	const tests: Test[] = [];
	const type = schema.type;
	if (type !== undefined) {
		const names = Array.isArray(type) ? type : [type];
		if (!names.every((name) => typeof name === "string" && TYPES.has(name))) return undefined;
		tests.push((value) => names.some((name) => hasType(value, name as string)));
	}
	if (schema.const !== undefined) {
		const expected = schema.const;
		// Objects and arrays compare deeply there; only primitives compare with `===` as here.
		if (!isPrimitive(expected)) return undefined;
		tests.push((value) => value === expected);
	}
	if (schema.enum !== undefined) {
		const options = schema.enum;
		if (!Array.isArray(options) || !options.every(isPrimitive)) return undefined;
		tests.push((value) => options.some((option) => option === value));
	}
	const numbers = compileNumberTest(schema);
	const strings = compileStringTest(schema);
	if (!numbers || !strings) return undefined;
	tests.push(numbers, strings);
	return (value) => tests.every((test) => test(value));
}

function compileNumberTest(schema: Record<string, unknown>): Test | undefined {
	const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
	const bounds = [minimum, maximum, exclusiveMinimum, exclusiveMaximum];
	if (!bounds.every((bound) => bound === undefined || typeof bound === "number")) return undefined;
	return (value) =>
		typeof value !== "number" ||
		!(
			(minimum !== undefined && value < (minimum as number)) ||
			(maximum !== undefined && value > (maximum as number)) ||
			(exclusiveMinimum !== undefined && value <= (exclusiveMinimum as number)) ||
			(exclusiveMaximum !== undefined && value >= (exclusiveMaximum as number))
		);
}

function compileStringTest(schema: Record<string, unknown>): Test | undefined {
	const { minLength, maxLength, pattern } = schema;
	if (![minLength, maxLength].every((bound) => bound === undefined || typeof bound === "number"))
		return undefined;
	let regex: RegExp | undefined;
	if (pattern !== undefined) {
		if (typeof pattern !== "string") return undefined;
		try {
			// The interpreting validator builds the same expression (flag `u`) on every call.
			regex = new RegExp(pattern, "u");
		} catch {
			return undefined;
		}
	}
	const measured = minLength !== undefined || maxLength !== undefined;
	return (value) => {
		if (typeof value !== "string") return true;
		// Lengths count code points, as the interpreting validator does.
		const length = measured ? ucs2length(value) : 0;
		if (minLength !== undefined && length < (minLength as number)) return false;
		if (maxLength !== undefined && length > (maxLength as number)) return false;
		return !regex || regex.test(value);
	};
}

/** The object and array keywords, and the copy: walks the value once. */
function compileShape(schema: Record<string, unknown>, fills: boolean): Node | undefined {
	const object = compileObject(schema, fills);
	const array = compileArray(schema, fills);
	if (!object || !array) return undefined;
	return (value, depth) => {
		if (typeof value !== "object" || value === null) return copyPlain(value, depth);
		if (depth >= MAX_DEPTH) return FALLBACK;
		return Array.isArray(value) ? array(value, depth) : object(value as Record<string, unknown>, depth);
	};
}

interface Field {
	name: string;
	check: Node;
	/** Present when the property's schema has a `default`: filled in when the key is missing. */
	fallback?: { value: unknown };
}

function compileObject(
	schema: Record<string, unknown>,
	fills: boolean,
): ((value: Record<string, unknown>, depth: number) => unknown) | undefined {
	const { properties = {}, required = [], additionalProperties, minProperties, maxProperties } = schema;
	if (!isRecord(properties) || !Array.isArray(required)) return undefined;
	if (!required.every((name) => typeof name === "string")) return undefined;
	if (![minProperties, maxProperties].every((bound) => bound === undefined || typeof bound === "number"))
		return undefined;
	const fields = new Map<string, Field>();
	for (const [name, sub] of Object.entries(properties)) {
		const check = compileNode(sub, fills);
		if (!check || name === "__proto__") return undefined;
		// The same test as schema-walk.ts's fillDefaults.
		const defaulted = fills && isRecord(sub) && "default" in sub;
		fields.set(name, defaulted ? { name, check, fallback: { value: sub.default } } : { name, check });
	}
	const extra = additionalProperties === undefined ? copyPlain : compileNode(additionalProperties, false);
	if (!extra) return undefined;
	const defaulted = [...fields.values()].filter((field) => field.fallback);
	return (value, depth) => {
		if (!isPlainObject(value)) return FALLBACK;
		const copy: Record<string, unknown> = {};
		for (const key of Object.keys(value)) {
			if (key === "__proto__") return FALLBACK;
			const item = (fields.get(key)?.check ?? extra)(value[key], depth + 1);
			if (item === FALLBACK) return FALLBACK;
			copy[key] = item;
		}
		for (const field of defaulted) {
			if (Object.hasOwn(copy, field.name)) continue;
			// Filled before validation, from a JSON copy of the default, as fillDefaults does.
			const item = field.check(jsonCopy(field.fallback?.value), depth + 1);
			if (item === FALLBACK) return FALLBACK;
			copy[field.name] = item;
		}
		for (const name of required as string[]) if (!Object.hasOwn(copy, name)) return FALLBACK;
		const count = Object.keys(copy).length;
		if (minProperties !== undefined && count < (minProperties as number)) return FALLBACK;
		if (maxProperties !== undefined && count > (maxProperties as number)) return FALLBACK;
		return copy;
	};
}

function compileArray(
	schema: Record<string, unknown>,
	fills: boolean,
): ((value: unknown[], depth: number) => unknown) | undefined {
	const { items, minItems, maxItems } = schema;
	if (![minItems, maxItems].every((bound) => bound === undefined || typeof bound === "number"))
		return undefined;
	// A tuple (`items: [...]`) takes the interpreting validator.
	if (Array.isArray(items)) return undefined;
	const each = items === undefined ? copyPlain : compileNode(items, fills);
	if (!each) return undefined;
	return (value, depth) => {
		if (minItems !== undefined && value.length < (minItems as number)) return FALLBACK;
		if (maxItems !== undefined && value.length > (maxItems as number)) return FALLBACK;
		const copy: unknown[] = new Array(value.length);
		for (let i = 0; i < value.length; i++) {
			const item = each(value[i], depth + 1);
			if (item === FALLBACK) return FALLBACK;
			copy[i] = item;
		}
		return copy;
	};
}

/**
 * The copy of a value no keyword constrains: what a JSON round trip gives for plain data (plain objects,
 * arrays, strings, finite numbers, booleans, null), `FALLBACK` for anything the round trip would change.
 */
function copyPlain(value: unknown, depth: number): unknown {
	switch (typeof value) {
		case "string":
		case "boolean":
			return value;
		case "number":
			return Number.isFinite(value) && !Object.is(value, -0) ? value : FALLBACK;
		case "object":
			break;
		default:
			return FALLBACK;
	}
	if (value === null) return null;
	if (depth >= MAX_DEPTH) return FALLBACK;
	if (Array.isArray(value)) {
		const copy: unknown[] = new Array(value.length);
		for (let i = 0; i < value.length; i++) {
			const item = copyPlain(value[i], depth + 1);
			if (item === FALLBACK) return FALLBACK;
			copy[i] = item;
		}
		return copy;
	}
	if (!isPlainObject(value)) return FALLBACK;
	const copy: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		if (key === "__proto__") return FALLBACK;
		const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
		if (item === FALLBACK) return FALLBACK;
		copy[key] = item;
	}
	return copy;
}

/** The interpreting validator's notion of a JSON type (`integer`: a number without a fraction). */
function hasType(value: unknown, name: string): boolean {
	switch (name) {
		case "null":
			return value === null;
		case "array":
			return Array.isArray(value);
		case "object":
			return typeof value === "object" && value !== null && !Array.isArray(value);
		case "integer":
			return typeof value === "number" && value % 1 === 0;
		default:
			return typeof value === name;
	}
}

function isPrimitive(value: unknown): boolean {
	return value === null || (typeof value !== "object" && typeof value !== "function");
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPlainObject(value: object): boolean {
	const proto = Object.getPrototypeOf(value);
	return proto === Object.prototype || proto === null;
}

function jsonCopy(value: unknown): unknown {
	return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}
