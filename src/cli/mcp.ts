/**
 * MCP servers in the `capstan` command: `mcpServers` from `capstan.json` / the user settings and from
 * `--mcp FILE` (the usual `{ "mcpServers": { ... } }` file; its entries win by name). Their tools join the
 * workspace tools in the agent's own array, kept current when a server's tool list changes.
 *
 * Confirmation: an MCP tool asks like `write_file` does unless its server marks it `readOnlyHint: true`.
 * Annotations are hints from the server, so this only spares questions for tools the server itself calls
 * harmless; a tool with no annotations is treated as one that changes things.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { McpAgentTool, McpConnection, McpServerHandle, McpServersConfig } from "../mcp/index.js";
import type { AgentTool } from "../tools/types.js";
import { ConfigError } from "./config.js";
import { terminalText } from "./terminal-text.js";

/** The servers the settings and `--mcp` name, or undefined when none. Throws ConfigError on a bad file. */
export async function mcpServersFor(
	fromSettings: unknown,
	mcpFile: string | undefined,
	cwd: string,
): Promise<McpServersConfig | undefined> {
	if (fromSettings === undefined && mcpFile === undefined) return undefined;
	const { parseMcpServersConfig } = await loadBridge();
	const servers: McpServersConfig["mcpServers"] = {};
	if (fromSettings !== undefined)
		Object.assign(
			servers,
			checked(() => parseMcpServersConfig({ mcpServers: fromSettings }, "settings").mcpServers),
		);
	if (mcpFile !== undefined) {
		const path = resolve(cwd, mcpFile);
		let value: unknown;
		try {
			value = JSON.parse(readFileSync(path, "utf8"));
		} catch (error) {
			throw new ConfigError(`--mcp ${path}: ${fileProblem(error)}`);
		}
		Object.assign(
			servers,
			checked(() => parseMcpServersConfig(value, `--mcp ${path}`).mcpServers),
		);
	}
	return Object.keys(servers).length > 0 ? { mcpServers: servers } : undefined;
}

/** Why the `--mcp` file could not be read, in words rather than Node's `ENOENT: no such file or directory, open '…'`. */
function fileProblem(error: unknown): string {
	const code = (error as NodeJS.ErrnoException).code;
	if (code === "ENOENT") return "no such file";
	if (code === "EISDIR") return 'a folder, not a file with {"mcpServers": {...}}';
	if (error instanceof SyntaxError) return `not valid JSON (${error.message})`;
	return (error as Error).message;
}

/** Options of {@link attachMcpTools}. */
export interface AttachMcpOptions {
	/** Wraps each tool that needs approval (the command makes it ask, rule T14). Default: as it is. */
	guard?: (tool: McpAgentTool) => McpAgentTool;
	/**
	 * Told, once each, of what a server's listing left out, of a re-listing that failed (its previous tools
	 * stay offered), of a server whose connection was lost (an HTTP server: each time it could not be reached
	 * after it had been), of an HTTP server that forgot the session (it restarted) and got a new one, and of the
	 * first few lines a stdio server wrote on stdout that were no MCP message.
	 * Default: nobody.
	 */
	warn?: (text: string) => void;
}

/**
 * Connect the servers and put their tools into `tools` (the array the agent holds), marking in `confirm` the
 * ones that need approval and passing those through `guard`. Returns the connection, to close when the command
 * ends.
 */
export async function attachMcpTools(
	config: McpServersConfig,
	tools: AgentTool[],
	confirm: Set<string>,
	{ guard = (tool) => tool, warn = () => {} }: AttachMcpOptions = {},
): Promise<McpConnection> {
	const { connectMcpServers } = await loadBridge();
	let connection: McpConnection;
	try {
		// A server's stderr would tear through the interactive screen and the JSON modes' output. Lines it writes
		// on stdout that are no message are a mistake worth showing: they may be why it misbehaves.
		connection = await connectMcpServers(config, {
			stderr: "ignore",
			onIgnoredLine: strayLineReporter(warn),
		});
	} catch (error) {
		throw new ConfigError((error as Error).message);
	}
	let current: readonly McpAgentTool[] = [];
	const sync = (next: readonly McpAgentTool[]) => {
		for (const tool of current) {
			const at = tools.indexOf(tool);
			if (at >= 0) tools.splice(at, 1);
			confirm.delete(tool.name);
		}
		const taken = new Set(tools.map((tool) => tool.name));
		// A built-in tool keeps its name: an MCP tool that happens to share it is left out, never shadows it.
		current = next
			.filter((tool) => !taken.has(tool.name))
			.map((tool) => (tool.mcp.annotations?.readOnlyHint === true ? tool : guard(tool)));
		tools.push(...current);
		for (const tool of current) if (tool.mcp.annotations?.readOnlyHint !== true) confirm.add(tool.name);
	};
	const report = listingReporter(warn);
	const update = (next: readonly McpAgentTool[]) => {
		sync(next);
		report(connection.servers.values());
	};
	update(connection.tools());
	// Called after every listing, failed ones too.
	connection.onToolsChanged(update);
	// Its tools stay offered: a model that calls one is told the server is gone (mcp/tools.ts), which a tool
	// vanishing from the list would not tell it.
	connection.onConnectionLost((server) => warn(lostWarning(server)));
	connection.onSessionRenewed((server) =>
		warn(
			`MCP server "${server.name}": it no longer knew capstan's session (it restarted); a new session began, its tools are listed again`,
		),
	);
	return connection;
}

