import { dereference, type Schema, validate } from "@cfworker/json-schema";
import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/core/model.js";
import { flatObjectCheck } from "../../src/tools/flat-schema.js";
import { compileJsonSchemaValidator } from "../../src/tools/json-schema.js";
import { fillDefaults } from "../../src/tools/schema-walk.js";

const DRAFTS = ["4", "7", "2019-09", "2020-12"] as const;
const URIS = {
	"4": "http://json-schema.org/draft-04/schema#",
	"7": undefined,
	"2019-09": "https://json-schema.org/draft/2019-09/schema",
	"2020-12": "https://json-schema.org/draft/2020-12/schema",
} as const;

/** What the interpreting validator alone says about `value` (after filling defaults, when asked to). */
function interpreterSays(
	schema: JsonSchema,
	value: unknown,
	draft: (typeof DRAFTS)[number],
	withDefaults = false,
): boolean {
	const copy = structuredClone(schema) as Schema;
	const data = structuredClone(value);
	if (withDefaults) fillDefaults(copy, data, () => undefined);
	return validate(data, copy, draft, dereference(copy), false).valid;
}

const primitive = fc.oneof(
	fc.string({ maxLength: 3 }),
	fc.integer({ min: -3, max: 3 }),
	fc.double({ min: -3, max: 3, noNaN: true, noDefaultInfinity: true }),
	fc.boolean(),
	fc.constant(null),
);
const anyValue = fc.oneof(primitive, fc.constant({}), fc.constant([1]), fc.constant({ a: 1 }));
const typeName = fc.constantFrom("string", "number", "integer", "boolean", "null", "object", "array");
const NAMES = ["a", "b", "c", "toString"];

/** Field schemas: mostly flat ones, sometimes one with a keyword the check must leave to the validator. */
const fieldSchema: fc.Arbitrary<JsonSchema> = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ type: typeName }) },
	{
		weight: 2,
		arbitrary: fc.record({
			type: typeName,
			enum: fc.uniqueArray(primitive, { minLength: 1, maxLength: 3, comparator: (x, y) => x === y }),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			enum: fc.uniqueArray(primitive, { minLength: 1, maxLength: 3, comparator: (x, y) => x === y }),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ type: typeName, description: fc.string(), default: primitive }) },
	// Defaults that fit their field, so the check fills them in (and, on `-0`, leaves the schema alone).
	{
		weight: 2,
		arbitrary: fc.oneof(
			fc.record({ type: fc.constant("string"), default: fc.string({ maxLength: 3 }) }),
			fc.record({ type: fc.constant("integer"), default: fc.integer({ min: -3, max: 3 }) }),
			fc.record({ type: fc.constant("number"), default: fc.constantFrom(0, -0, 1.5) }),
			fc.record({ type: fc.constant("boolean"), default: fc.boolean() }),
			fc.record({ enum: fc.constant(["r", "w"]), default: fc.constantFrom("r", "w", "x") }),
		),
	},
	{
		weight: 1,
		arbitrary: fc.record({ type: fc.constant("number"), minimum: fc.integer({ min: -2, max: 2 }) }),
	},
	{ weight: 1, arbitrary: fc.record({ type: fc.constant(["string", "null"]) }) },
	{ weight: 1, arbitrary: fc.constant({}) },
);

const flatish: fc.Arbitrary<JsonSchema> = fc
	.record(
		{
			properties: fc.dictionary(fc.constantFrom(...NAMES), fieldSchema, { maxKeys: 3 }),
			required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 }),
			additionalProperties: fc.oneof(fc.boolean(), fc.constant({ type: "string" })),
			title: fc.string(),
		},
		{ requiredKeys: ["properties"] },
	)
	.map((parts) => ({ type: "object", ...parts }));

