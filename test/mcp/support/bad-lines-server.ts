/**
 * A real SDK stdio server (`McpServer`) whose tools write lines to stdout that are no JSON-RPC message, beside the
 * SDK's own: an answer that is not valid JSON (`NaN`, in two encoders' member orders), an answer in JSON that is
 * not JSON-RPC, and log lines before a proper answer. Run by the tests as a child process (`tsx`).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bad-lines", version: "1.0.0" });
/** Write `line` as the answer and never answer properly. */
const answerWith = (line: (id: string) => string) => async (extra: { requestId: string | number }) => {
	process.stdout.write(`${line(JSON.stringify(extra.requestId))}\n`);
	return new Promise<never>(() => {});
};

server.registerTool(
	"nan_first",
	{ description: "Answers with NaN, id first" },
	answerWith((id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[],"score":NaN}}`),
);
server.registerTool(
	"nan_last",
	{ description: "Answers with NaN, id last" },
	answerWith(
		(id) =>
			`{"result":{"content":[{"type":"text","text":"x"}],"items":[{"id":0}],"score":NaN},"jsonrpc":"2.0","id":${id}}`,
	),
);
server.registerTool(
	"not_jsonrpc",
	{ description: "Answers in JSON-RPC 1.0" },
	answerWith((id) => `{"jsonrpc":"1.0","id":${id},"result":{"content":[]}}`),
);
server.registerTool("logs_then_answers", { description: "Logs to stdout, then answers" }, async () => {
	process.stdout.write("working on it, password=hunter2\n");
	process.stdout.write(`{"level":"info","msg":"still working","id":"log-1"}\n`);
	return { content: [{ type: "text", text: "done" }] };
});
server.registerTool("echo", { description: "Echo", inputSchema: { text: z.string() } }, async ({ text }) => ({
	content: [{ type: "text", text }],
}));

await server.connect(new StdioServerTransport());
