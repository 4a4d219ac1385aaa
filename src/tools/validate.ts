/**
 * Rule T3: tool argument validation. Three schema worlds are accepted (rule T1):
 *
 * - **JSON Schema** (what TypeBox builds, or hand-written): validated by an interpreting validator
 *   (json-schema.ts), so it works where code generation from strings is disallowed. Unversioned schemas are
 *   draft-07, because TypeBox emits draft-07 shapes (e.g. tuple `items: [...]`, which 2020-12 rejects); a
 *   `$schema` naming draft-04, 2019-09 or 2020-12 selects that dialect. `$schema` is stripped from the wire
 *   schema (some providers reject it).
 * - **Zod 4** schemas: converted with `toJSONSchema({ io: "input", unrepresentable: "any" })` for the wire
 *   (input mode, so fields with defaults are optional for the model; a type JSON Schema cannot express becomes
 *   `{}` instead of throwing) and validated by zod itself, so refinements and transforms behave as their
 *   author wrote them.
 * - **Standard Schema v1** validators (Valibot, ArkType, …): validated by their own `~standard.validate`,
 *   which may be asynchronous; the wire schema comes from the validator (standard-schema.ts).
 *
 * Choices, made so the worlds behave alike and the model is told the truth:
 * - JSON Schema defaults fill missing fields, as zod's `.default()` does — into a private copy, never into
 *   the model's recorded arguments.
 * - No coercion — `"5"` for an integer is reported, not silently fixed: the model learns to send the right
 *   type, and history never disagrees with what the tool actually received.
 * - No `format` validation — as before (ajv needed a plugin capstan never shipped), so a schema's `format`
 *   stays a hint for the model and accepting a call does not depend on a validator's reading of "uri".
 *
 * Schemas are treated as immutable: compilation is memoized per schema object, so a schema mutated after its
 * first use keeps validating against its first shape.
 */
import { errorText } from "../core/abort.js";
import type { JsonSchema } from "../core/model.js";
import { compileJsonSchemaValidator, type JsonSchemaValidator } from "./json-schema.js";
import { isRecord } from "./schema-walk.js";
import {
	isStandardSchema,
	type StandardSchemaV1,
	standardWireSchema,
	validateStandard,
} from "./standard-schema.js";
import type { ToolParameters, ZodLikeSchema } from "./types.js";
import { describeValue, formatZodIssues } from "./validation-errors.js";

/** Outcome of validating one call's arguments. `value` is a fresh object; the input is never touched. */
export type ValidationResult = { ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] };

/**
 * A tool's parameters, compiled once: the wire schema and a validator. `TResult` is `ValidationResult` for
 * JSON Schema and Zod (always synchronous); a Standard Schema validator may answer with a promise.
 */
export interface CompiledToolParameters<TResult = ValidationResult | Promise<ValidationResult>> {
	/** The JSON Schema sent to providers (`$schema` removed). */
	jsonSchema: JsonSchema;
	/** Validate arguments; errors name each bad path and what was expected (rule T3). */
	validate(args: unknown): TResult;
}

const compiled = new WeakMap<object, CompiledToolParameters>();

/**
 * Compile a tool's parameters (JSON Schema, Zod 4 or Standard Schema). Memoized per schema object, and the
 * JSON Schema validator itself is built on the first validation: building the wire tool list should not pay
 * for tools never called.
 */
export function compileToolParameters(params: ZodLikeSchema): CompiledToolParameters<ValidationResult>;
export function compileToolParameters(params: StandardSchemaV1): CompiledToolParameters;
export function compileToolParameters(params: JsonSchema): CompiledToolParameters<ValidationResult>;
export function compileToolParameters(params: ToolParameters): CompiledToolParameters;
export function compileToolParameters(params: ToolParameters): CompiledToolParameters {
	// JSON Schema's `true` accepts anything; arguments are always an object, so it is "any object".
	if ((params as unknown) === true) return ANY_OBJECT;
	// Anything else without a schema object is refused where tools are given (definition-checks.ts); should one
	// still get here, each call says so (not memoized: a WeakMap takes no primitives).
	if ((typeof params !== "object" && typeof params !== "function") || params === null)
		return noSchema(params);
	const cached = compiled.get(params);
	if (cached) return cached;
	const result = isZodSchema(params)
		? compileZod(params)
		: isStandardSchema(params)
			? compileStandard(params)
			: compileJsonSchema(params as JsonSchema);
	compiled.set(params, result);
	return result;
}

/** True for a Zod 4 schema: recognised structurally so capstan needs no runtime dependency on zod. */
export function isZodSchema(params: ToolParameters): params is ZodLikeSchema {
	const candidate = params as Partial<ZodLikeSchema>;
	// `in` on a primitive throws; a tool with no schema object must still get a clear validation error.
	if (typeof params !== "object" || params === null) return false;
	return (
		"_zod" in params &&
		typeof candidate.safeParse === "function" &&
		typeof candidate.toJSONSchema === "function"
	);
}

function compileZod(schema: ZodLikeSchema): CompiledToolParameters<ValidationResult> {
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

function compileStandard(schema: StandardSchemaV1): CompiledToolParameters {
	return {
		jsonSchema: withoutSchemaKeyword(standardWireSchema(schema)),
		validate(args) {
			// A copy, as for zod: a validator's transform could mutate its input.
			const outcome = validateStandard(schema, cloneJson(args));
			if (outcome instanceof Promise)
				return outcome.then((settled) => (settled.ok ? asObjectResult(settled.value) : settled));
			return outcome.ok ? asObjectResult(outcome.value) : outcome;
		},
	};
}

function compileJsonSchema(schema: JsonSchema): CompiledToolParameters<ValidationResult> {
	const jsonSchema = withoutSchemaKeyword(schema);
	let validator: JsonSchemaValidator | undefined;
	return {
		jsonSchema,
		validate(args) {
			validator ??= compileJsonSchemaValidator(jsonSchema, schema.$schema);
			const outcome = validator(args);
			// The validator's `{ ok: true, value }` is handed on as it is when the value is an object.
			return outcome.ok && !isRecord(outcome.value)
				? notAnObject(outcome.value)
				: (outcome as ValidationResult);
		},
	};
}

/** Parameters `true`: an object schema on the wire (providers take no boolean schema), any object passes. */
const ANY_OBJECT: CompiledToolParameters<ValidationResult> = {
	jsonSchema: { type: "object" },
	validate: (args) => asObjectResult(cloneJson(args)),
};

/** Parameters that are no schema: a permissive wire schema, and every call rejected with the reason. */
function noSchema(params: unknown): CompiledToolParameters<ValidationResult> {
	const problem =
		"parameters must be a JSON Schema object, a Zod 4 schema or a Standard Schema validator; " +
		`received ${describeValue(params)}`;
	return {
		jsonSchema: { type: "object" },
		validate: () => ({ ok: false, errors: [`root: the tool's parameter schema is invalid (${problem})`] }),
	};
}

function withoutSchemaKeyword(schema: JsonSchema): JsonSchema {
	if (!("$schema" in schema)) return schema;
	const { $schema: _dropped, ...rest } = schema;
	return rest;
}

function asObjectResult(value: unknown): ValidationResult {
	return isRecord(value) ? { ok: true, value } : notAnObject(value);
}

function notAnObject(value: unknown): ValidationResult {
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
