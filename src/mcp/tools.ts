/**
 * One MCP server's tools as `AgentTool`s: the input schema is the parameters, the loop's abort signal is the
 * request's signal (the SDK then sends `notifications/cancelled`), progress notifications become `onUpdate`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
	CallToolResultSchema,
	type Tool as McpTool,
	PaginatedResultSchema,
	type ToolAnnotations,
	ToolSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { fnv1aHex } from "../core/fnv1a.js";
import type { JsonSchema } from "../core/model.js";
import type { AgentTool, ToolResult } from "../tools/types.js";
import {
	firstIssue,
	type McpToolDetails,
	type RawCallToolResult,
	rawResultToCapstan,
	type SchemaIssue,
} from "./content.js";
import { outputCheck } from "./output.js";
import { isUnknownSession } from "./session.js";

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

/** Internal: an HTTP server's session, which `connectMcpServers` starts anew when the server forgot it. */
export interface SessionHooks {
	/** Waits for a new session being started (or starts one a failed attempt left owed); why none could be. */
	ready(): Promise<string | undefined>;
	/** Start a new session in place of `stale`, once for all the calls that met it; why it could not be. */
	renew(stale: string): Promise<string | undefined>;
}

/** Internal: what `connectMcpServers` adds around every call. */
export interface CallHooks {
	afterCall?: AfterCall;
	session?: SessionHooks;
}

/**
 * The tools a connected `Client` offers, as `AgentTool`s named `<prefix>__<tool>`. A snapshot: for
 * `tools/list_changed` handling use `connectMcpServers`, or call this again.
 */
export async function mcpTools(client: Client, options: McpToolsOptions): Promise<McpAgentTool[]> {
	return toAgentTools(client, (await listAllTools(client)).tools, options);
}

/** A server's listed tools as `AgentTool`s whose names are unique among them ({@link uniqueMcpToolNames}). */
export function toAgentTools(
	client: Client,
	listed: readonly McpTool[],
	options: McpToolsOptions,
	hooks: CallHooks = {},
	redact?: Redact,
): McpAgentTool[] {
	const names = uniqueMcpToolNames(listed.map((tool) => ({ server: options.prefix, tool: tool.name })));
	return listed.map((tool, i) => toAgentTool(client, tool, options, hooks, names[i], redact));
}

/** Internal: removes the server's configured secrets from an error text before the model sees it. */
export type Redact = (text: string) => string;

/** What {@link listAllTools} found: the usable tools, and why each unusable entry was left out. */
export interface ListedTools {
	/** The tools, each once (by name, the first listing kept). */
	tools: McpTool[];
	/** One line per entry that could not be used, naming it and the problem. */
	skipped: string[];
}

/**
 * The most `tools/list` pages followed: a server that hands out a new cursor with every page would otherwise be
 * listed forever. Far more tools than a model can choose among, at any page size a server uses.
 */
const MAX_TOOL_PAGES = 100;

/**
 * Every page of `tools/list`, each tool once (by name, the first listing kept). A server that hands back an
 * empty cursor or one it gave before has no more pages: following it would list the same pages forever. One
 * that still offers a next page after {@link MAX_TOOL_PAGES} pages is not followed further, and `skipped` says so.
 *
 * The SDK rejects a whole page when one tool breaks the schema (most often an `inputSchema` without
 * `"type": "object"`), which would cost every tool of the server. Such a page is fetched again unchecked and its
 * tools taken one by one: an `inputSchema` without a `type` is an object schema (`"type": "object"` is added;
 * a missing one means no arguments), a malformed `outputSchema` is dropped (it only checks `structuredContent`),
 * and an entry still unusable (no name, a non-object input) is skipped and named in `skipped`.
 */
