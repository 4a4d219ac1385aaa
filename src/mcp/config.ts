/**
 * The `mcpServers` configuration (the shape Claude Desktop, Cursor and others use), checked with errors that say
 * which server and field is wrong. Values are never echoed: `env` and `headers` usually hold secrets.
 */
import { redactSecrets, requestCredentials } from "../providers/base/redact.js";

/** A server started as a child process, spoken to over stdio. */
export interface McpStdioServerConfig {
	/** The executable, e.g. `npx` or `node`. */
	command: string;
	/** Its arguments. */
	args?: string[];
	/** Added to the SDK's safe default environment (PATH, HOME, …); the parent's other variables are not passed. */
	env?: Record<string, string>;
	/** Working directory of the server process (default: the host's). */
	cwd?: string;
}

/** A server reached over streamable HTTP (no fallback to the deprecated SSE transport). */
export interface McpHttpServerConfig {
	/** The server's streamable HTTP endpoint, e.g. `https://example.com/mcp`. */
	url: string;
	/** Sent with every request, e.g. `Authorization`. */
	headers?: Record<string, string>;
	/** Optional tag some configurations carry; `"sse"` is refused. */
	type?: "http" | "streamable-http";
}

/** One entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** `{ "mcpServers": { "<name>": { ... } } }`. */
export interface McpServersConfig {
	/** Servers by name; the name prefixes their tools' names. */
	mcpServers: Record<string, McpServerConfig>;
}

/** Whether a server entry is reached over HTTP. */
export function isHttpServer(config: McpServerConfig): config is McpHttpServerConfig {
	return "url" in config;
}

/**
 * A function that replaces the secrets of a server entry — its `headers` and `env` values, a token after a
 * scheme (`Bearer <token>`), and the values of credential query parameters in its `url` (`?token=`, `?code=`,
 * any such name) — wherever they appear in a text, for error messages: a server may echo a rejected header or
 * the address it was sent in its reply, which the SDK quotes. Values under 8 characters are left alone (they
 * are not secrets, and replacing them would garble the text).
 */
export function secretRedactor(config: McpServerConfig): (text: string) => string {
	const values = Object.values((isHttpServer(config) ? config.headers : config.env) ?? {});
	const inUrl = isHttpServer(config) ? requestCredentials(config.url, []) : [];
	const secrets = [...values, ...inUrl]
		.flatMap((value) => [value, ...value.split(/\s+/)])
		.filter((candidate) => candidate.length >= 8);
	// `redactSecrets` masks the longest first, so a whole value goes before the token inside it.
	return (text) => redactSecrets(text, secrets);
}

/**
 * Check a parsed JSON value as `{ mcpServers: {...} }`. `source` (a file name) prefixes the error messages.
 * Throws a `TypeError` naming the server and field at the first problem.
 */
export function parseMcpServersConfig(value: unknown, source = "MCP configuration"): McpServersConfig {
	if (!isRecord(value) || !isRecord(value.mcpServers))
		throw new TypeError(`${source}: expected an object with an "mcpServers" object`);
	const mcpServers: Record<string, McpServerConfig> = {};
	for (const [name, entry] of Object.entries(value.mcpServers))
		mcpServers[name] = parseServer(name, entry, `${source}: server "${name}"`);
	return { mcpServers };
}

function parseServer(name: string, entry: unknown, where: string): McpServerConfig {
	if (!/^[A-Za-z0-9_-]+$/.test(name))
		throw new TypeError(
			`${where}: a server name may use letters, digits, "_" and "-" only (it prefixes tool names)`,
		);
	if (!isRecord(entry)) throw new TypeError(`${where}: expected an object`);
	if (entry.type === "sse")
		throw new TypeError(
			`${where}: the SSE transport is not supported; use the server's streamable HTTP endpoint`,
		);
	if (typeof entry.url === "string") {
		let url: URL;
		try {
			url = new URL(entry.url);
		} catch {
			throw new TypeError(`${where}: "url" is not a valid URL`);
		}
		if (url.protocol !== "http:" && url.protocol !== "https:")
			throw new TypeError(`${where}: "url" must be http: or https:`);
		// fetch refuses such a URL, and its error would quote the password.
		if (url.username !== "" || url.password !== "")
			throw new TypeError(
				`${where}: "url" must not carry credentials (user:password@); send them in "headers"`,
			);
		const http: McpHttpServerConfig = { url: entry.url };
		if (entry.headers !== undefined) http.headers = stringRecord(entry.headers, `${where}: "headers"`);
		return http;
	}
	if (typeof entry.command !== "string" || entry.command === "")
		throw new TypeError(`${where}: expected "command" (stdio) or "url" (streamable HTTP)`);
	const stdio: McpStdioServerConfig = { command: entry.command };
	if (entry.args !== undefined) {
		if (!Array.isArray(entry.args) || !entry.args.every((a) => typeof a === "string"))
			throw new TypeError(`${where}: "args" must be an array of strings`);
		stdio.args = entry.args;
	}
	if (entry.env !== undefined) stdio.env = stringRecord(entry.env, `${where}: "env"`);
	if (entry.cwd !== undefined) {
		if (typeof entry.cwd !== "string") throw new TypeError(`${where}: "cwd" must be a string`);
		stdio.cwd = entry.cwd;
	}
	return stdio;
}

function stringRecord(value: unknown, where: string): Record<string, string> {
	if (!isRecord(value)) throw new TypeError(`${where} must be an object of strings`);
	for (const [key, v] of Object.entries(value))
		if (typeof v !== "string") throw new TypeError(`${where}: "${key}" must be a string`);
	return value as Record<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
