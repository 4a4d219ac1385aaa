/**
 * Tool definitions that can never work, refused where they are given (`tool()`, the `Agent`, the start of a
 * run) instead of failing every call: a schema whose root is not an object, when every provider sends a
 * call's arguments as a JSON object (rule T1).
 */
import type { JsonSchema } from "../core/model.js";
import type { AgentTool } from "./types.js";
import { compileToolParameters } from "./validate.js";

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
 * Checks every tool of a list as {@link checkObjectRoot} does; `undefined` is no tools. Parameters whose wire
 * schema cannot be built (a Standard Schema without a converter) are left to where the tool list is built,
 * and parameters that are no schema object to each call (rule T3).
 */
export function checkTools(tools: readonly AgentTool[] | undefined): void {
	for (const tool of tools ?? []) {
		let schema: JsonSchema;
		try {
			schema = compileToolParameters(tool.parameters).jsonSchema;
		} catch {
			continue;
		}
		checkObjectRoot(tool.name, schema);
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
