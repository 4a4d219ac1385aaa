import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { JsonSchema } from "../../src/core/model.js";
import { compileToolParameters, isZodSchema, type ValidationResult } from "../../src/tools/validate.js";

function errorsOf(result: ValidationResult): string[] {
	if (result.ok) throw new Error("expected validation to fail");
	return result.errors;
}

describe("compileToolParameters — JSON Schema via TypeBox", () => {
	const schema = Type.Object({
		query: Type.String(),
		limit: Type.Optional(Type.Integer({ default: 10 })),
		path: Type.Optional(Type.Array(Type.Object({ count: Type.Integer() }))),
		mode: Type.Optional(Type.Union([Type.Literal("fast"), Type.Literal("slow")])),
	});
	const compiled = compileToolParameters(schema);

	it("accepts valid arguments and applies defaults to a copy (SPEC T3)", () => {
		const args = { query: "x" };
		const result = compiled.validate(args);
		expect(result).toEqual({ ok: true, value: { query: "x", limit: 10 } });
		expect(args).toEqual({ query: "x" }); // SPEC T3: the recorded arguments are never mutated
	});

	it("names each bad path and what was expected (SPEC T3)", () => {
		const args = { path: [{ count: 1.5 }, { count: "2" }] };
		const snapshot = structuredClone(args);
		const errors = errorsOf(compiled.validate(args));
		expect(errors).toContain('root: missing required property "query"');
		expect(errors).toContain("/path/0/count: must be integer (received number 1.5)");
		expect(errors).toContain('/path/1/count: must be integer (received string "2")');
		expect(args).toEqual(snapshot);
	});

	it("does not coerce types: a string for an integer is reported (SPEC T3)", () => {
		expect(errorsOf(compiled.validate({ query: "q", limit: "5" }))).toEqual([
			'/limit: must be integer (received string "5")',
		]);
	});

	it("rejects non-object arguments", () => {
		expect(errorsOf(compiled.validate("nope"))[0]).toMatch(/^root: must be object/);
	});

	it("is memoized per schema object", () => {
		expect(compileToolParameters(schema)).toBe(compiled);
	});

	it("keeps TypeBox tuples valid (draft-07 is the default dialect)", () => {
		const tuple = compileToolParameters(Type.Object({ pair: Type.Tuple([Type.String(), Type.Number()]) }));
		expect(tuple.validate({ pair: ["a", 1] }).ok).toBe(true);
		expect(errorsOf(tuple.validate({ pair: [1, "a"] }))).toContain(
			"/pair/0: must be string (received number 1)",
		);
	});
});

