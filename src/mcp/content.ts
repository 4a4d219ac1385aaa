/**
 * MCP tool results → capstan tool results. Pure: the `execute` in tools.ts calls it on what the SDK returned.
 * capstan's tool result content is text and images only, so audio and resources become text the model can read.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
	AudioContentSchema,
	EmbeddedResourceSchema,
	ImageContentSchema,
	ResourceLinkSchema,
	TextContentSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { UserContent } from "../core/messages.js";
import type { ToolResult } from "../tools/types.js";

/** `details` of a tool result that came from an MCP server. */
export interface McpToolDetails {
	/** The server's name in the `mcpServers` configuration (or the prefix given to `mcpTools`). */
	server: string;
	/** The tool's own name on that server (without the prefix). */
	tool: string;
	/** The result's `structuredContent`, kept for the host; it never reaches the model. */
	structuredContent?: Record<string, unknown>;
}

/** One content block of an MCP `tools/call` result. */
export type McpContentBlock = CallToolResult["content"][number];

/** One MCP content block as capstan content. */
export function mcpContentToCapstan(block: McpContentBlock): UserContent {
	switch (block.type) {
		case "text":
			return { type: "text", text: block.text };
		case "image":
			return { type: "image", data: block.data, mimeType: block.mimeType };
		case "audio":
			// No audio content in capstan's message model: the model learns there was audio, not its bytes.
			return {
				type: "text",
				text: `[audio result omitted: ${block.mimeType}, ${block.data.length} base64 chars]`,
			};
		case "resource": {
			const { resource } = block;
			if ("text" in resource && typeof resource.text === "string")
				return { type: "text", text: `Resource ${resource.uri}:\n${resource.text}` };
			const mime = resource.mimeType ?? "application/octet-stream";
			if (mime.startsWith("image/") && "blob" in resource && typeof resource.blob === "string")
				return { type: "image", data: resource.blob, mimeType: mime };
			return { type: "text", text: `[binary resource ${resource.uri} (${mime}) omitted]` };
		}
		case "resource_link": {
			const about = [block.name, block.description].filter(Boolean).join(": ");
			return { type: "text", text: `Resource link ${block.uri}${about ? ` (${about})` : ""}` };
		}
		default:
			return unsupportedContent((block as { type: string }).type);
	}
}

/** What the model reads for content of a type the bridge does not know (a newer spec's, a server's own). */
function unsupportedContent(type: string): UserContent {
	return { type: "text", text: `[unsupported MCP content type ${type}]` };
}

/** The SDK's schema of each content type it knows. */
const CONTENT_SCHEMAS = {
	text: TextContentSchema,
	image: ImageContentSchema,
	audio: AudioContentSchema,
	resource: EmbeddedResourceSchema,
	resource_link: ResourceLinkSchema,
} as const;

/**
 * Internal: one content item as the server sent it (the bridge calls tools with a result schema that leaves the
 * items unchecked). A valid block converts as {@link mcpContentToCapstan} does; a block of an unknown type is
 * noted as unsupported; a malformed one is noted with its first problem, so the rest of the result still reaches
 * the model.
 */
export function rawContentToCapstan(item: unknown): UserContent {
	const type = typeof item === "object" && item !== null ? (item as { type?: unknown }).type : undefined;
	if (typeof type !== "string")
		return { type: "text", text: "[malformed MCP content omitted: it has no type]" };
	if (!Object.hasOwn(CONTENT_SCHEMAS, type)) return unsupportedContent(type);
	const parsed = CONTENT_SCHEMAS[type as keyof typeof CONTENT_SCHEMAS].safeParse(item);
	if (parsed.success) return mcpContentToCapstan(parsed.data);
	return {
		type: "text",
		text: `[malformed MCP ${type} content omitted: ${firstIssue(parsed.error.issues, "block")}]`,
	};
}

/** What a zod error's issue tells. */
export interface SchemaIssue {
	path?: readonly PropertyKey[];
	message?: string;
}

/** Internal: a schema error's first problem, in a line: where (`whole` when it is the value itself), and what. */
export function firstIssue(issues: readonly SchemaIssue[], whole: string): string {
	const issue = issues[0];
	const where = issue?.path?.map(String).join(".") || whole;
	return `${where}: ${issue?.message ?? "invalid"}`;
}

/**
 * A `tools/call` result as a capstan result: `isError` stays an error result; `structuredContent` goes to
 * `details`. A result with only structured content (allowed by the spec) is shown to the model as JSON, since an
 * empty content list would tell it nothing.
 */
export function mcpResultToCapstan(
	result: CallToolResult,
	names: { server: string; tool: string },
): ToolResult<McpToolDetails> {
	return withContent(result.content.map(mcpContentToCapstan), result, names);
}

/** Internal: a `tools/call` result whose content items are as the server sent them ({@link rawContentToCapstan}). */
export interface RawCallToolResult {
	content: readonly unknown[];
	structuredContent?: Record<string, unknown> | undefined;
	isError?: boolean | undefined;
}

/** Internal: {@link mcpResultToCapstan} for a result whose content items are unchecked. */
export function rawResultToCapstan(
	result: RawCallToolResult,
	names: { server: string; tool: string },
): ToolResult<McpToolDetails> {
	return withContent(result.content.map(rawContentToCapstan), result, names);
}

function withContent(
	content: UserContent[],
	result: Omit<RawCallToolResult, "content">,
	names: { server: string; tool: string },
): ToolResult<McpToolDetails> {
	const details: McpToolDetails = { server: names.server, tool: names.tool };
	if (result.structuredContent !== undefined) {
		details.structuredContent = result.structuredContent;
		if (content.length === 0) content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
	}
	const mapped: ToolResult<McpToolDetails> = { content, details };
	if (result.isError === true) mapped.isError = true;
	return mapped;
}