export async function listAllTools(client: Client): Promise<ListedTools> {
	const tools = new Map<string, McpTool>();
	const skipped: string[] = [];
	const followed = new Set<string>();
	let cursor: string | undefined;
	for (let pages = 1; ; pages++) {
		const page = await listPage(client, cursor, skipped);
		for (const tool of page.tools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
		cursor = page.nextCursor;
		if (cursor === undefined || cursor === "" || followed.has(cursor)) break;
		if (pages === MAX_TOOL_PAGES) {
			skipped.push(
				`tools after page ${MAX_TOOL_PAGES}: the server kept sending new page cursors; the listing stopped there`,
			);
			break;
		}
		followed.add(cursor);
	}
	return { tools: [...tools.values()], skipped };
}

async function listPage(
	client: Client,
	cursor: string | undefined,
	skipped: string[],
): Promise<{ tools: McpTool[]; nextCursor?: string | undefined }> {
	const params = cursor === undefined ? undefined : { cursor };
	try {
		return await client.listTools(params);
	} catch (error) {
		if (!isSchemaError(error)) throw error;
	}
	// The paginated result schema checks the envelope only and passes `tools` through as sent.
	const page = await client.request(
		{ method: "tools/list", ...(params ? { params } : {}) },
		PaginatedResultSchema,
	);
	const raw = (page as { tools?: unknown }).tools;
	if (!Array.isArray(raw)) throw new Error("the server's tools/list result has no tools list");
	const tools: McpTool[] = [];
	raw.forEach((entry, i) => {
		const tool = repairTool(entry);
		if (typeof tool === "string") skipped.push(`tool ${describeEntry(entry, i)}: ${tool}`);
		else tools.push(tool);
	});
	return { tools, nextCursor: typeof page.nextCursor === "string" ? page.nextCursor : undefined };
}

/** A tool entry made valid where its intent is clear, or the reason it cannot be used. */
function repairTool(entry: unknown): McpTool | string {
	if (!isRecord(entry) || typeof entry.name !== "string") return "not a tool with a name";
	const { outputSchema, ...rest } = entry;
	const input = entry.inputSchema;
	if (input !== undefined && !isRecord(input)) return "its inputSchema is not an object";
	if (input?.type !== undefined && input.type !== "object")
		return `its inputSchema has type ${JSON.stringify(input.type)}; a tool's arguments are an object`;
	const repaired: Record<string, unknown> = { ...rest, inputSchema: { ...input, type: "object" } };
	if (outputSchema !== undefined && ToolSchema.shape.outputSchema.safeParse(outputSchema).success)
		repaired.outputSchema = outputSchema;
	const parsed = ToolSchema.safeParse(repaired);
	if (parsed.success) return parsed.data;
	return firstIssue(parsed.error.issues, "entry");
}

function describeEntry(entry: unknown, index: number): string {
	return isRecord(entry) && typeof entry.name === "string" ? JSON.stringify(entry.name) : `#${index + 1}`;
}

/** The SDK's result validation failed (a zod error): the server answered, in a shape the schema refused. */
function isSchemaError(error: unknown): error is Error & { issues: SchemaIssue[] } {
	return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

/**
 * The SDK's `tools/call` result schema without its `content` check, which refuses the whole result for one block
 * of a type it does not know: the items are checked one by one instead ({@link rawResultToCapstan}), so a newer
 * or a server's own content type is noted and the rest of the result still reaches the model. `structuredContent`
 * and `isError` are checked as before.
 */
const LENIENT_RESULT_SCHEMA = CallToolResultSchema.omit({ content: true });

/** What {@link LENIENT_RESULT_SCHEMA} lets through: `content` as the server sent it, or missing. */
type LenientCallToolResult = { content?: unknown } & Omit<RawCallToolResult, "content">;

const INVALID_RESULT = "the server's result is not a valid tools/call result";

const CONNECTION_CLOSED =
	"the connection to the server is closed (the server exited, or its connection was lost or closed); none of its tools can be called now";

const NO_SESSION =
	"the server no longer knows this connection's session (it restarted), and a new session could not be started";

const TASK_REQUIRED =
	"the server runs this tool only as an MCP task (execution.taskSupport: required), which capstan does not support";

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The longest tool name every provider accepts (OpenAI and Gemini allow 64 characters). */
const MAX_TOOL_NAME = 64;

/**
 * `<prefix>__<tool>`, safe for every provider: characters they reject (they accept `[A-Za-z0-9_-]`) become
 * `_`, a name that does not start with a letter or `_` (Gemini requires one) gets a leading `_`, and a name
 * longer than 64 characters is cut and ends in a hash of the whole, so two long names stay apart. Always
 * prefixed, so a tool's name does not change when another server with the same tool is added.
 */
export function mcpToolName(prefix: string, tool: string): string {
	let name = `${prefix}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
	if (!/^[A-Za-z_]/.test(name)) name = `_${name}`;
	if (name.length <= MAX_TOOL_NAME) return name;
	const hash = fnv1aHex(`${prefix}\u0000${tool}`);
	return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/**
 * Names for tools given as `{ server, tool }`, one each and no two alike: each gets {@link mcpToolName},
 * unless another tool already has that name — two names that differ only in characters the providers reject
 * (`read.file`, `read_file`), or a server `a` with a tool `b__c` next to a server `a__b` with a tool `c`. Then
 * the name stays with the tool that had it before (`previous`, keyed by {@link mcpToolKey}: a name the
 * transcript already uses never moves to another tool), else with one that needed no rewriting, else with the
 * first listed; the other gets a hash of its server and tool appended. So no tool is lost or offered twice (a
 * provider rejects a request that names a tool twice).
 */
export function uniqueMcpToolNames(
	tools: readonly { server: string; tool: string }[],
	previous: ReadonlyMap<string, string> = new Map(),
): string[] {
	const names: string[] = [];
	const taken = new Set<string>();
	const claim = (i: number, wanted: string) => {
		const { server, tool } = tools[i] as { server: string; tool: string };
		let name = wanted;
		for (let attempt = 1; taken.has(name); attempt++) name = hashedName(server, tool, attempt);
		taken.add(name);
		names[i] = name;
	};
	const base = tools.map(({ server, tool }) => mcpToolName(server, tool));
	tools.forEach(({ server, tool }, i) => {
		const before = previous.get(mcpToolKey(server, tool));
		if (before !== undefined && !taken.has(before)) claim(i, before);
	});
	for (const exact of [true, false])
		tools.forEach(({ server, tool }, i) => {
			if (names[i] === undefined && (base[i] === `${server}__${tool}`) === exact) claim(i, base[i] as string);
		});
	return names;
}

/** The key of a server's tool in the `previous` names of {@link uniqueMcpToolNames}. */
export function mcpToolKey(server: string, tool: string): string {
	return `${server}\u0000${tool}`;
}

/** `<prefix>__<tool>` sanitized and cut to leave room for a hash of the pair (and `attempt`) at its end. */
function hashedName(prefix: string, tool: string, attempt: number): string {
	const hash = fnv1aHex(`${prefix}\u0000${tool}\u0000${attempt}`);
	const name = mcpToolName(prefix, tool);
	return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/** One MCP tool as an `AgentTool`, named `name` (default {@link mcpToolName}). */
export function toAgentTool(
	client: Client,
	tool: McpTool,
	options: McpToolsOptions,
	{ afterCall, session }: CallHooks = {},
	name = mcpToolName(options.prefix, tool.name),
	redact: Redact = (text) => text,
): McpAgentTool {
	const names = { server: options.prefix, tool: tool.name };
	const checkOutput = outputCheck(tool);
	const mcp: McpAgentTool["mcp"] = tool.annotations
		? { ...names, annotations: tool.annotations }
		: { ...names };
	return {
		name,
		...(tool.title
			? { label: tool.title }
			: tool.annotations?.title
				? { label: tool.annotations.title }
				: {}),
		description: tool.description ?? `${tool.name} (MCP server ${options.prefix})`,
		parameters: tool.inputSchema as JsonSchema,
		mcp,
		async execute(_id, args, signal, onUpdate) {
			// The SDK's `callTool` refuses such a tool itself, but only while its cache knows it (output.ts).
			if (tool.execution?.taskSupport === "required") return errorResult(names, TASK_REQUIRED);
			// A plain request, not `callTool`: its output-schema check uses a cache that a paged listing leaves
			// knowing only the last page's tools; `checkOutput` is this tool's own.
			const send = (): Promise<LenientCallToolResult> =>
				client.request(
					{ method: "tools/call", params: { name: tool.name, arguments: args } },
					LENIENT_RESULT_SCHEMA,
					{
						signal,
						resetTimeoutOnProgress: true,
						...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
						onprogress: (progress) => onUpdate(progressUpdate(names, progress)),
					},
				);
			try {
				const unready = await session?.ready();
				if (unready !== undefined) return errorResult(names, `${NO_SESSION}: ${unready}`);
				if (!client.transport) return errorResult(names, CONNECTION_CLOSED);
				const sessionId = client.transport.sessionId;
				let result: LenientCallToolResult;
				try {
					result = await send();
				} catch (error) {
					// HTTP 404 for the call's session: the server forgot it (it restarted) and never ran the call, so
					// the call is sent once more, on a new session (MCP streamable HTTP, session management).
					if (!session || sessionId === undefined || signal.aborted || !isUnknownSession(error)) throw error;
					const failed = await session.renew(sessionId);
					if (failed !== undefined) return errorResult(names, `${NO_SESSION}: ${failed}`);
					result = await send();
				}
				// No content list is an empty one, as the SDK's own schema defaults it (a structured-only result).
				const content = result.content ?? [];
				if (!Array.isArray(content)) return errorResult(names, `${INVALID_RESULT}: content is not a list`);
				const offSchema = checkOutput?.(result);
				if (offSchema !== undefined) return errorResult(names, `${INVALID_RESULT}: ${offSchema}`);
				return rawResultToCapstan({ ...result, content }, names);
			} catch (error) {
				// An abort is the loop's business: it writes the aborted placeholder (rule A3).
				if (signal.aborted) throw error;
				// The SDK's "Connection closed" says less than the bridge knows: the server, not this call, is gone.
				if (!client.transport) return errorResult(names, CONNECTION_CLOSED);
				// The schema's error message is its issues as pretty-printed JSON: kilobytes the model cannot use.
				if (isSchemaError(error))
					return errorResult(names, `${INVALID_RESULT}: ${firstIssue(error.issues, "result")}`);
				return errorResult(names, redact(error instanceof Error ? error.message : String(error)));
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
