/**
 * A tool's `outputSchema`, checked by the bridge itself. The SDK's `Client` keeps one cache of output validators
 * that every `listTools` call replaces, so after a paged listing it knows only the last page's tools, and a page
 * the bridge had to repair (tools.ts) never reaches it: each tool carries its own check instead, compiled from
 * the schema it was listed with.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../core/model.js";
import {
	compileJsonSchemaValidator,
	type JsonSchemaValidator,
	jsonSchemaProblem,
} from "../tools/json-schema.js";

/** What a `tools/call` result carries that the check reads. */
interface CheckedResult {
	structuredContent?: Record<string, unknown> | undefined;
	isError?: boolean | undefined;
}

/** Why a result breaks the tool's output schema, or undefined when it does not. */
export type OutputCheck = (result: CheckedResult) => string | undefined;

/**
 * The check of `tool`'s results, or undefined when it declares no `outputSchema`, or one that is no valid JSON
 * Schema (it can judge nothing; a malformed one is dropped when listed, tools.ts). As the spec asks, a result of a
 * tool with an output schema must carry `structuredContent` that matches it; an error result is not checked (its
 * own text says what went wrong, and a schema complaint would hide it).
 */
export function outputCheck(tool: McpTool): OutputCheck | undefined {
	if (tool.outputSchema === undefined) return undefined;
	const { $schema: uri, ...rest } = tool.outputSchema;
	const schema = rest as JsonSchema;
	// Compiled at the first result, not at every listing; null: the schema is broken.
	let validator: JsonSchemaValidator | null | undefined;
	return (result) => {
		if (result.isError === true) return undefined;
		if (validator === undefined)
			validator =
				jsonSchemaProblem(schema, uri) === undefined ? compileJsonSchemaValidator(schema, uri) : null;
		if (validator === null) return undefined;
		if (result.structuredContent === undefined)
			return "the tool has an output schema, but its result has no structuredContent";
		const outcome = validator(result.structuredContent);
		if (outcome.ok) return undefined;
		return `its structuredContent does not match the tool's output schema: ${outcome.errors.join("; ")}`;
	};
}
