/**
 * `tool({...})`: an `AgentTool` whose `execute` arguments are typed by its parameters (infer.ts), so a
 * schema and the code that reads its arguments cannot drift apart: `args.nope` does not compile.
 */
import type { JsonSchema } from "../core/model.js";
import { checkObjectRoot, checkParameters, checkToolName } from "./definition-checks.js";
import type { InferToolArgs } from "./infer.js";
import { isStandardSchema, type StandardSchemaV1 } from "./standard-schema.js";
import type { AgentTool, ToolExecutionContext, ToolParameters, ToolResult, ZodLikeSchema } from "./types.js";
import { compileToolParameters, isZodSchema } from "./validate.js";

export type { FromJsonSchema, InferToolArgs } from "./infer.js";
export type {
	StandardJsonSchemaConverter,
	StandardSchemaIssue,
	StandardSchemaProps,
	StandardSchemaResult,
	StandardSchemaV1,
} from "./standard-schema.js";

/** What `tool()` takes: an `AgentTool` whose `execute` is typed by `parameters`. */
export interface ToolDefinition<S extends ToolParameters, TDetails = unknown>
	extends Omit<AgentTool<InferToolArgs<S>, TDetails>, "parameters" | "execute"> {
	/** A Zod 4 schema, a Standard Schema v1 validator, a TypeBox schema or a JSON Schema literal. */
	parameters: S;
	/**
	 * The JSON Schema the model sees, for a Standard Schema validator without its own converter (Valibot:
	 * `toJsonSchema` of `@valibot/to-json-schema`). Overrides the validator's `~standard.jsonSchema`; the
	 * validator still decides what is valid. Any object type is taken: converters type their output as an
	 * interface (`@valibot/to-json-schema`'s `JsonSchema`), which has no index signature.
	 */
	jsonSchema?: S extends ZodLikeSchema ? never : S extends StandardSchemaV1 ? object : never;
	/** Runs the call with validated arguments: defaults filled in, transforms applied. */
	execute: (
		toolCallId: string,
		args: InferToolArgs<S>,
		signal: AbortSignal,
		onUpdate: (partial: ToolResult<TDetails>) => void,
		ctx: ToolExecutionContext,
	) => Promise<ToolResult<TDetails>>;
}

/**
 * Define a tool whose `execute` arguments are inferred from `parameters` (see `InferToolArgs`): a Zod 4 schema,
 * a Standard Schema validator, a TypeBox schema or a JSON Schema literal. Returns a new `AgentTool` with the
 * definition's fields; the arguments are validated against the schema when a call comes (rule T3), defaults
 * filled in and transforms applied.
 *
 * The wire schema is built here, so a definition no call could use throws a `TypeError` where the tool is
 * defined, saying what to change:
 * - a Standard Schema validator without a JSON Schema converter and no `jsonSchema` (the error says what to
 *   pass), or `jsonSchema` next to Zod or JSON Schema parameters;
 * - a schema whose root is plainly not an object (`type: "string"`, a `type` list without `"object"`, a Zod
 *   `z.string()`): every call's arguments are a JSON object. Roots that may describe an object are taken
 *   (`{}`, `anyOf`/`oneOf`/`allOf`, `$ref`), and JSON Schema's `true` as any arguments object;
 * - parameters that are no schema (missing, `false`, another primitive, an array);
 * - a name other than 1 to 64 letters, digits, `_` and `-` starting with a letter or `_`: providers reject it.
 *
 * @example
 * ```ts
 * import { tool } from "capstan";
 * import { z } from "zod";
 *
 * const read = tool({
 *   name: "read",
 *   description: "Read a file",
 *   parameters: z.object({ path: z.string(), limit: z.number().int().default(100) }),
 *   execute: async (_id, { path, limit }) => ({ content: [{ type: "text", text: `${path}: ${limit} lines` }] }),
 * });
 * ```
 */
export function tool<const S extends ToolParameters, TDetails = unknown>(
	definition: ToolDefinition<S, TDetails>,
): AgentTool<InferToolArgs<S>, TDetails> {
	const { parameters, jsonSchema, ...rest } = definition;
	checkToolName(rest.name);
	checkParameters(rest.name, parameters);
	const resolved =
		jsonSchema === undefined ? parameters : withJsonSchema(parameters, jsonSchema as JsonSchema);
	checkObjectRoot(rest.name, compileToolParameters(resolved).jsonSchema);
	return { ...rest, parameters: resolved } as AgentTool<InferToolArgs<S>, TDetails>;
}

/** The validator, answering `~standard.jsonSchema` with the given schema (the StandardJSONSchemaV1 shape). */
function withJsonSchema(parameters: ToolParameters, jsonSchema: JsonSchema): StandardSchemaV1 {
	if (isZodSchema(parameters) || !isStandardSchema(parameters))
		throw new TypeError(
			"tool({ jsonSchema }) is for Standard Schema validators; Zod and JSON Schema parameters are the wire schema",
		);
	const props = parameters["~standard"];
	return {
		"~standard": {
			version: 1,
			vendor: props.vendor,
			// Called as a method: a library may read its own state through `this`.
			validate: (value) => props.validate(value),
			jsonSchema: { input: () => jsonSchema },
		},
	};
}
