/**
 * Type tests (checked by `tsc --noEmit`, which covers test/): `tool()` infers `execute`'s arguments from
 * each kind of schema, and a mismatch does not compile. Each `@ts-expect-error` fails the typecheck if the
 * line below it ever compiles.
 */
import { Type } from "@sinclair/typebox";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { JsonSchema } from "../../src/core/model.js";
import type { FromJsonSchema, InferToolArgs } from "../../src/tools/infer.js";
import { tool } from "../../src/tools/tool.js";
import type { AgentTool, ToolResult } from "../../src/tools/types.js";

const ok = async (): Promise<ToolResult> => ({ content: [{ type: "text", text: "ok" }] });

describe("tool() argument inference", () => {
	it("Zod 4: the validated output (defaults present, transforms applied)", () => {
		const schema = z.object({
			path: z.string(),
			limit: z.number().int().default(10),
			tags: z.array(z.string()).optional(),
			size: z.string().transform((text) => text.length),
		});
		expectTypeOf<InferToolArgs<typeof schema>>().toEqualTypeOf<{
			path: string;
			limit: number;
			tags?: string[] | undefined;
			size: number;
		}>();
		tool({
			name: "read",
			description: "d",
			parameters: schema,
			execute: async (_id, args) => {
				expectTypeOf(args.limit).toEqualTypeOf<number>();
				// @ts-expect-error — not in the schema
				args.nope;
				return ok();
			},
		});
	});

	it("Standard Schema: Valibot and ArkType outputs", () => {
		const valibot = v.object({ query: v.string(), page: v.optional(v.number(), 1) });
		expectTypeOf<InferToolArgs<typeof valibot>>().toEqualTypeOf<{ query: string; page: number }>();
		const ark = type({ path: "string", "count?": "number.integer" });
		expectTypeOf<InferToolArgs<typeof ark>>().toEqualTypeOf<{ path: string; count?: number }>();
	});

	it("TypeBox: Static<T>", () => {
		const schema = Type.Object({ q: Type.String(), n: Type.Optional(Type.Integer()) });
		expectTypeOf<InferToolArgs<typeof schema>>().toEqualTypeOf<{ q: string; n?: number }>();
	});

	it("JSON Schema literal: properties, required, defaults, enums, arrays, tuples, unions", () => {
		const schema = {
			type: "object",
			properties: {
				path: { type: "string" },
				mode: { enum: ["fast", "slow"] },
				limit: { type: "integer", default: 10 },
				tags: { type: "array", items: { type: "string" } },
				pair: { type: "array", items: [{ type: "string" }, { type: "number" }] },
				target: { anyOf: [{ type: "string" }, { type: "object", properties: { id: { type: "integer" } } }] },
				nullable: { type: ["string", "null"] },
				kind: { const: "k" },
				free: {},
			},
			required: ["path", "mode"],
		} as const;
		expectTypeOf<InferToolArgs<typeof schema>>().toEqualTypeOf<{
			path: string;
			mode: "fast" | "slow";
			limit: number;
			tags?: string[];
			pair?: [string, number];
			target?: string | { id?: number };
			nullable?: string | null;
			kind?: "k";
			free?: unknown;
		}>();
	});

	it("a JSON Schema written inline needs no `as const`", () => {
		tool({
			name: "t",
			description: "d",
			parameters: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
			execute: async (_id, args) => {
				expectTypeOf(args).toEqualTypeOf<{ count: number }>();
				return ok();
			},
		});
	});

	it("a schema typed only as JsonSchema gives a record, never any", () => {
		const loose: JsonSchema = { type: "object" };
		expectTypeOf<InferToolArgs<typeof loose>>().toEqualTypeOf<Record<string, unknown>>();
		expectTypeOf<FromJsonSchema<{ type: "object" }>>().toEqualTypeOf<Record<string, unknown>>();
	});
});

describe("mismatches do not compile", () => {
	it("execute's declared arguments must match the schema", () => {
		tool({
			name: "t",
			description: "d",
			parameters: z.object({ path: z.string() }),
			// @ts-expect-error — the schema has no `count`
			execute: async (_id, _args: { count: number }) => ok(),
		});
		tool({
			name: "t",
			description: "d",
			parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
			execute: async (_id, args) => {
				// @ts-expect-error — nothing below an unknown property
				args.nope.deeper;
				return ok();
			},
		});
	});

	it("AgentTool<TArgs> with a Zod or Standard Schema of another type", () => {
		const zodMismatch: AgentTool<{ count: number }> = {
			name: "t",
			description: "d",
			// @ts-expect-error — parameters validate to { path: string }, not { count: number }
			parameters: z.object({ path: z.string() }),
			execute: ok,
		};
		const valibotMismatch: AgentTool<{ count: number }> = {
			name: "t",
			description: "d",
			// @ts-expect-error — likewise for Valibot
			parameters: v.object({ path: v.string() }),
			execute: ok,
		};
		const matching: AgentTool<{ count: number }> = {
			name: "t",
			description: "d",
			parameters: z.object({ count: z.number() }),
			execute: ok,
		};
		expectTypeOf(matching.parameters).not.toBeAny();
		void [zodMismatch, valibotMismatch];
	});

	it("jsonSchema is only for Standard Schema validators", () => {
		// At runtime the same mistake throws; here it must not even compile.
		expect(() =>
			tool({
				name: "t",
				description: "d",
				parameters: z.object({ a: z.string() }),
				// @ts-expect-error — a Zod schema is its own wire schema
				jsonSchema: { type: "object" },
				execute: ok,
			}),
		).toThrow(TypeError);
	});
});
