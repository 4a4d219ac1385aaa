import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/core/model.js";
import { compileJsonSchemaValidator } from "../../src/tools/json-schema.js";

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

	it("a shared validator still validates each call on its own", () => {
		const schema = (): JsonSchema => ({
			type: "object",
			properties: { n: { type: "integer", default: 3 } },
			additionalProperties: false,
		});
		const first = compileJsonSchemaValidator(schema(), undefined);
		const second = compileJsonSchemaValidator(schema(), undefined);
		expect(first({})).toEqual({ ok: true, value: { n: 3 } });
		expect(second({ n: 1.5 }).ok).toBe(false);
		expect(second({ n: 2, extra: true }).ok).toBe(false);
	});
});