/** Values that often fit the schema (each field given a value of its own type), and often do not. */
function valueFor(schema: JsonSchema): fc.Arbitrary<unknown> {
	const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
	const fitting = (field: JsonSchema): fc.Arbitrary<unknown> => {
		if (Array.isArray(field.enum)) return fc.constantFrom(...(field.enum as unknown[]));
		switch (field.type) {
			case "string":
				return fc.string({ maxLength: 3 });
			case "integer":
				return fc.integer({ min: -3, max: 3 });
			case "number":
				return fc.double({ min: -3, max: 3, noNaN: true, noDefaultInfinity: true });
			case "boolean":
				return fc.boolean();
			case "null":
				return fc.constant(null);
			default:
				return anyValue;
		}
	};
	const entries = Object.entries(properties).map(([name, field]) =>
		fc.option(fc.tuple(fc.constant(name), fc.oneof({ weight: 4, arbitrary: fitting(field) }, anyValue)), {
			freq: 4,
			nil: undefined,
		}),
	);
	const extra = fc.option(fc.tuple(fc.constantFrom(...NAMES, "__proto__", "zzz"), anyValue), {
		freq: 3,
		nil: undefined,
	});
	const object = fc.tuple(fc.tuple(...entries), extra).map(([fields, more]) => {
		// Built as JSON would build it: a `__proto__` key is an own property, not the prototype.
		const pairs = [...fields, more].filter((pair) => pair !== undefined) as [string, unknown][];
		return JSON.parse(JSON.stringify(Object.fromEntries(pairs))) as unknown;
	});
	return fc.oneof({ weight: 8, arbitrary: object }, anyValue);
}

