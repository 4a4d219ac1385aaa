/**
 * A real MCP server (the SDK's own `McpServer`) with one tool per behaviour the bridge maps: text, media,
 * structured content, `isError`, progress, cancellation, a tool list change, and dying mid-call.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** A 1×1 PNG. */
export const PIXEL_PNG =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** Build the server; `exit` is how the `die` tool ends the process (stdio) or the connection (HTTP). */
export function createTestServer(exit: () => void): McpServer {
	const server = new McpServer({ name: "capstan-test", version: "1.0.0" });
	let cancellations = 0;

	server.registerTool(
		"echo",
		{
			description: "Echo the text back",
			inputSchema: { text: z.string() },
			annotations: { readOnlyHint: true },
		},
		async ({ text }) => ({
			content: [{ type: "text", text: `echo: ${text}` }],
			structuredContent: { length: text.length },
		}),
	);

	server.registerTool("media", { description: "Return one block of every content type" }, async () => ({
		content: [
			{ type: "image", data: PIXEL_PNG, mimeType: "image/png" },
			{ type: "audio", data: "AAAA", mimeType: "audio/wav" },
			{ type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "the notes" } },
			{ type: "resource_link", uri: "file:///big.bin", name: "big.bin", description: "a large file" },
		],
	}));

	server.registerTool("fail", { description: "Always fails" }, async () => ({
		content: [{ type: "text", text: "the disk is full" }],
		isError: true,
	}));

	server.registerTool(
		"count_to",
		{ description: "Report progress", inputSchema: { n: z.number() } },
		async ({ n }, extra) => {
			const progressToken = extra._meta?.progressToken;
			// All reports written in the same breath as the result: they reach the client in one chunk, the case
			// the bridge's transport wrapper exists for (transport.ts).
			for (let i = 1; i <= n; i++) {
				if (progressToken !== undefined)
					await extra.sendNotification({
						method: "notifications/progress",
						params: { progressToken, progress: i, total: n, message: `step ${i}` },
					});
			}
			return { content: [{ type: "text", text: `counted to ${n}` }] };
		},
	);

	server.registerTool("wait_for_cancel", { description: "Runs until cancelled" }, async (extra) => {
		const progressToken = extra._meta?.progressToken;
		// Tell the client the call is running, so a test can cancel it at a known point.
		if (progressToken !== undefined)
			await extra.sendNotification({
				method: "notifications/progress",
				params: { progressToken, progress: 0, message: "waiting" },
			});
		await new Promise<void>((resolve) =>
			extra.signal.addEventListener("abort", () => resolve(), { once: true }),
		);
		cancellations++;
		return { content: [{ type: "text", text: "cancelled" }] };
	});

	server.registerTool("cancellations", { description: "How many calls were cancelled" }, async () => ({
		content: [{ type: "text", text: String(cancellations) }],
	}));

	server.registerTool(
		"add_tool",
		{ description: "Register a new tool", inputSchema: { name: z.string() } },
		async ({ name }) => {
			server.registerTool(name, { description: `Added at run time: ${name}` }, async () => ({
				content: [{ type: "text", text: `${name} ran` }],
			}));
			return { content: [{ type: "text", text: `added ${name}` }] };
		},
	);

	server.registerTool("die", { description: "The server exits during the call" }, async () => {
		setTimeout(exit, 10);
		return new Promise(() => {});
	});

	return server;
}
