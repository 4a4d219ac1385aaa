/**
 * A real SDK stdio server (`McpServer`) whose tools write lines to stdout that are no JSON-RPC message, beside the
 * SDK's own: an answer that is not valid JSON (`NaN`, in two encoders' member orders), an answer in JSON that is
 * not JSON-RPC, log lines before a proper answer, and a JSON-RPC error that names no request (`id` null or left
 * out, as a server writes for a request it could not read). It greets on stdout as it starts, as a server that
 * logs there does. Run by the tests as a child process (`tsx`).
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
	process.stdout.write(`working on it for ${process.env.BAD_LINES_ACCOUNT ?? "nobody"}\n`);
	process.stdout.write(`{"level":"info","msg":"still working","id":"log-1"}\n`);
	return { content: [{ type: "text", text: "done" }] };
});
/** The error a server writes for a request it could not read; `id` is `null` or left out. */
const unnamedError = (id: "null" | "absent") =>
	`{"jsonrpc":"2.0",${id === "null" ? '"id":null,' : ""}"error":{"code":-32700,"message":"Parse error: Unexpected token"}}`;
server.registerTool("null_id_error", { description: "Answers with an error of id null" }, async () => {
	process.stdout.write(`${unnamedError("null")}\n`);
	return new Promise<never>(() => {});
});
server.registerTool("no_id_error", { description: "Answers with an error without an id" }, async () => {
	process.stdout.write(`${unnamedError("absent")}\n`);
	return new Promise<never>(() => {});
});
// Two calls in flight: `held` waits until `null_id_error_beside_held` has written its error line, so the client
// reads that line while both calls wait, and `held`'s answer after it.
let heldArrived: () => void = () => {};
const arrived = new Promise<void>((resolve) => {
	heldArrived = resolve;
});
let release: () => void = () => {};
const released = new Promise<void>((resolve) => {
	release = resolve;
});
server.registerTool("held", { description: "Answers once the other call wrote its error" }, async () => {
	heldArrived();
	await released;
	return { content: [{ type: "text", text: "held, then answered" }] };
});
server.registerTool(
	"null_id_error_beside_held",
	{ description: "Once `held` runs, answers with an error of id null, then lets `held` answer" },
	async () => {
		await arrived;
		process.stdout.write(`${unnamedError("null")}\n`);
		release();
		return new Promise<never>(() => {});
	},
);
server.registerTool("echo", { description: "Echo", inputSchema: { text: z.string() } }, async ({ text }) => ({
	content: [{ type: "text", text }],
}));

// With a control sequence (clear the screen), as a server's coloured logs have.
process.stdout.write("\x1b[2Jbad-lines server 1.0 starting\n\n");
await server.connect(new StdioServerTransport());
