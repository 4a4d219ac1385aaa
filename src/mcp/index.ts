/**
 * `capstan/mcp`: MCP servers' tools as capstan `AgentTool`s, over stdio or streamable HTTP, through
 * `@modelcontextprotocol/sdk` (an optional peer dependency of this entry only).
 */
export {
	isHttpServer,
	type McpHttpServerConfig,
	type McpServerConfig,
	type McpServersConfig,
	type McpStdioServerConfig,
	parseMcpServersConfig,
} from "./config.js";
export {
	type ConnectMcpOptions,
	connectMcpServers,
	type McpConnection,
	type McpServerHandle,
} from "./connect.js";
export {
	type McpContentBlock,
	type McpToolDetails,
	mcpContentToCapstan,
	mcpResultToCapstan,
} from "./content.js";
export {
	type McpAgentTool,
	type McpProgressDetails,
	type McpToolsOptions,
	mcpToolName,
	mcpTools,
} from "./tools.js";
