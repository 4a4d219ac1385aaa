/**
 * A worker process of the Restate tests: serves the test agent on a loopback port, registers itself with the
 * Restate server through the admin API, then prints `READY <url>`. Run as
 * `node --import tsx test/restate/support/worker.ts '<WorkerConfig JSON>'`; the tests SIGKILL it.
 */
import { registerRestateDeployment, restateAgent, serveRestateAgents } from "../../../src/restate/index.js";
import { testAgent, type WorkerConfig } from "./agent.js";

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;
const definition = restateAgent({
	name: config.name,
	agent: testAgent(config),
	// A killed worker's invocation is retried quickly: the tests wait for it.
	objectOptions: { retryPolicy: { initialInterval: 50, maxInterval: 500, exponentiationFactor: 2 } },
});
const worker = await serveRestateAgents([definition], { port: config.port });
await registerRestateDeployment({ adminUrl: config.adminUrl, uri: worker.url });
process.stdout.write(`READY ${worker.url}\n`);
