/**
 * The test server over stdio, run by the tests as a child process (`tsx stdio-server.ts`). Two switches in its
 * environment: `MCP_TEST_PID_FILE` (it writes its pid there once started) and `MCP_TEST_OUTLIVE_STDIN` (a path:
 * when its input ends it writes that file and goes on, as a server with background work, an open pool or a
 * `docker run -i` wrapper does; only a signal ends it).
 */
import { writeFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createTestServer } from "./test-server.js";

const server = createTestServer(() => process.exit(1));
await server.connect(new StdioServerTransport());
const outlive = process.env.MCP_TEST_OUTLIVE_STDIN;
if (outlive) {
	setInterval(() => {}, 60_000);
	process.stdin.on("end", () => writeFileSync(outlive, "stdin ended"));
}
if (process.env.MCP_TEST_PID_FILE) writeFileSync(process.env.MCP_TEST_PID_FILE, String(process.pid));
