/**
 * Standard Schema v1 (standardschema.dev), the interface Valibot, ArkType, Zod and others implement, and the
 * `jsonSchema` member of its StandardJSONSchemaV1 companion. The spec asks libraries to copy these types
 * rather than depend on a package, so published types need nothing installed; they are copied here
 * (flattened out of the spec's namespace, optional members capstan does not read left out).
 *
 * Validation runs through `~standard.validate` (sync or async) and its issues become the same path + message
 * lines as zod's (rule T3). Standard Schema carries no JSON Schema for the wire, so the model's schema comes
 * from `~standard.jsonSchema.input({ target: "draft-07" })` when the library offers it (ArkType, Zod), or
 * from an explicit `jsonSchema` given to `tool()` (Valibot: `toJsonSchema` of `@valibot/to-json-schema`).
 */
import { errorText } from "../core/abort.js";
import type { JsonSchema } from "../core/model.js";
import type { ZodIssueLike } from "./validation-errors.js";
import { formatZodIssues } from "./validation-errors.js";

/** A Standard Schema v1 validator whose input type is `Input` and validated output type is `Output`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
	/** The standard properties. */
	readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** The `~standard` properties of a Standard Schema v1 validator. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
	/** Always 1. */
	readonly version: 1;
	/** The library, e.g. `"valibot"`, `"arktype"`, `"zod"`. */
	readonly vendor: string;
	/** Validate unknown input; may be asynchronous. */
	readonly validate: (value: unknown) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
	/** Phantom types for inference; never read at runtime. */
	readonly types?: { readonly input: Input; readonly output: Output } | undefined;
	/** StandardJSONSchemaV1: converts the schema to JSON Schema, when the library implements it. */
	readonly jsonSchema?: StandardJsonSchemaConverter | undefined;
}

/** StandardJSONSchemaV1's converter: `input` is the schema of what the model sends. */
export interface StandardJsonSchemaConverter {
	/** The JSON Schema of the validator's input. */
	readonly input: (options: { readonly target: string }) => Record<string, unknown>;
}

/** What `~standard.validate` returns. */
export type StandardSchemaResult<Output> =
	| { readonly value: Output; readonly issues?: undefined }
	| { readonly issues: readonly StandardSchemaIssue[] };

/** One validation issue; `path` segments are keys or `{ key }` objects. */
export interface StandardSchemaIssue {
	/** Human-readable; capstan shows it to the model after the path. */
	readonly message: string;
	/** Where the issue is; absent for the root. */
	readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** True for a Standard Schema v1 validator (recognised structurally: no dependency on any library). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
	if (typeof value !== "object" && typeof value !== "function") return false;
	const props = (value as { "~standard"?: Partial<StandardSchemaProps> } | null)?.["~standard"];
	return typeof props === "object" && props !== null && typeof props.validate === "function";
}

/**
 * The JSON Schema the model sees for a Standard Schema validator: its own StandardJSONSchemaV1 conversion
 * (draft-07, what the rest of capstan assumes), else an error that says how to supply one.
 */
export function standardWireSchema(schema: StandardSchemaV1): JsonSchema {
	const props = schema["~standard"];
	if (props.jsonSchema) return props.jsonSchema.input({ target: "draft-07" });
	throw new TypeError(
		`a ${props.vendor} schema has no JSON Schema converter (~standard.jsonSchema); pass the JSON Schema ` +
			"the model should see as tool({ jsonSchema }), e.g. from the library's own converter",
	);
}

/** Outcome of a Standard Schema validation: the validated output, or model-readable lines (rule T3). */
export type StandardOutcome = { ok: true; value: unknown } | { ok: false; errors: string[] };

/**
 * Validate through `~standard.validate`. Synchronous validators answer synchronously (the tool batch only
 * waits when it must); a throw or a rejection is the schema's bug, reported as data.
 */
export function validateStandard(
	schema: StandardSchemaV1,
	args: unknown,
): StandardOutcome | Promise<StandardOutcome> {
	let result: ReturnType<StandardSchemaProps["validate"]>;
	try {
		result = schema["~standard"].validate(args);
	} catch (error) {
		return uncheckable(error);
	}
	if (result instanceof Promise) return result.then((settled) => outcomeOf(settled, args), uncheckable);
	return outcomeOf(result, args);
}

function outcomeOf(result: StandardSchemaResult<unknown>, args: unknown): StandardOutcome {
	if (!result.issues) return { ok: true, value: result.value };
	if (result.issues.length === 0) return { ok: false, errors: ["root: invalid arguments"] };
	const issues: ZodIssueLike[] = result.issues.map((item) => ({
		message: item.message,
		// Array.from: a library's path may be an array subclass (ArkType's) whose `map` and `slice` keep it.
		path: Array.from(item.path ?? [], (segment) => (typeof segment === "object" ? segment.key : segment)),
	}));
	return { ok: false, errors: formatZodIssues(issues, args) };
}

function uncheckable(error: unknown): StandardOutcome {
	return {
		ok: false,
		errors: [`root: the tool's parameter schema could not be checked (${errorText(error)})`],
	};
}
