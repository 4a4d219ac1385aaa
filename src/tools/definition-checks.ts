/**
 * Tool definitions that can never work, refused where they are given (`tool()`, the `Agent`, the start of a
 * run) instead of failing every call or every request (rule T1): parameters that are no schema at all, or the
 * schema `false`; a schema whose root is not an object, when every provider sends a call's arguments as a JSON
 * object; a name the providers reject; two tools of one name; a tool without an `execute` function.
 */
import type { JsonSchema } from "../core/model.js";
import type { AgentTool } from "./types.js";
import { compileToolParameters } from "./validate.js";
import { describeValue } from "./validation-errors.js";

/**
 * The tool names OpenAI, Anthropic and Gemini all accept: a request with any other name fails as a whole, on
 * every model call. OpenAI and Anthropic take `^[a-zA-Z0-9_-]{1,64}$`; Gemini's `FunctionDeclaration.name` must
 * also start with a letter or an underscore.
 */
const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/**
 * Throws a `TypeError` naming the tool when its wire schema unmistakably describes something other than an
 * object: the root's `type` is a string other than `"object"`, or an array of types without `"object"`.
 * Anything that may describe an object passes: no `type` (`{}`, `anyOf`/`oneOf`/`allOf` roots, `$ref`) or a
 * `type` list with `"object"`.
 */
export function checkObjectRoot(name: unknown, schema: JsonSchema): void {
	const problem = rootProblem(schema);
	if (problem === undefined) return;
	throw new TypeError(
		`tool ${JSON.stringify(name)}: its parameters must describe a JSON object, because a call's arguments are always one, but the schema's root ${problem}; put the value in a property instead, e.g. { type: "object", properties: { value: <the schema> }, required: ["value"] }`,
	);
}

/**
 * Throws a `TypeError` naming the tool when `parameters` is no schema: missing (a plain-JavaScript tool that
 * left it out, or spelled it `schema` / `inputSchema`), `false` (JSON Schema's "nothing is valid"), another
 * primitive, or an array. Such a tool could only fail every call, and guessing what it takes would hide the
 * mistake. JSON Schema's `true` passes: it means any arguments object (rule T1).
 */
export function checkParameters(name: unknown, parameters: unknown): void {
	if (parameters === true) return;
	if (typeof parameters === "function") return;
	if (typeof parameters === "object" && parameters !== null && !Array.isArray(parameters)) return;
	const problem =
		parameters === undefined
			? "parameters are missing"
			: parameters === false
				? "parameters are false, the JSON Schema no value passes, so every call would fail"
				: `parameters are no schema (received ${describeValue(parameters)})`;
	throw new TypeError(
		`tool ${JSON.stringify(name) ?? String(name)}: ${problem}; give a JSON Schema object, a Zod 4 schema or a Standard Schema validator (for a tool without arguments: { type: "object", properties: {} })`,
	);
}

/**
 * Throws a `TypeError` when `name` is not a tool name every provider accepts: letters, digits, `_` and `-`,
 * 1 to 64 characters, starting with a letter or `_`.
 */
export function checkToolName(name: unknown): void {
	if (typeof name === "string" && TOOL_NAME.test(name)) return;
	const problem =
		typeof name !== "string"
			? `must be a string (received ${describeValue(name)})`
			: name === ""
				? "is empty"
				: name.length > 64
					? `is ${name.length} characters long`
					: /[^a-zA-Z0-9_-]/.test(name)
						? `has characters other than letters, digits, "_" and "-"`
						: `starts with ${JSON.stringify(name[0])}, and Gemini takes only a letter or "_" there`;
	throw new TypeError(
		`tool ${JSON.stringify(name) ?? String(name)}: the name ${problem}; providers accept tool names of 1 to 64 letters, digits, "_" and "-", starting with a letter or "_" (e.g. "read_file"), and reject the whole request otherwise`,
	);
}

/**
 * Checks a tool list before a run or an `Agent` takes it: an array of tool objects, each with a valid name
 * ({@link checkToolName}), no name twice (a provider rejects a request that names a tool twice, and calls
 * could only ever reach the first), an `execute` function, parameters that are a schema
 * ({@link checkParameters}) and that may describe an object ({@link checkObjectRoot}). `undefined` is no
 * tools. Parameters whose wire schema cannot be built (a Standard Schema without a converter) are left to
 * where the tool list is built.
 */
export function checkTools(tools: readonly AgentTool[] | undefined): void {
	if (tools === undefined) return;
	if (!Array.isArray(tools))
		throw new TypeError(`tools must be an array of tools (received ${describeValue(tools)})`);
	const seen = new Map<string, number>();
	tools.forEach((tool: unknown, index) => {
		if (typeof tool !== "object" || tool === null)
			throw new TypeError(`tools[${index}] must be a tool object (received ${describeValue(tool)})`);
		const { name, execute, parameters } = tool as Partial<AgentTool>;
		checkToolName(name);
		const first = seen.get(name as string);
		if (first !== undefined)
			throw new TypeError(
				`tool ${JSON.stringify(name)} is given twice (tools[${first}] and tools[${index}]): providers reject a request that names a tool twice; rename one or leave one out`,
			);
		seen.set(name as string, index);
		if (typeof execute !== "function")
			throw new TypeError(`tool ${JSON.stringify(name)}: execute must be a function`);
		checkParameters(name, parameters);
		const schema = wireSchemaOf(tool as AgentTool);
		if (schema !== undefined) checkObjectRoot(name, schema);
	});
}

function wireSchemaOf(tool: AgentTool): JsonSchema | undefined {
	try {
		return compileToolParameters(tool.parameters).jsonSchema;
	} catch {
		return undefined;
	}
}

/** What makes `schema`'s root unmistakably not an object schema, or undefined. */
function rootProblem(schema: JsonSchema): string | undefined {
	if (typeof schema !== "object" || schema === null) return undefined;
	const type: unknown = schema.type;
	if (typeof type === "string") return type === "object" ? undefined : `has type ${JSON.stringify(type)}`;
	if (Array.isArray(type) && !type.includes("object"))
		return `has type ${JSON.stringify(type)}, which does not include "object"`;
	return undefined;
}