describe("the flat-schema check never accepts what the validator rejects (SPEC T3)", () => {
	it("on random flat and almost-flat schemas, in every draft", () => {
		fc.assert(
			fc.property(
				flatish.chain((schema) =>
					fc.tuple(fc.constant(schema), valueFor(schema), fc.constantFrom(...DRAFTS)),
				),
				([schema, value, draft]) => {
					const checked = flatObjectCheck(schema)?.(value);
					if (checked) {
						expect(interpreterSays(schema, value, draft, true)).toBe(true);
						// Its copy is what the validator hands on otherwise: the JSON round trip with the defaults
						// filled in (same keys, same order), never the input.
						const longWay = JSON.parse(JSON.stringify(value)) as unknown;
						fillDefaults(schema, longWay, () => undefined);
						expect(checked).toStrictEqual(longWay);
						expect(Object.keys(checked)).toStrictEqual(Object.keys(longWay as object));
						expect(checked).not.toBe(value);
					}
					// With the check in front, the compiled validator still agrees with the interpreter alone.
					const outcome = compileJsonSchemaValidator(schema, URIS[draft])(value);
					expect(outcome.ok).toBe(interpreterSays(schema, value, draft, true));
				},
			),
			{ numRuns: 3000 },
		);
	});

	it("takes the schemas tools usually have, TypeBox's included", () => {
		const typebox = Type.Object({
			path: Type.String({ description: "File path" }),
			mode: Type.Optional(Type.Union([Type.Literal("read"), Type.Literal("write")])),
			limit: Type.Optional(Type.Integer({ default: 10 })),
		});
		// A union of literals is `anyOf`, which stays with the validator.
		expect(flatObjectCheck(typebox)).toBeUndefined();
		const check = flatObjectCheck(
			Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()), all: Type.Boolean() }),
		);
		expect(check?.({ path: "a", limit: 3, all: false })).toStrictEqual({ path: "a", limit: 3, all: false });
		expect(check?.({ path: "a", limit: 3.5, all: false })).toBeUndefined();
		expect(check?.({ limit: 3, all: false })).toBeUndefined();
		const strict = flatObjectCheck({
			type: "object",
			properties: { ms: { type: "number" }, unit: { type: "string", enum: ["s", "ms"] } },
			required: ["ms"],
			additionalProperties: false,
		});
		expect(strict?.({ ms: 100 })).toStrictEqual({ ms: 100 });
		expect(strict?.({ ms: 100, unit: "ms" })).toStrictEqual({ ms: 100, unit: "ms" });
		expect(strict?.({ ms: 100, unit: "h" })).toBeUndefined();
		expect(strict?.({ ms: 100, other: 1 })).toBeUndefined();
		expect(strict?.({ ms: "100" })).toBeUndefined();
		expect(strict?.([100])).toBeUndefined();
		expect(flatObjectCheck({ type: "object" })?.({ anything: "x" })).toStrictEqual({ anything: "x" });
	});

	it("fills in the fields' defaults, after the fields present and in the schema's order", () => {
		const check = flatObjectCheck(
			Type.Object({
				path: Type.String(),
				limit: Type.Integer({ default: 10 }),
				all: Type.Optional(Type.Boolean({ default: false })),
			}),
		);
		const filled = check?.({ path: "a" });
		expect(filled).toStrictEqual({ path: "a", limit: 10, all: false });
		expect(Object.keys(filled ?? {})).toStrictEqual(["path", "limit", "all"]);
		expect(check?.({ all: true, path: "a" })).toStrictEqual({ all: true, path: "a", limit: 10 });
		// A required field with a default may be left out; a field given stays as given.
		expect(check?.({ path: "a", limit: 3 })).toStrictEqual({ path: "a", limit: 3, all: false });
		expect(check?.({ limit: 3 })).toBeUndefined();
		// A default its own field rejects, or one a JSON round trip would change, is the validator's.
		expect(
			flatObjectCheck({ type: "object", properties: { n: { type: "integer", default: 1.5 } } }),
		).toBeUndefined();
		expect(
			flatObjectCheck({ type: "object", properties: { n: { type: "number", default: -0 } } }),
		).toBeUndefined();
		const validator = compileJsonSchemaValidator(
			{ type: "object", properties: { n: { type: "integer", default: 1.5 } } },
			undefined,
		);
		expect(validator({}).ok).toBe(false);
		expect(validator({ n: 2 })).toStrictEqual({ ok: true, value: { n: 2 } });
	});

	it("refuses, valid or not, whatever a JSON round trip would not copy as it is", () => {
		const loose = flatObjectCheck({ type: "object", properties: { n: { type: "number" } } });
		// A nested value is valid here, but only the long way copies it.
		expect(loose?.({ anything: [1] })).toBeUndefined();
		expect(loose?.({ n: -0 })).toBeUndefined();
		expect(loose?.({ n: Number.POSITIVE_INFINITY })).toBeUndefined();
		expect(loose?.(JSON.parse('{"__proto__": 1}'))).toBeUndefined();
		expect(
			loose?.(
				new (class Args {
					n = 1;
				})(),
			),
		).toBeUndefined();
		expect(loose?.({ n: 1 })).toStrictEqual({ n: 1 });
		// The long way: the same private copy a round trip gives, and the validator's verdict on it.
		const validator = compileJsonSchemaValidator(
			{ type: "object", properties: { n: { type: "number" } } },
			undefined,
		);
		expect(validator({ n: -0 })).toStrictEqual({ ok: true, value: { n: 0 } });
		expect(validator({ anything: [1] })).toStrictEqual({ ok: true, value: { anything: [1] } });
	});

	it("leaves everything else to the validator", () => {
		const leftAlone: JsonSchema[] = [
			{ type: "object", properties: { a: { type: "object" } } },
			{ type: "object", properties: { a: { type: "array", items: { type: "string" } } } },
			{ type: "object", properties: { a: { type: "string", minLength: 1 } } },
			{ type: "object", properties: { a: { type: ["string", "null"] } } },
			{ type: "object", properties: { a: {} } },
			{ type: "object", properties: { a: { $ref: "#/definitions/b" } }, definitions: { b: {} } },
			{ type: "object", properties: { a: { enum: [{ x: 1 }] } } },
			{ type: "object", additionalProperties: { type: "string" } },
			{ type: "object", patternProperties: { "^x": { type: "string" } } },
			{ type: "object", required: "a" },
			{ properties: { a: { type: "string" } } },
			{ type: ["object"], properties: { a: { type: "string" } } },
		];
		for (const schema of leftAlone) expect(flatObjectCheck(schema), JSON.stringify(schema)).toBeUndefined();
	});
});
