import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/core/model.js";
import { fillDefaults, mentionsDefault, withoutFormats } from "../../src/tools/schema-walk.js";
import { compileToolParameters, type ValidationResult } from "../../src/tools/validate.js";

function errorsOf(result: ValidationResult): string[] {
	if (result.ok) throw new Error("expected validation to fail");
	return result.errors;
}

const objectOf = (properties: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
	type: "object",
	properties,
	...extra,
});

describe("JSON Schema messages keep their wording (SPEC T3)", () => {
	// The lines capstan's messages had with ajv, now produced from the interpreting validator's errors.
	const table: [string, JsonSchema, unknown, string[]][] = [
		[
			"minLength",
			objectOf({ a: { minLength: 3 } }),
			{ a: "x" },
			["/a: must NOT have fewer than 3 characters"],
		],
		[
			"maxLength",
			objectOf({ a: { maxLength: 1 } }),
			{ a: "xyz" },
			["/a: must NOT have more than 1 characters"],
		],
		["pattern", objectOf({ a: { pattern: "^a+$" } }), { a: "b" }, ['/a: must match pattern "^a+$"']],
		["minimum", objectOf({ a: { minimum: 1 } }), { a: 0 }, ["/a: must be >= 1"]],
		["maximum", objectOf({ a: { maximum: 1.5 } }), { a: 2 }, ["/a: must be <= 1.5"]],
		["exclusiveMinimum", objectOf({ a: { exclusiveMinimum: -1 } }), { a: -1 }, ["/a: must be > -1"]],
		["exclusiveMaximum", objectOf({ a: { exclusiveMaximum: 1 } }), { a: 1 }, ["/a: must be < 1"]],
		["multipleOf", objectOf({ a: { multipleOf: 3 } }), { a: 4 }, ["/a: must be multiple of 3"]],
		["minItems", objectOf({ a: { minItems: 2 } }), { a: [1] }, ["/a: must NOT have fewer than 2 items"]],
		["maxItems", objectOf({ a: { maxItems: 1 } }), { a: [1, 2] }, ["/a: must NOT have more than 1 items"]],
		[
			"uniqueItems",
			objectOf({ a: { uniqueItems: true } }),
			{ a: [1, 2, 1] },
			["/a: must NOT have duplicate items (items ## 0 and 2 are identical)"],
		],
		[
			"contains",
			objectOf({ a: { contains: { type: "string" } } }),
			{ a: [1] },
			["/a: must contain at least 1 valid item(s)"],
		],
		[
			"minProperties",
			objectOf({ a: { minProperties: 2 } }),
			{ a: {} },
			["/a: must NOT have fewer than 2 properties"],
		],
		[
			"maxProperties",
			objectOf({ a: { maxProperties: 0 } }),
			{ a: { x: 1 } },
			["/a: must NOT have more than 0 properties"],
		],
		["not", objectOf({ a: { not: { type: "string" } } }), { a: "s" }, ["/a: must NOT be valid"]],
		[
			"oneOf",
			objectOf({ a: { oneOf: [{ type: "number" }, { type: "integer" }] } }),
			{ a: 1 },
			["/a: must match exactly one schema in oneOf"],
		],
		[
			"type list",
			objectOf({ a: { type: ["string", "null"] } }),
			{ a: 1 },
			["/a: must be string,null (received number 1)"],
		],
		[
			"dependencies",
			objectOf({}, { dependencies: { a: ["b"] } }),
			{ a: 1 },
			["root: must have property b when property a is present"],
		],
		[
			"if/then",
			// biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here, never awaited.
			objectOf({}, { if: { required: ["a"] }, then: { required: ["b"] } }),
			{ a: 1 },
			['root: missing required property "b"', 'root: must match "then" schema'],
		],
		[
			"additionalItems: false",
			{ type: "array", items: [{ type: "string" }], additionalItems: false },
			["a", 1, 2],
			["root: must NOT have more than 1 items"],
		],
		[
			"enum of objects",
			objectOf({ a: { enum: [1, { x: 2 }] } }),
			{ a: 3 },
			['/a: must be one of 1, {"x":2}'],
		],
		["const array", objectOf({ a: { const: [1] } }), { a: 3 }, ["/a: must be equal to [1]"]],
		[
			"escaped key",
			objectOf({ "a/b~c": { type: "string" } }),
			{ "a/b~c": 1 },
			["/a~1b~0c: must be string (received number 1)"],
		],
		[
			"key with quotes",
			{ type: "object", required: ['say "hi"'] },
			{},
			['root: missing required property "say \\"hi\\""'],
		],
		[
			"additionalProperties schema",
			objectOf({}, { additionalProperties: { type: "string" } }),
			{ x: 1 },
			["/x: must be string (received number 1)"],
		],
		["null arguments", { type: "object", required: ["a"] }, null, ["root: must be object (received null)"]],
	];
	it.each(table)("%s", (_name, schema, args, expected) => {
		expect(errorsOf(compileToolParameters(schema).validate(args))).toEqual(expected);
	});

	it("an unversioned `$ref` through `definitions` still names the pattern's failure", () => {
		const schema = objectOf({ a: { $ref: "#/definitions/s" } }, { definitions: { s: { pattern: "^x" } } });
		expect(errorsOf(compileToolParameters(schema).validate({ a: "y" }))).toEqual([
			"/a: must match the schema's pattern",
		]);
	});
});

