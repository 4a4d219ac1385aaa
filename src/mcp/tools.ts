/**
 * One MCP server's tools as `AgentTool`s: the input schema is the parameters, the loop's abort signal is the
 * request's signal (the SDK then sends `notifications/cancelled`), progress notifications become `onUpdate`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../core/model.js";
import type { AgentTool, ToolResult } from "../tools/types.js";
import { type McpToolDetails, mcpResultToCapstan } from "./content.js";

/** Progress reported by a server while a call runs, as `details` of an `onUpdate` partial result. */
export interface McpProgressDetails extends McpToolDetails {
	/** The notification's values, as the server sent them. */
	progress: { progress: number; total?: number; message?: string };
}

/** An `AgentTool` backed by an MCP server; `mcp` says where it came from. */
export interface McpAgentTool extends AgentTool<Record<string, unknown>, McpToolDetails> {
	/** Where the tool comes from, and the server's annotations. */
	readonly mcp: {
		/** The server's configured name (the prefix). */
		server: string;
		/** The tool's name on the server. */
		tool: string;
		/** The server's hints (`readOnlyHint`, `destructiveHint`, …); hints only, never a guarantee. */
		annotations?: ToolAnnotations;
	};
}

/** Options of `mcpTools`. */
export interface McpToolsOptions {
	/**
	 * Names the server in tool names (`<prefix>__<tool>`) and in results' `details.server`. Give every server a
	 * distinct prefix so two servers' tools of the same name cannot collide.
	 */
	prefix: string;
	/** Per-call request timeout in ms, restarted by every progress notification. Default: the SDK's 60 s. */
	timeoutMs?: number;
}

/** Internal: runs after every call settles, so a tool list change the call caused is applied first. */
export type AfterCall = () => Promise<void>;

/**
 * The tools a connected `Client` offers, as `AgentTool`s named `<prefix>__<tool>`. A snapshot: for
 * `tools/list_changed` handling use `connectMcpServers`, or call this again.
 */
export async function mcpTools(client: Client, options: McpToolsOptions): Promise<McpAgentTool[]> {
	const listed = await listAllTools(client);
	return listed.map((tool) => toAgentTool(client, tool, options));
}

/** Every page of `tools/list`. */
export async function listAllTools(client: Client): Promise<McpTool[]> {
	const tools: McpTool[] = [];
	let cursor: string | undefined;
	do {
		const page = await client.listTools(cursor === undefined ? undefined : { cursor });
		tools.push(...page.tools);
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	return tools;
}

/**
 * `<prefix>__<tool>`, with characters providers reject in tool names (they accept `[A-Za-z0-9_-]`) replaced
 * by `_`. Always prefixed, so a tool's name does not change when another server with the same tool is added.
 */
export function mcpToolName(prefix: string, tool: string): string {
	return `${prefix}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** One MCP tool as an `AgentTool`. */
export function toAgentTool(
	client: Client,
	tool: McpTool,
	options: McpToolsOptions,
	afterCall?: AfterCall,
): McpAgentTool {
	const names = { server: options.prefix, tool: tool.name };
	const mcp: McpAgentTool["mcp"] = tool.annotations
		? { ...names, annotations: tool.annotations }
		: { ...names };
	return {
		name: mcpToolName(options.prefix, tool.name),
		...(tool.title
			? { label: tool.title }
			: tool.annotations?.title
				? { label: tool.annotations.title }
				: {}),
		description: tool.description ?? `${tool.name} (MCP server ${options.prefix})`,
		parameters: tool.inputSchema as JsonSchema,
		mcp,
		async execute(_id, args, signal, onUpdate) {
			try {
				const result = await client.callTool({ name: tool.name, arguments: args }, undefined, {
					signal,
					resetTimeoutOnProgress: true,
					...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
					onprogress: (progress) => onUpdate(progressUpdate(names, progress)),
				});
				// `callTool` is typed with the pre-2024-11 `toolResult` shape too; servers built on 1.x send `content`.
				if (!("content" in result) || !Array.isArray(result.content))
					return errorResult(names, "the server answered without a content list");
				return mcpResultToCapstan(result as Parameters<typeof mcpResultToCapstan>[0], names);
			} catch (error) {
				// An abort is the loop's business: it writes the aborted placeholder (rule A3).
				if (signal.aborted) throw error;
				return errorResult(names, error instanceof Error ? error.message : String(error));
			} finally {
				await afterCall?.();
			}
		},
	};
}

function progressUpdate(
	names: { server: string; tool: string },
	progress: { progress: number; total?: number; message?: string },
): ToolResult<McpProgressDetails> {
	const of = progress.total === undefined ? "" : `/${progress.total}`;
	const text = progress.message ?? `progress ${progress.progress}${of}`;
	const { progress: done, total, message } = progress;
	return {
		content: [{ type: "text", text }],
		details: {
			...names,
			progress: {
				progress: done,
				...(total === undefined ? {} : { total }),
				...(message ? { message } : {}),
			},
		},
	};
}

/** A call that failed on the way (server gone, timeout, protocol error) as an error result the model can read. */
function errorResult(names: { server: string; tool: string }, reason: string): ToolResult<McpToolDetails> {
	return {
		content: [
			{ type: "text", text: `MCP tool "${names.tool}" on server "${names.server}" failed: ${reason}` },
		],
		details: { ...names },
		isError: true,
	};
}
