/**
 * An HTTP MCP server that goes down (the SDK's StreamableHTTPServerTransport on node:http, 127.0.0.1, its
 * listener stopped): the host hears of it once through `onConnectionLost`, a call says the server cannot be
 * reached and why, and once the server is back its tools work again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection } from "../../src/mcp/index.js";
import { executeAlone, resultText } from "./support/harness.js";
import { type HttpMcpServer, startHttpMcpServer } from "./support/http-server.js";

let http: HttpMcpServer;
let mcp: McpConnection;
beforeAll(async () => {
	http = await startHttpMcpServer();
	mcp = await connectMcpServers({ mcpServers: { remote: { url: http.url } } });
}, 30_000);
afterAll(async () => {
	await mcp?.close();
	await http?.close();
});

const echo = async (text: string) => {
	const tool = mcp.tools().find((t) => t.name === "remote__echo");
	if (!tool) throw new Error("no remote__echo");
	const result = await executeAlone(tool, { text });
	return [result.isError === true, resultText(result)];
};

describe("an HTTP MCP server that cannot be reached", () => {
	it("is reported lost once while it is down; calls fail naming the cause; once back, its tools work", async () => {
		const lost: string[] = [];
		mcp.onConnectionLost((server) => lost.push(server.name));
		const remote = mcp.servers.get("remote");
		expect(await echo("a")).toEqual([false, "echo: a"]);

		await http.stop();
		const failed = (cause: RegExp) =>
			expect.stringMatching(
				new RegExp(
					`^MCP tool "echo" on server "remote" failed: the server could not be reached \\((?:${cause.source})\\)$`,
				),
			);
		const refused = failed(/connect ECONNREFUSED 127\.0\.0\.1:\d+/);
		// The first request may go out on a kept-alive socket the server has closed, and not be refused but cut.
		expect(await echo("b")).toEqual([
			true,
			failed(/connect ECONNREFUSED 127\.0\.0\.1:\d+|other side closed/),
		]);
		expect(await echo("c")).toEqual([true, refused]);
		expect(lost).toEqual(["remote"]);
		expect(remote?.connected).toBe(false);
		expect(remote?.unreachable).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);

		await http.resume();
		expect(await echo("d")).toEqual([false, "echo: d"]);
		expect(remote?.connected).toBe(true);
		expect(remote?.unreachable).toBeUndefined();

		// Down again: a new loss, said again.
		await http.stop();
		expect(await echo("e")).toEqual([
			true,
			failed(/connect ECONNREFUSED 127\.0\.0\.1:\d+|other side closed/),
		]);
		expect(lost).toEqual(["remote", "remote"]);
		await http.resume();
	});
});