/** How many of a server's stray stdout lines are shown, and how many characters of each. */
const STRAY_LINES_SHOWN = 3;
const STRAY_LINE_CHARS = 200;

/**
 * Says the first few lines each server wrote on stdout that were no MCP message, cut short and with control
 * characters made visible (a line may hold anything), then once that more are not shown: a server that logs
 * there does so on every call, and would fill the screen.
 */
function strayLineReporter(warn: (text: string) => void): (server: string, line: string) => void {
	const seen = new Map<string, number>();
	return (server, line) => {
		const count = (seen.get(server) ?? 0) + 1;
		seen.set(server, count);
		if (count <= STRAY_LINES_SHOWN) {
			const shown = line.length > STRAY_LINE_CHARS ? `${line.slice(0, STRAY_LINE_CHARS)}…` : line;
			warn(
				`MCP server "${server}" wrote a line on stdout that is no MCP message (ignored; a server's logs belong on stderr): ${terminalText(shown)}`,
			);
		} else if (count === STRAY_LINES_SHOWN + 1)
			warn(`MCP server "${server}": its further stdout lines that are no MCP message are ignored unshown`);
	};
}

/**
 * A stdio server that exited is gone for good; an HTTP server that cannot be reached, or that gave no new
 * session in place of one it forgot, may come back, and its tools are tried again on every call.
 */
function lostWarning(server: McpServerHandle): string {
	if (server.unreachable !== undefined)
		return `MCP server "${server.name}": cannot be reached (${server.unreachable}); calls to its tools fail until it can be reached again`;
	if (server.sessionError !== undefined)
		return `MCP server "${server.name}": it no longer knew capstan's session (it restarted) and refused a new one (${server.sessionError}); each call to its tools asks again`;
	return `MCP server "${server.name}": connection lost (the server exited or closed the connection); calls to its tools fail until capstan is restarted`;
}

/**
 * Says what the servers' listings left out (`skippedTools`, each line once) and when a re-listing failed
 * (`lastRefreshError`, once while it fails the same way; again once a listing worked in between), so neither
 * a left-out tool nor a stale list goes unnoticed, and a server that keeps failing does not fill the screen.
 */
function listingReporter(warn: (text: string) => void): (servers: Iterable<McpServerHandle>) => void {
	const said = new Map<string, { skipped: Set<string>; refreshError?: string | undefined }>();
	return (servers) => {
		for (const server of servers) {
			const seen = said.get(server.name) ?? { skipped: new Set<string>() };
			said.set(server.name, seen);
			for (const line of server.skippedTools ?? [])
				if (!seen.skipped.has(line)) {
					seen.skipped.add(line);
					warn(`MCP server "${server.name}": left out ${line}`);
				}
			const error = server.lastRefreshError;
			if (error !== undefined && error !== seen.refreshError)
				warn(
					`MCP server "${server.name}": re-listing its tools failed, its previous tools stay offered: ${error}`,
				);
			seen.refreshError = error;
		}
	};
}

async function loadBridge() {
	try {
		return await import("../mcp/index.js");
	} catch (error) {
		throw new ConfigError(
			`MCP servers are configured, but @modelcontextprotocol/sdk could not be loaded (npm install @modelcontextprotocol/sdk): ${(error as Error).message}`,
		);
	}
}

function checked<T>(parse: () => T): T {
	try {
		return parse();
	} catch (error) {
		throw new ConfigError((error as Error).message);
	}
}