describe("compileToolParameters — raw JSON Schema", () => {
	it("validates enum, const and additionalProperties with readable errors (SPEC T3)", () => {
		const compiled = compileToolParameters({
			type: "object",
			properties: { color: { enum: ["red", "blue"] }, kind: { const: "k" } },
			required: ["color"],
			additionalProperties: false,
		});
		const errors = errorsOf(compiled.validate({ color: "green", kind: "x", extra: 1 }));
		expect(errors).toEqual([
			'root: unexpected property "extra"',
			'/color: must be one of "red", "blue"',
			'/kind: must be equal to "k"',
		]);
	});

	it("strips $schema for the wire and honours a 2020-12 dialect", () => {
		const schema = {
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "object",
			properties: { pair: { type: "array", prefixItems: [{ type: "string" }], items: false } },
		};
		const compiled = compileToolParameters(schema);
		expect(compiled.jsonSchema).not.toHaveProperty("$schema");
		expect(schema).toHaveProperty("$schema"); // the tool's own schema is untouched
		expect(compiled.validate({ pair: ["a"] }).ok).toBe(true);
		expect(compiled.validate({ pair: ["a", "b"] }).ok).toBe(false);
	});

	it("keeps the same wire object when there is no $schema (prompt-cache stability)", () => {
		const schema = { type: "object", properties: {} };
		expect(compileToolParameters(schema).jsonSchema).toBe(schema);
	});

	it("two schemas may share an $id", () => {
		const a = compileToolParameters({ $id: "args", type: "object", required: ["a"] });
		const b = compileToolParameters({ $id: "args", type: "object", required: ["b"] });
		expect(a.validate({ a: 1 }).ok).toBe(true);
		expect(b.validate({ b: 1 }).ok).toBe(true);
	});

	it("a broken schema becomes an error, not a crash", () => {
		const compiled = compileToolParameters({ type: "object", properties: { a: { type: "no-such-type" } } });
		expect(errorsOf(compiled.validate({}))[0]).toMatch(/^root: the tool's parameter schema is invalid/);
	});

	it("no schema object at all (a plain-JavaScript tool) is an error too, not a crash", () => {
		// SPEC T1: tools such as these are refused where they are given; a call is checked all the same.
		const table: [unknown, string][] = [
			[undefined, "undefined"],
			[null, "null"],
			[false, "boolean false"],
			["object", 'string "object"'],
		];
		for (const [params, received] of table) {
			const compiled = compileToolParameters(params as JsonSchema);
			expect(compiled.jsonSchema).toEqual({ type: "object" });
			expect(errorsOf(compiled.validate({}))).toEqual([
				"root: the tool's parameter schema is invalid (parameters must be a JSON Schema object, a Zod 4 " +
					`schema or a Standard Schema validator; received ${received})`,
			]);
		}
	});
});

describe("compileToolParameters — JSON Schema true (SPEC T1, T3)", () => {
	it("is any arguments object, an object schema on the wire", () => {
		const compiled = compileToolParameters(true as unknown as JsonSchema);
		expect(compiled.jsonSchema).toEqual({ type: "object" });
		const args = { a: [1], b: { c: "d" } };
		const result = compiled.validate(args);
		expect(result).toEqual({ ok: true, value: args });
		expect(result.ok && result.value).not.toBe(args); // a fresh object, as for every schema
		expect(compiled.validate({})).toEqual({ ok: true, value: {} });
		expect(errorsOf(compiled.validate([1]))).toEqual([
			"root: arguments must be a JSON object (received array)",
		]);
		expect(errorsOf(compiled.validate("x"))).toEqual([
			'root: arguments must be a JSON object (received string "x")',
		]);
	});
});

describe("compileToolParameters — Zod 4", () => {
	const schema = z.object({
		query: z.string(),
		n: z.number().int().default(3),
		tags: z.array(z.object({ count: z.number().int() })).optional(),
		mode: z.enum(["a", "b"]).optional(),
	});

	it("is recognised structurally", () => {
		expect(isZodSchema(schema)).toBe(true);
		expect(isZodSchema({ type: "object" })).toBe(false);
	});

	it("converts to an input-mode JSON Schema without $schema for the wire (SPEC T1)", () => {
		const { jsonSchema } = compileToolParameters(schema);
		expect(jsonSchema).not.toHaveProperty("$schema");
		expect(jsonSchema.type).toBe("object");
		expect(jsonSchema.required).toEqual(["query"]); // `n` has a default, so the model may omit it
	});

	it("validates with zod itself and returns parsed data (SPEC T3)", () => {
		const args = { query: "q" };
		expect(compileToolParameters(schema).validate(args)).toEqual({ ok: true, value: { query: "q", n: 3 } });
		expect(args).toEqual({ query: "q" });
	});

	it("names each bad path (SPEC T3)", () => {
		const errors = errorsOf(
			compileToolParameters(schema).validate({ n: "x", tags: [{ count: 1.5 }], mode: "c" }),
		);
		expect(errors[0]).toBe('root: missing required property "query"');
		expect(errors.some((line) => line.startsWith("/n: "))).toBe(true);
		expect(errors.some((line) => line.startsWith("/tags/0/count: "))).toBe(true);
		expect(errors.some((line) => line.startsWith("/mode: "))).toBe(true);
	});
});

describe("compileToolParameters — Zod edge cases", () => {
	it("a missing field named like an Object.prototype member is reported missing (SPEC T3)", () => {
		// Zod reads the inherited member and says "received function"; the model sent no function.
		const errors = errorsOf(
			compileToolParameters(
				z.object({ constructor: z.string(), o: z.object({ valueOf: z.number() }) }),
			).validate({ o: {} }),
		);
		expect(errors).toEqual([
			'root: missing required property "constructor"',
			'/o: missing required property "valueOf"',
		]);
	});

	it("an unrepresentable type does not make the wire schema throw", () => {
		const schema = z.object({ when: z.date(), name: z.string() });
		expect(() => compileToolParameters(schema).jsonSchema).not.toThrow();
		expect(compileToolParameters(schema).jsonSchema.required).toEqual(["when", "name"]);
	});

	it("a schema zod cannot check synchronously becomes an error, not a crash (SPEC T3)", () => {
		const schema = z.object({ a: z.string() }).refine(async () => true);
		const result = compileToolParameters(schema).validate({ a: "x" });
		expect(result.ok).toBe(false);
	});
});

describe("compileToolParameters — unions", () => {
	it("a union of simple types reads as one line (SPEC T3)", () => {
		const compiled = compileToolParameters(Type.Object({ v: Type.Union([Type.String(), Type.Number()]) }));
		expect(errorsOf(compiled.validate({ v: true }))).toEqual([
			"/v: must be string or number (received boolean true)",
		]);
	});

	it("a union of literals reads as one line (SPEC T3)", () => {
		const compiled = compileToolParameters(
			Type.Object({ mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]) }),
		);
		expect(errorsOf(compiled.validate({ mode: "medium" }))).toEqual([
			'/mode: must be "fast" or "slow" (received string "medium")',
		]);
	});

	it("a union with object branches keeps the branch details", () => {
		const compiled = compileToolParameters(
			Type.Object({ target: Type.Union([Type.Object({ id: Type.Integer() }), Type.String()]) }),
		);
		const errors = errorsOf(compiled.validate({ target: { id: "x" } }));
		expect(errors).toContain('/target/id: must be integer (received string "x")');
		expect(errors).toContain("/target: must match a schema in anyOf");
	});
});
