/**
 * Rule C5: the wire tool list, and the intent field `i` that intent tracing adds to every tool's parameters.
 * Spec objects are memoized per tool so an unchanged tool list yields the very same objects on every model
 * call: provider prompt caches key on the serialized tool list, and rebuilding it must not reorder anything.
 */
import type { JsonSchema, ToolSpec } from "../core/model.js";
import type { AgentTool } from "./types.js";
import { compileToolParameters } from "./validate.js";

/** The argument key intent tracing reserves (rule C5). Short, because the model writes it on every call. */
export const INTENT_FIELD = "i";

/** The schema of the intent field. */
export const INTENT_PROPERTY: Readonly<JsonSchema> = Object.freeze({
	type: "string",
	description: 'Concise intent of this call, a few words (e.g. "read the build config").',
});

interface SpecCache {
	description: string;
	parameters: AgentTool["parameters"];
	plain: ToolSpec;
	traced?: ToolSpec;
}

const specCache = new WeakMap<AgentTool, SpecCache>();

/**
 * Build the wire tool specs. With `intentTracing`, each tool that does not opt out (`intent: false`) gets a
 * required string property `i`, first in `properties` and in `required`. Memoized per tool object: the same
 * tool yields the same spec object until its name, description or parameters change.
 */
export function toToolSpecs(tools: readonly AgentTool[], options: { intentTracing: boolean }): ToolSpec[] {
	return tools.map((tool) => toolSpecOf(tool, options.intentTracing));
}

/** The wire spec of one tool (memoized, see `toToolSpecs`). */
export function toolSpecOf(tool: AgentTool, intentTracing: boolean): ToolSpec {
	let cache = specCache.get(tool);
	if (
		!cache ||
		cache.description !== tool.description ||
		cache.parameters !== tool.parameters ||
		cache.plain.name !== tool.name
	) {
		const jsonSchema = compileToolParameters(tool.parameters).jsonSchema;
		cache = {
			description: tool.description,
			parameters: tool.parameters,
			plain: { name: tool.name, description: tool.description, parameters: objectRooted(jsonSchema) },
		};
		specCache.set(tool, cache);
	}
	if (!intentTracing || !tracesIntent(tool)) return cache.plain;
	cache.traced ??= { ...cache.plain, parameters: withIntentField(cache.plain.parameters) };
	return cache.traced;
}

/**
 * The schema as providers take it: a root that names no `type` (`{}`, `anyOf`/`oneOf`/`allOf`, `$ref`) is
 * given `type: "object"`, which every call's arguments are anyway (rule T1). OpenAI refuses function
 * parameters and Anthropic an `input_schema` without it, and either would fail every request. A schema that
 * names its type is sent as it is, the very object.
 */
function objectRooted(schema: JsonSchema): JsonSchema {
	return schema.type === undefined ? { type: "object", ...schema } : schema;
}

/**
 * Whether the intent field applies to this tool's calls, given tracing is on. Off when the tool opts out,
 * when its schema already uses `i` itself (stripping it would eat a real argument), or when the schema is
 * not an object schema (there is nowhere to put the field).
 */
export function tracesIntent(tool: AgentTool): boolean {
	if (tool.intent === false) return false;
	const schema = compileToolParameters(tool.parameters).jsonSchema;
	if (schema.type !== undefined && schema.type !== "object") return false;
	const properties = schema.properties;
	if (properties !== undefined && (typeof properties !== "object" || properties === null)) return false;
	return !(properties && Object.hasOwn(properties, INTENT_FIELD));
}

function withIntentField(schema: JsonSchema): JsonSchema {
	const properties = (schema.properties ?? {}) as Record<string, unknown>;
	const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
	return {
		...schema,
		type: "object",
		properties: { [INTENT_FIELD]: INTENT_PROPERTY, ...properties },
		required: [INTENT_FIELD, ...required.filter((name) => name !== INTENT_FIELD)],
	};
}

/**
 * Separate the intent from a call's arguments (rule C5). Returns a new `args` object without `i`; the input
 * is never mutated (it is the model's recorded call). A non-string `i` is dropped without becoming an intent.
 */
export function splitIntent(args: Record<string, unknown>): {
	intent?: string;
	args: Record<string, unknown>;
} {
	if (typeof args !== "object" || args === null || !Object.hasOwn(args, INTENT_FIELD)) return { args };
	const { [INTENT_FIELD]: intent, ...rest } = args;
	return typeof intent === "string" && intent.trim() !== ""
		? { intent: intent.trim(), args: rest }
		: { args: rest };
}
