/** The test server over stdio, run by the tests as a child process (`tsx stdio-server.ts`). */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createTestServer } from "./test-server.js";

const server = createTestServer(() => process.exit(1));
await server.connect(new StdioServerTransport());
