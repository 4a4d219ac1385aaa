/**
 * An HTTP server that drops a call's connection before answering (the SDK's StreamableHTTPServerTransport on
 * node:http, 127.0.0.1): the call must end with a clear error at once, not wait out the request timeout.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RequestId, unansweredStreamFetch } from "../../src/mcp/http-fetch.js";
import { connectMcpServers, type McpConnection } from "../../src/mcp/index.js";
import { agentWith, callReply, resultText, textReply } from "./support/harness.js";
import { type HttpMcpServer, startHttpMcpServer } from "./support/http-server.js";

let http: HttpMcpServer;
let mcp: McpConnection;
beforeAll(async () => {
	http = await startHttpMcpServer();
	// A timeout far beyond the test's own: only the dropped stream can end the call in time.
	mcp = await connectMcpServers({ mcpServers: { remote: { url: http.url } } }, { timeoutMs: 600_000 });
}, 30_000);
afterAll(async () => {
	await mcp?.close();
	await http?.close();
});

describe("a call whose HTTP response stream ends unanswered", () => {
	it("is an error result naming the cause, the transcript stays paired and the run goes on", async () => {
		const { agent, scripted, toolResults } = agentWith(mcp.tools(), [
			callReply("remote__die"),
			callReply("remote__echo", { text: "still there?" }),
			textReply("done"),
		]);
		await agent.prompt("die");
		const [died, after] = toolResults();
		expect(died?.isError).toBe(true);
		expect(resultText(died!)).toBe(
			`MCP tool "die" on server "remote" failed: MCP error -32000: the server ended the call's response stream without answering it (it stopped or dropped the connection)`,
		);
		// The server process is still up (only the connections dropped): the next call works.
		expect(resultText(after!)).toBe("echo: still there?");
		expect(scripted.calls).toHaveLength(3);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	}, 20_000);

	it("calls answered on their stream are not touched: results and progress arrive as before", async () => {
		const { agent, events, toolResults } = agentWith(mcp.tools(), [
			callReply("remote__count_to", { n: 3 }),
			textReply("ok"),
		]);
		await agent.prompt("count");
		expect(resultText(toolResults()[0]!)).toBe("counted to 3");
		expect(events.filter((e) => e.type === "tool_execution_update")).toHaveLength(3);
	});
});

describe("unansweredStreamFetch on raw SSE over loopback", () => {
	/** A server answering every POST with `sse` and then closing the stream. */
	async function sseServer(sse: string) {
		const server = createServer((_req, res) => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.end(sse);
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as AddressInfo;
		return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
	}

	async function unansweredAfter(sse: string, body: unknown): Promise<RequestId[]> {
		const server = await sseServer(sse);
		try {
			const reported: RequestId[] = [];
			const fetch = unansweredStreamFetch((ids) => reported.push(...ids));
			const response = await fetch(server.url, { method: "POST", body: JSON.stringify(body) });
			// The SDK reads the whole stream; so does this.
			expect(await response.text()).toBe(sse);
			return reported;
		} finally {
			await server.close();
		}
	}

	const request = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: {} });

	it("reports the requests the stream did not answer", async () => {
		const sse = `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\ndata: {"jsonrpc":"2.0","id":1,\ndata: "result":{}}\n\n`;
		expect(await unansweredAfter(sse, [request(1), request(2)])).toEqual([2]);
	});

	it("reports nothing when every request was answered, or when the stream gave an event id to resume from", async () => {
		expect(
			await unansweredAfter(
				`data: {"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}\r\n\r\n`,
				request(7),
			),
		).toEqual([]);
		expect(await unansweredAfter("id: ev-1\ndata:\n\n", request(3))).toEqual([]);
	});
});
