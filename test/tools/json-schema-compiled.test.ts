/**
 * The compiled fast path must agree with the interpreting validator: whenever it accepts, the interpreting
 * validator accepts too and its private copy (defaults filled in) is the same, key order included.
 */
import { dereference, type Schema, validate } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/core/model.js";
import { compileJsonSchemaValidator } from "../../src/tools/json-schema.js";
import { compileFastCheck, FALLBACK } from "../../src/tools/json-schema-compiled.js";
import { fillDefaults, withoutFormats } from "../../src/tools/schema-walk.js";
import { compileToolParameters } from "../../src/tools/validate.js";

const KEYS = ["a", "b", "c"];

const primitive = fc.oneof(
	fc.constantFrom(null, true, false, 0, 1, 2, 2.5, -3, "", "a", "ab", "abc", "😀"),
	fc.integer({ min: -5, max: 5 }),
);

const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ weight: 3, arbitrary: primitive },
		{ weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
		{ weight: 2, arbitrary: fc.dictionary(fc.constantFrom(...KEYS, "d"), tie("value"), { maxKeys: 4 }) },
	),
})).value;

const bound = fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined });

const LEAF_KEYWORDS = {
	type: fc.oneof(
		fc.constantFrom("object", "array", "string", "number", "integer", "boolean", "null"),
		fc.subarray(["object", "string", "integer", "null"], { minLength: 1 }),
	),
	const: primitive,
	enum: fc.array(primitive, { minLength: 1, maxLength: 4 }),
	minimum: bound,
	maximum: bound,
	exclusiveMinimum: bound,
	exclusiveMaximum: bound,
	minLength: bound,
	maxLength: bound,
	pattern: fc.constantFrom("^a", "b$", "^[a-c]*$", "."),
	minItems: bound,
	maxItems: bound,
	minProperties: bound,
	maxProperties: bound,
	required: fc.subarray(KEYS),
	default: value,
	description: fc.constant("a field"),
	uniqueItems: fc.boolean(),
	multipleOf: fc.constantFrom(2, 0.5),
};

/** A schema node of a few keywords (so valid values are common), nesting `depth` levels at most. */
function schemaAt(depth: number): fc.Arbitrary<unknown> {
	const keywords: Record<string, fc.Arbitrary<unknown>> = { ...LEAF_KEYWORDS };
	if (depth > 0) {
		const sub = schemaAt(depth - 1);
		keywords.properties = fc.dictionary(fc.constantFrom(...KEYS), sub, { maxKeys: 3 });
		keywords.additionalProperties = sub;
		keywords.items = sub;
	}
	const names = Object.keys(keywords);
	const node = fc
		.tuple(fc.subarray(names, { maxLength: 4 }), fc.record(keywords))
		.map(([picked, all]) => Object.fromEntries(picked.map((name) => [name, all[name]])));
	return fc.oneof({ weight: 1, arbitrary: fc.boolean() }, { weight: 8, arbitrary: node });
}

/** Schemas mostly inside the fast path's keywords, sometimes outside (it must then decline). */
const schema = schemaAt(3);

/** What the interpreting validator makes of `args` (the path before the fast one existed). */
function reference(rawSchema: unknown, args: unknown): { valid: boolean; value: unknown } {
	const copy = withoutFormats(rawSchema) as Schema;
	const lookup = dereference(copy);
	const data = JSON.parse(JSON.stringify(args)) as unknown;
	fillDefaults(copy, data, () => undefined);
	try {
		return { valid: validate(data, copy, "7", lookup, false).valid, value: data };
	} catch {
		return { valid: false, value: undefined };
	}
}

