/**
 * JSON Schema tool parameters, validated by `@cfworker/json-schema`: it interprets schemas instead of
 * generating code, so validation works where code generation from strings is disallowed (strict CSP,
 * `node --disallow-code-generation-from-strings`, some edge runtimes), prints nothing, and has no
 * dependencies. What it does not do is done here: the schema is checked against the draft-07 meta-schema
 * first (it would accept `type: "no-such-type"` silently), defaults are filled into the copy it validates
 * (schema-walk.ts), and its errors — a tree of wrappers ("Property "a" does not match schema.") around leaf
 * failures — are mapped onto the model-readable lines of validation-errors.ts. Arguments of a flat object
 * schema that a few lines can see are valid are copied and accepted by those lines, without the interpreter
 * (flat-schema.ts).
 */
import {
	dereference,
	type Schema,
	type SchemaDraft,
	type ValidationResult,
	validate,
} from "@cfworker/json-schema";
import { errorText } from "../core/abort.js";
import type { JsonSchema } from "../core/model.js";
import { copiesAsIs, flatObjectCheck } from "./flat-schema.js";
import { issuesOf } from "./json-schema-issues.js";
import { DRAFT_07_META_SCHEMA } from "./meta-schema.js";
import { fillDefaults, mentionsDefault, withoutFormats } from "./schema-walk.js";
import { formatSchemaIssues } from "./validation-errors.js";

/** Outcome of validating one call's arguments. `value` is a fresh copy; the input is never touched. */
export type JsonSchemaOutcome = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** A compiled JSON Schema: validate a private JSON copy of the arguments, with defaults filled in. */
export type JsonSchemaValidator = (args: unknown) => JsonSchemaOutcome;

/** Validators by schema text, oldest first; at most `CACHED_SCHEMAS` of them. */
const byText = new Map<string, JsonSchemaValidator>();
const CACHED_SCHEMAS = 256;

/**
 * Compile `schema` (its `$schema` already removed; `schemaUri` is what it said). Never throws: a broken schema
 * yields a validator whose every call reports it, so the call gets an error result instead of a crash.
 *
 * Compiled validators are shared by schemas of the same text: a host that builds its tools per request (a
 * closure over the request's user, say) hands over a new but equal schema object every time, and checking it
 * against the meta-schema and compiling it again cost more than the tool calls it serves.
 */
export function compileJsonSchemaValidator(schema: JsonSchema, schemaUri: unknown): JsonSchemaValidator {
	const key = schemaKey(schema, schemaUri);
	if (key === undefined) return buildValidator(schema, schemaUri);
	const cached = byText.get(key);
	if (cached) return cached;
	const built = buildValidator(schema, schemaUri);
	if (byText.size >= CACHED_SCHEMAS) byText.delete(byText.keys().next().value as string);
	byText.set(key, built);
	return built;
}

/** The schema's text, when the text is all there is to it (plain JSON data: its round trip is exact). */
function schemaKey(schema: JsonSchema, schemaUri: unknown): string | undefined {
	const plain = copyPlainData(schema, 0);
	return plain === NOT_PLAIN ? undefined : `${draftOf(schemaUri)}\n${JSON.stringify(plain)}`;
}

/**
 * What is wrong with `schema` as a JSON Schema (its `$schema` already removed; `schemaUri` is what it said), or
 * undefined when nothing is: the problem {@link compileJsonSchemaValidator}'s validator would report for every
 * value.
 */
export function jsonSchemaProblem(schema: JsonSchema, schemaUri: unknown): string | undefined {
	// Draft-04 differs in shape where it matters here (boolean `exclusiveMinimum`); it is not meta-checked.
	return draftOf(schemaUri) === "4" ? undefined : schemaProblem(schema);
}

function buildValidator(schema: JsonSchema, schemaUri: unknown): JsonSchemaValidator {
	const draft = draftOf(schemaUri);
	const broken = jsonSchemaProblem(schema, schemaUri);
	if (broken) return () => ({ ok: false, errors: [invalidSchemaText(broken)] });
	// The validator annotates the schema nodes it is given (non-enumerable ref bookkeeping), so it gets a
	// private copy: the tool's schema stays untouched and may even be frozen.
	const copy = withoutFormats(schema) as Schema;
	let lookup: Record<string, Schema | boolean>;
	try {
		lookup = dereference(copy);
	} catch (error) {
		// e.g. two nodes claiming the same `$id`.
		return () => ({ ok: false, errors: [invalidSchemaText(errorText(error))] });
	}
	const resolveRef = refResolver(lookup);
	const withDefaults = mentionsDefault(copy);
	const flatCheck = flatObjectCheck(copy);
	return (args) => {
		// The arguments of a flat schema that are surely valid: copied (defaults filled) by the check itself.
		const checked = flatCheck?.(args);
		if (checked) return { ok: true, value: checked };
		// Plain data is copied directly; anything else takes the JSON round trip (see `copyPlainData`).
		let value = copyPlainData(args, 0);
		if (value === NOT_PLAIN) {
			const copied = jsonRoundTrip(args);
			if (!copied.ok) return copied;
			value = copied.value;
		}
		if (withDefaults) fillDefaults(copy, value, resolveRef);
		let result: ValidationResult;
		try {
			// shortCircuit off: every bad path is reported, not just the first (rule T3).
			result = validate(value, copy, draft, lookup, false);
		} catch (error) {
			// e.g. a `$ref` to a schema that is not there: only found once an argument reaches it.
			return { ok: false, errors: [invalidSchemaText(errorText(error))] };
		}
		if (result.valid) return { ok: true, value };
		return { ok: false, errors: formatSchemaIssues(issuesOf(result.errors, copy), value) };
	};
}