describe("JSON Schema dialects", () => {
	it("draft-04: a boolean exclusiveMinimum", () => {
		const schema = {
			$schema: "http://json-schema.org/draft-04/schema#",
			...objectOf({ a: { minimum: 1, exclusiveMinimum: true } }),
		};
		expect(errorsOf(compileToolParameters(schema).validate({ a: 1 }))).toEqual(["/a: must be > 1"]);
	});

	it("2019-09: dependentRequired", () => {
		const schema = {
			$schema: "https://json-schema.org/draft/2019-09/schema",
			type: "object",
			dependentRequired: { a: ["b"] },
		};
		expect(errorsOf(compileToolParameters(schema).validate({ a: 1 }))).toEqual([
			"root: must have property b when property a is present",
		]);
	});

	it("2020-12: unevaluatedProperties: false names the unexpected key", () => {
		const schema = {
			$schema: "https://json-schema.org/draft/2020-12/schema",
			allOf: [objectOf({ a: { type: "string" } })],
			unevaluatedProperties: false,
		};
		expect(compileToolParameters(schema).validate({ a: "x" }).ok).toBe(true);
		expect(errorsOf(compileToolParameters(schema).validate({ a: "x", b: 1 }))).toEqual([
			'root: unexpected property "b"',
		]);
	});

	it("TypeBox recursive schemas resolve their `$ref`s by `$id`", () => {
		const node = Type.Recursive((self) =>
			Type.Object({ id: Type.Integer(), kids: Type.Optional(Type.Array(self)) }),
		);
		const compiled = compileToolParameters(Type.Object({ tree: node }));
		expect(
			errorsOf(compiled.validate({ tree: { id: 1, kids: [{ id: "x" }, { id: 2, kids: [{ id: 1.5 }] }] } })),
		).toEqual([
			'/tree/kids/0/id: must be integer (received string "x")',
			"/tree/kids/1/kids/0/id: must be integer (received number 1.5)",
		]);
	});
});