describe("compiled JSON Schema checks (SPEC T3)", () => {
	it("accept only what the interpreting validator accepts, with the same copy", () => {
		let accepted = 0;
		let compiled = 0;
		fc.assert(
			fc.property(schema, value, (rawSchema, args) => {
				const check = compileFastCheck(withoutFormats(rawSchema));
				if (!check) return;
				compiled++;
				const fast = check(args);
				if (fast === FALLBACK) return;
				accepted++;
				const slow = reference(rawSchema, args);
				expect(slow.valid).toBe(true);
				expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.value));
			}),
			{ numRuns: 1500 },
		);
		// Not vacuous: the generated schemas do reach the fast path and it does accept.
		expect(compiled).toBeGreaterThan(300);
		expect(accepted).toBeGreaterThan(100);
	});

	it("agrees on the edge cases of defaults, integers and code points", () => {
		const cases: [unknown, unknown][] = [
			// fillDefaults never reaches through additionalProperties: neither does the fast path.
			[{ additionalProperties: { properties: { x: { default: 1 } } } }, { a: {} }],
			// …but it does through items and nested properties.
			[{ items: { properties: { x: { default: 1 } } } }, [{}, { x: 2 }]],
			[{ properties: { a: { properties: { x: { default: [1] } } } } }, { a: {} }],
			// A default fills a required key, and is itself checked.
			[{ properties: { a: { type: "string", default: "z" } }, required: ["a"] }, {}],
			[{ properties: { a: { type: "string", default: 3 } } }, {}],
			[{ type: "integer" }, 2.0],
			[{ type: "integer" }, 2.5],
			[{ maxLength: 1 }, "😀"],
			[{ minLength: 2 }, "😀"],
			[{ const: null }, {}],
			[{ enum: [1, "1"] }, "1"],
			[false, 1],
		];
		for (const [rawSchema, args] of cases) {
			const check = compileFastCheck(withoutFormats(rawSchema));
			if (!check) throw new Error(`no fast check for ${JSON.stringify(rawSchema)}`);
			const fast = check(args);
			const slow = reference(rawSchema, args);
			const label = JSON.stringify([rawSchema, args]);
			if (fast === FALLBACK) expect(slow.valid, label).toBe(false);
			else expect([label, JSON.stringify(fast)]).toEqual([label, JSON.stringify(slow.value)]);
		}
	});

	it("declines keywords it does not implement", () => {
		for (const unsupported of [
			{ $ref: "#/definitions/a" },
			{ anyOf: [{ type: "string" }] },
			{ items: [{ type: "string" }] },
			{ uniqueItems: true },
			{ multipleOf: 2 },
			{ properties: { a: { not: {} } } },
			{ enum: [{ a: 1 }] },
			{ pattern: "(" },
		])
			expect(compileFastCheck(unsupported)).toBeUndefined();
	});

	it("fills defaults into a private copy and leaves the arguments alone", () => {
		const parameters: JsonSchema = {
			type: "object",
			properties: {
				path: { type: "string" },
				limit: { type: "integer", default: 100 },
				options: { type: "object", properties: { deep: { type: "boolean", default: false } }, default: {} },
			},
			required: ["path"],
			additionalProperties: false,
		};
		const args = { path: "a.txt" };
		const result = compileToolParameters(parameters).validate(args);
		expect(result).toEqual({ ok: true, value: { path: "a.txt", limit: 100, options: { deep: false } } });
		expect(args).toEqual({ path: "a.txt" });
		expect(result.ok && result.value).not.toBe(args);
	});

	it("leaves invalid arguments to the interpreting validator's messages", () => {
		const parameters: JsonSchema = {
			type: "object",
			properties: { ms: { type: "number", minimum: 0 } },
			required: ["ms"],
			additionalProperties: false,
		};
		const validator = compileToolParameters(parameters);
		expect(validator.validate({ ms: -1 })).toEqual({ ok: false, errors: ["/ms: must be >= 0"] });
		expect(validator.validate({ ms: 1, extra: true })).toMatchObject({ ok: false });
		expect(validator.validate({ ms: 1 })).toEqual({ ok: true, value: { ms: 1 } });
	});
});

describe("compiled validators are shared by equal schemas (SPEC T3)", () => {
	it("compiles a schema of the same text once, and a schema with non-JSON parts every time", () => {
		const schema = (): JsonSchema => ({ type: "object", properties: { q: { type: "string" } } });
		expect(compileJsonSchemaValidator(schema(), undefined)).toBe(
			compileJsonSchemaValidator(schema(), undefined),
		);
		// The draft is part of what a schema says.
		expect(compileJsonSchemaValidator(schema(), "http://json-schema.org/draft-04/schema#")).not.toBe(
			compileJsonSchemaValidator(schema(), undefined),
		);
		const exotic = (): JsonSchema => ({
			type: "object",
			properties: { q: { type: "string", x: undefined } },
		});
		expect(compileJsonSchemaValidator(exotic(), undefined)).not.toBe(
			compileJsonSchemaValidator(exotic(), undefined),
		);
	});
});