let meta: { schema: Schema; lookup: Record<string, Schema | boolean> } | undefined;

/** The first problems the draft-07 meta-schema finds in `schema`, or undefined when it is a valid schema. */
function schemaProblem(schema: JsonSchema): string | undefined {
	meta ??= structuralMetaSchema();
	const result = validate(schema, meta.schema, "7", meta.lookup, false);
	if (result.valid) return undefined;
	return formatSchemaIssues(issuesOf(result.errors, meta.schema), schema).slice(0, 2).join("; ");
}

/**
 * The meta-schema without the `uri` / `uri-reference` formats of `$id`, `$schema` and `$ref`: the check is for
 * structure, and formats are annotations capstan does not check. Generated schemas break them where the
 * validator does not care — typescript-json-schema writes `$ref: "#/definitions/Record<string,string>"`,
 * which resolves. `regex` stays: a pattern the validator cannot compile fails every value that reaches it.
 */
function structuralMetaSchema(): { schema: Schema; lookup: Record<string, Schema | boolean> } {
	const schema = structuredClone(DRAFT_07_META_SCHEMA) as Schema;
	const properties = schema.properties as Record<string, Schema>;
	for (const keyword of ["$id", "$schema", "$ref"]) delete (properties[keyword] as Schema).format;
	return { schema, lookup: dereference(schema) };
}

function invalidSchemaText(problem: string): string {
	// The validator's messages can list every known schema URI on further lines; the first line says it.
	return `root: the tool's parameter schema is invalid (${problem.split("\n")[0]?.trim()})`;
}

/** Unversioned schemas are draft-07: TypeBox emits draft-07 shapes (e.g. tuple `items: [...]`). */
function draftOf(schemaUri: unknown): SchemaDraft {
	if (typeof schemaUri !== "string") return "7";
	if (schemaUri.includes("2020-12")) return "2020-12";
	if (schemaUri.includes("2019-09")) return "2019-09";
	if (schemaUri.includes("draft-04")) return "4";
	return "7";
}

function refResolver(lookup: Record<string, Schema | boolean>): (schema: JsonSchema) => unknown {
	// `__absolute_ref__` is where `dereference` recorded the resolved URI of a node's `$ref`.
	return (schema) => {
		const uri = (schema as { __absolute_ref__?: unknown }).__absolute_ref__;
		return typeof uri === "string" ? lookup[uri] : undefined;
	};
}

/**
 * Tool arguments are JSON by contract; a JSON round trip is an exact private copy of them and drops what
 * JSON cannot carry (an `undefined` a hook left in revised arguments reads as an absent key).
 */
function jsonRoundTrip(args: unknown): JsonSchemaOutcome {
	try {
		const text = JSON.stringify(args);
		if (text !== undefined) return { ok: true, value: JSON.parse(text) as unknown };
	} catch (error) {
		return { ok: false, errors: [`root: arguments must be JSON (${errorText(error)})`] };
	}
	return { ok: false, errors: ["root: arguments must be a JSON object (received undefined)"] };
}

const NOT_PLAIN: unique symbol = Symbol("not plain JSON data");
const PLAIN_COPY_MAX_DEPTH = 200;

/**
 * The JSON round trip's result, built directly for plain data (plain objects, arrays, strings, finite
 * numbers, booleans, null): strings are shared instead of re-serialized, so a 1 MB argument costs no 2 MB
 * of text twice per call. Anything a round trip would change or reject (`undefined`,
 * functions such as `toJSON`, class instances, non-finite numbers, `-0`, a `__proto__` key, deep nesting)
 * answers `NOT_PLAIN`, and the caller takes the real round trip.
 */
function copyPlainData(value: unknown, depth: number): unknown {
	if (copiesAsIs(value)) return value;
	if (typeof value !== "object") return NOT_PLAIN;
	if (depth >= PLAIN_COPY_MAX_DEPTH) return NOT_PLAIN;
	if (Array.isArray(value)) {
		const copy: unknown[] = new Array(value.length);
		for (let i = 0; i < value.length; i++) {
			const item = copyPlainData(value[i], depth + 1);
			if (item === NOT_PLAIN) return NOT_PLAIN;
			copy[i] = item;
		}
		return copy;
	}
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
	const copy: Record<string, unknown> = {};
	const keys = Object.keys(value);
	for (let i = 0; i < keys.length; i++) {
		const key = keys[i] as string;
		if (key === "__proto__") return NOT_PLAIN;
		const item = copyPlainData((value as Record<string, unknown>)[key], depth + 1);
		if (item === NOT_PLAIN) return NOT_PLAIN;
		copy[key] = item;
	}
	return copy;
}
