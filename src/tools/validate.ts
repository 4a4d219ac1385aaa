/**
 * SPEC T3: tool argument validation. Two schema worlds are accepted (SPEC T1):
 *
 * - **JSON Schema** (what TypeBox builds, or hand-written): validated by ajv. Unversioned schemas are compiled
 *   as draft-07, because TypeBox emits draft-07 shapes (e.g. tuple `items: [...]`, which 2020-12 rejects);
 *   a `$schema` naming 2019-09 or 2020-12 selects that dialect. `$schema` is stripped both before compiling
 *   (ajv would otherwise try to resolve the meta-schema) and from the wire schema (some providers reject it).
 * - **Zod 4** schemas: converted with `toJSONSchema({ io: "input", unrepresentable: "any" })` for the wire
 *   (input mode, so fields with defaults are optional for the model; a type JSON Schema cannot express becomes
 *   `{}` instead of throwing) and validated by zod itself, so refinements and transforms behave as their
 *   author wrote them.
 *
 * Choices, made so both worlds behave alike and the model is told the truth:
 * - `useDefaults: true` — schema defaults fill missing fields, as zod's `.default()` does. Ajv fills them
 *   into a clone, never into the model's recorded arguments.
 * - `coerceTypes: false` — `"5"` for an integer is reported, not silently fixed: the model learns to send the
 *   right type, and history never disagrees with what the tool actually received.
 * - `validateFormats: false` — capstan ships no format plugin; without it ajv would only log warnings.
 *
 * Schemas are treated as immutable: compilation is memoized per schema object, so a schema mutated after its
 * first use keeps validating against its first shape.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { errorText } from "../core/abort.js";
import type { JsonSchema } from "../core/model.js";
import type { ToolParameters, ZodLikeSchema } from "./types.js";
import { describeValue, formatAjvErrors, formatZodIssues } from "./validation-errors.js";

/** Outcome of validating one call's arguments. `value` is a fresh object; the input is never touched. */
export type ValidationResult = { ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] };

/** A tool's parameters, compiled once: the wire schema and a validator. */
export interface CompiledToolParameters {
	/** The JSON Schema sent to providers (`$schema` removed). */
	jsonSchema: JsonSchema;
	/** Validate arguments; errors name each bad path and what was expected (SPEC T3). */
	validate(args: unknown): ValidationResult;
}

const compiled = new WeakMap<object, CompiledToolParameters>();

/**
 * Compile a tool's parameters (JSON Schema or Zod 4). Memoized per schema object, and the ajv compile itself
 * is deferred to the first validation: building the wire tool list should not pay for tools never called.
 */
export function compileToolParameters(params: ToolParameters): CompiledToolParameters {
	const cached = compiled.get(params);
	if (cached) return cached;
	const result = isZodSchema(params) ? compileZod(params) : compileJsonSchema(params);
	compiled.set(params, result);
	return result;
}

/** True for a Zod 4 schema: recognised structurally so capstan needs no runtime dependency on zod. */
export function isZodSchema(params: ToolParameters): params is ZodLikeSchema {
	const candidate = params as Partial<ZodLikeSchema>;
	return (
		"_zod" in params &&
		typeof candidate.safeParse === "function" &&
		typeof candidate.toJSONSchema === "function"
	);
}

function compileZod(schema: ZodLikeSchema): CompiledToolParameters {
	return {
		jsonSchema: zodWireSchema(schema),
		validate(args) {
			// Clone anyway: a user's preprocess step could mutate its input, and the recorded call must not change.
			let parsed: ReturnType<ZodLikeSchema["safeParse"]>;
			try {
				parsed = schema.safeParse(cloneJson(args));
			} catch (error) {
				// e.g. an async refinement, which a synchronous parse cannot run: a schema bug, reported as data.
				return {
					ok: false,
					errors: [`root: the tool's parameter schema could not be checked (${errorText(error)})`],
				};
			}
			if (parsed.success) return asObjectResult(parsed.data);
			const issues = parsed.error?.issues ?? [];
			if (issues.length === 0) return { ok: false, errors: ["root: invalid arguments"] };
			return { ok: false, errors: formatZodIssues(issues, args) };
		},
	};
}

/**
 * Input mode: the model supplies input, so fields with defaults are optional for it. Should the conversion
 * still throw, the wire falls back to a permissive object schema; zod keeps validating, and its errors tell
 * the model what to send.
 */
function zodWireSchema(schema: ZodLikeSchema): JsonSchema {
	try {
		return withoutSchemaKeyword(schema.toJSONSchema({ io: "input", unrepresentable: "any" }));
	} catch {
		return { type: "object" };
	}
}

function compileJsonSchema(schema: JsonSchema): CompiledToolParameters {
	const jsonSchema = withoutSchemaKeyword(schema);
	let validator: ValidateFunction | { error: string } | undefined;
	return {
		jsonSchema,
		validate(args) {
			validator ??= compileAjv(jsonSchema, schema.$schema);
			if ("error" in validator) return { ok: false, errors: [validator.error] };
			const value = cloneJson(args);
			if (validator(value)) return asObjectResult(value);
			return { ok: false, errors: formatAjvErrors(validator.errors ?? [], value) };
		},
	};
}

type Dialect = "draft-07" | "2019-09" | "2020-12";
const ajvByDialect = new Map<Dialect, Ajv>();

function ajvFor(dialect: Dialect): Ajv {
	let ajv = ajvByDialect.get(dialect);
	if (ajv) return ajv;
	// addUsedSchema: false — two tools may reuse the same `$id`; registering it globally would make the second
	// compile throw "schema with key or id already exists".
	const options = {
		allErrors: true,
		strict: false,
		useDefaults: true,
		coerceTypes: false,
		validateFormats: false,
		addUsedSchema: false,
	} as const;
	if (dialect === "2020-12") ajv = new Ajv2020(options);
	else if (dialect === "2019-09") ajv = new Ajv2019(options);
	else ajv = new Ajv(options);
	ajvByDialect.set(dialect, ajv);
	return ajv;
}

function dialectOf(schemaUri: unknown): Dialect {
	if (typeof schemaUri !== "string") return "draft-07";
	if (schemaUri.includes("2020-12")) return "2020-12";
	if (schemaUri.includes("2019-09")) return "2019-09";
	return "draft-07";
}

function compileAjv(schema: JsonSchema, schemaUri: unknown): ValidateFunction | { error: string } {
	try {
		return ajvFor(dialectOf(schemaUri)).compile(schema);
	} catch (error) {
		// A broken schema is the tool author's bug; the call still gets an error result instead of a crash.
		return { error: `root: the tool's parameter schema is invalid (${errorText(error)})` };
	}
}

function withoutSchemaKeyword(schema: JsonSchema): JsonSchema {
	if (!("$schema" in schema)) return schema;
	const { $schema: _dropped, ...rest } = schema;
	return rest;
}

function asObjectResult(value: unknown): ValidationResult {
	if (typeof value === "object" && value !== null && !Array.isArray(value))
		return { ok: true, value: value as Record<string, unknown> };
	return { ok: false, errors: [`root: arguments must be a JSON object (received ${describeValue(value)})`] };
}

/** Tool arguments come from JSON, so a JSON-safe deep copy is exact; anything exotic is copied structurally. */
function cloneJson(value: unknown): unknown {
	if (typeof value !== "object" || value === null) return value;
	try {
		return structuredClone(value);
	} catch {
		return JSON.parse(JSON.stringify(value)) as unknown;
	}
}
