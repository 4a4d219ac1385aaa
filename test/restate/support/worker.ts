/**
 * A worker process of the Restate tests: serves the test agent on a loopback port, registers itself with the
 * Restate server through the admin API, then prints `READY <url>`. Run as
 * `node --import tsx test/restate/support/worker.ts '<WorkerConfig JSON>'`; the tests SIGKILL it.
 */
import { appendFileSync } from "node:fs";
import { registerRestateDeployment, restateAgent, serveRestateAgents } from "../../../src/restate/index.js";
import { eventsFile, testAgent, type WorkerConfig } from "./agent.js";

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;
const definition = restateAgent({
	name: config.name,
	agent: testAgent(config),
	// What the host sees live, one line per non-update event: `<key> <type>` (` error` on a failed tool).
	onEvent: (event, position, source) => {
		if (position.delta !== 0) return;
		const failed = event.type === "tool_execution_end" && event.isError ? " error" : "";
		appendFileSync(eventsFile(config.countFile), `${source.key} ${event.type}${failed}\n`);
	},
	// A killed worker's invocation is retried quickly: the tests wait for it.
	objectOptions: { retryPolicy: { initialInterval: 50, maxInterval: 500, exponentiationFactor: 2 } },
});
const worker = await serveRestateAgents([definition], { port: config.port });
await registerRestateDeployment({ adminUrl: config.adminUrl, uri: worker.url });
process.stdout.write(`READY ${worker.url}\n`);