describe("JSON Schema validation choices", () => {
	it("fills defaults through $ref, allOf and array items, into a copy (SPEC T3)", () => {
		const schema = {
			type: "object",
			properties: {
				o: { $ref: "#/definitions/o" },
				list: { type: "array", items: { type: "object", properties: { d: { default: "z" } } } },
			},
			allOf: [{ properties: { top: { default: [1] } } }],
			definitions: { o: { type: "object", properties: { d: { type: "integer", default: 7 } } } },
		};
		const args = { o: {}, list: [{}, { d: 1 }] };
		expect(compileToolParameters(schema).validate(args)).toEqual({
			ok: true,
			value: { o: { d: 7 }, list: [{ d: "z" }, { d: 1 }], top: [1] },
		});
		expect(args).toEqual({ o: {}, list: [{}, { d: 1 }] });
	});

	it("validates no formats, but a property named `format` is still checked", () => {
		const schema = objectOf({ email: { type: "string", format: "email" }, format: { type: "string" } });
		expect(compileToolParameters(schema).validate({ email: "not an email", format: "x" }).ok).toBe(true);
		expect(errorsOf(compileToolParameters(schema).validate({ email: "x", format: 2 }))).toEqual([
			"/format: must be string (received number 2)",
		]);
	});

	it("leaves the tool's schema untouched, even a frozen one", () => {
		const schema = Object.freeze(
			objectOf(
				{ a: Object.freeze({ $ref: "#/definitions/a" }) },
				{
					definitions: Object.freeze({ a: Object.freeze({ type: "string" }) }),
				},
			),
		);
		const before = JSON.stringify(schema);
		expect(errorsOf(compileToolParameters(schema).validate({ a: 1 }))).toEqual([
			"/a: must be string (received number 1)",
		]);
		expect(JSON.stringify(schema)).toBe(before);
		expect(Object.getOwnPropertyNames(schema.properties)).toEqual(["a"]);
	});

	it("a missing $ref target is the schema's error, on one line", () => {
		const compiled = compileToolParameters(objectOf({ a: { $ref: "#/definitions/missing" } }));
		const errors = errorsOf(compiled.validate({ a: 1 }));
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatch(/^root: the tool's parameter schema is invalid \(Unresolved \$ref/);
		expect(errors[0]).not.toContain("\n");
	});

	it("a schema the meta-schema rejects is reported with the bad spot", () => {
		const errors = errorsOf(compileToolParameters({ type: "object", required: "a" }).validate({}));
		expect(errors).toEqual([
			'root: the tool\'s parameter schema is invalid (/required: must be array (received string "a"))',
		]);
	});

	it("a `$ref` outside the URI grammar, as generators write it, is no schema error (formats are not checked)", () => {
		// typescript-json-schema names generic instances like this; the validator resolves the reference.
		const compiled = compileToolParameters(
			objectOf(
				{ labels: { $ref: "#/definitions/Record<string,string>" } },
				{
					definitions: {
						"Record<string,string>": { type: "object", additionalProperties: { type: "string" } },
					},
				},
			),
		);
		expect(compiled.validate({ labels: { a: "b" } })).toEqual({ ok: true, value: { labels: { a: "b" } } });
		expect(errorsOf(compiled.validate({ labels: { a: 1 } }))).toEqual([
			"/labels/a: must be string (received number 1)",
		]);
		// A pattern the validator cannot compile is still the schema's error, before any argument reaches it.
		const badPattern = compileToolParameters(objectOf({ p: { type: "string", pattern: "^a\\Z" } }));
		expect(errorsOf(badPattern.validate({}))[0]).toMatch(/^root: the tool's parameter schema is invalid \(/);
	});

	it("arguments are JSON: an undefined value reads as an absent key, a BigInt is reported", () => {
		const compiled = compileToolParameters({ type: "object", required: ["a"] });
		expect(errorsOf(compiled.validate({ a: undefined }))).toEqual(['root: missing required property "a"']);
		expect(errorsOf(compiled.validate({ a: 1n }))[0]).toMatch(/^root: arguments must be JSON \(/);
	});
});

describe("schema walks", () => {
	it("withoutFormats drops `format` keywords only, in every subschema position", () => {
		const schema = {
			format: "x",
			properties: { format: { type: "string", format: "uri" } },
			items: [{ format: "date" }],
			anyOf: [{ format: "email" }],
			definitions: { d: { not: { format: "uuid" } } },
			enum: [{ format: "kept: a value, not a schema" }],
		};
		expect(withoutFormats(schema)).toEqual({
			properties: { format: { type: "string" } },
			items: [{}],
			anyOf: [{}],
			definitions: { d: { not: {} } },
			enum: [{ format: "kept: a value, not a schema" }],
		});
		expect(schema.properties.format.format).toBe("uri");
	});

	it("fillDefaults writes a `__proto__` default as data, never as the prototype", () => {
		const data: Record<string, unknown> = {};
		fillDefaults({ properties: { ["__proto__"]: { default: { polluted: true } } } }, data, () => undefined);
		expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
		expect(Object.hasOwn(data, "__proto__")).toBe(true);
	});

	it("fillDefaults ends on a schema that refers to itself at the same value", () => {
		const schema: JsonSchema = { properties: { a: { default: 1 } } };
		schema.allOf = [schema];
		const data = {};
		fillDefaults(schema, data, () => schema);
		expect(data).toEqual({ a: 1 });
	});

	it("mentionsDefault finds a `default` key at any depth, so a schema without one skips the fill", () => {
		expect(mentionsDefault({ type: "object", properties: { a: { type: "number" } }, required: ["a"] })).toBe(
			false,
		);
		expect(mentionsDefault({ definitions: { o: { properties: { d: { default: 7 } } } } })).toBe(true);
		expect(mentionsDefault({ anyOf: [{ items: [{ default: null }] }] })).toBe(true);
		// Conservative: a property named `default` counts, and costs only the (no-op) walk.
		expect(mentionsDefault({ properties: { default: { type: "string" } } })).toBe(true);
	});

	it("a `default: undefined`, as a schema built from an unset option has, fills nothing (SPEC T3)", () => {
		const unset: { mode?: string } = {};
		const schema = objectOf(
			{ q: { type: "string" }, mode: { type: "string", default: unset.mode } },
			{ required: ["q"] },
		);
		expect(compileToolParameters(schema).validate({ q: "x" })).toEqual({ ok: true, value: { q: "x" } });
		const nested = objectOf({ o: objectOf({ mode: { type: "string", default: undefined } }) });
		expect(compileToolParameters(nested).validate({ o: {} })).toEqual({ ok: true, value: { o: {} } });
	});

	it("a default reached only through $ref is still filled (SPEC T3)", () => {
		const schema = objectOf(
			{ o: { $ref: "#/definitions/o" } },
			{ definitions: { o: objectOf({ d: { default: 1 } }) } },
		);
		expect(compileToolParameters(schema).validate({ o: {} })).toEqual({ ok: true, value: { o: { d: 1 } } });
	});

	it("fillDefaults fills a draft-07 tuple's rest from additionalItems", () => {
		const data = [{}, {}];
		const rest = { properties: { r: { default: true } } };
		fillDefaults(
			{ items: [{ properties: { t: { default: 0 } } }], additionalItems: rest },
			data,
			() => undefined,
		);
		expect(data).toEqual([{ t: 0 }, { r: true }]);
	});
});

describe("JSON Schema argument copy (SPEC T3: the validated value is a private JSON copy)", () => {
	const open = compileToolParameters({ type: "object" });
	const copyOf = (args: unknown): unknown => {
		const result = open.validate(args);
		return result.ok ? result.value : result.errors;
	};

	it("equals the JSON round trip, key order included, for plain and for exotic values", () => {
		class Point {
			constructor(readonly x: number) {}
		}
		const proto = JSON.parse('{"__proto__": {"a": 1}}') as Record<string, unknown>;
		const cases: Record<string, unknown>[] = [
			{ b: 1, a: "x", 2: true, 1: null, nested: { list: [1, "two", { three: 3 }], empty: {} } },
			{ zero: -0, list: [-0, 1.5] },
			{ gone: undefined, list: [undefined, 1], fn: () => 1 },
			{ when: new Date(0), big: Number.NaN, inf: Number.POSITIVE_INFINITY },
			{ custom: { toJSON: () => "custom" }, point: new Point(2) },
			proto,
			Object.assign(Object.create(null) as Record<string, unknown>, { bare: 1 }),
		];
		for (const args of cases) {
			const copy = copyOf(args);
			const expected = JSON.parse(JSON.stringify(args)) as unknown;
			expect(copy).toEqual(expected);
			expect(JSON.stringify(copy)).toBe(JSON.stringify(expected));
			expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		}
		const protoCopy = copyOf(proto) as Record<string, unknown>;
		expect(Object.hasOwn(protoCopy, "__proto__")).toBe(true);
	});

	it("never shares objects with the model's arguments (strings may be shared: they are immutable)", () => {
		const args = { data: "x".repeat(1000), nested: { list: [{ a: 1 }] } };
		const copy = copyOf(args) as typeof args;
		expect(copy).toEqual(args);
		expect(copy).not.toBe(args);
		expect(copy.nested).not.toBe(args.nested);
		expect(copy.nested.list).not.toBe(args.nested.list);
		expect(copy.nested.list[0]).not.toBe(args.nested.list[0]);
	});

	it("reports a cycle as arguments that are not JSON, as before", () => {
		const args: Record<string, unknown> = {};
		args.self = args;
		expect(String(copyOf(args))).toMatch(/^root: arguments must be JSON/);
	});
});
