// A DBOS worker process for the kill tests: the counting agent of test/durable, registered as the workflow
// "kill-test". Side effects are counted as lines in <dir>/counts; gates are files in <dir>.
//   CAPSTAN_DB_URL, CAPSTAN_EXECUTOR, CAPSTAN_DIR   where and who
// Two workflows: "kill-test" (`charge` not idempotent) and "kill-test-idempotent". Per run (DBOS workflow id):
//   CAPSTAN_HANG_IN_CHARGE=1  `charge` writes <dir>/inside-charge-<run> and never returns (we get killed there)
//   <dir>/gate-<run> exists   `lookup` t3 writes <dir>/inside-t3-<run> and waits for <dir>/release-<run>
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { launchDbosWorker, registerDbosAgent } from "../../../src/dbos/index.js";
import { countingAgent } from "../../durable/support/agent.js";
import { KILL_QUEUE } from "./postgres.js";

const env = (name: string): string => {
	const value = process.env[name];
	if (!value) throw new Error(`worker: ${name} is not set`);
	return value;
};
const dir = env("CAPSTAN_DIR");

async function waitForFile(path: string): Promise<void> {
	while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 20));
}

const executor = env("CAPSTAN_EXECUTOR");
const run = (): string => DBOS.workflowID ?? "none";

for (const idempotentCharge of [false, true]) {
	registerDbosAgent({
		name: idempotentCharge ? "kill-test-idempotent" : "kill-test",
		// A queue of their own: no worker polls the default queue, so a run taken over must go back on this one.
		queueName: KILL_QUEUE,
		agent: () =>
			countingAgent({
				count: (key) => appendFileSync(join(dir, "counts"), `${executor} ${run()} ${key}\n`),
				idempotentCharge,
				insideCharge: async () => {
					if (process.env.CAPSTAN_HANG_IN_CHARGE !== "1") return;
					writeFileSync(join(dir, `inside-charge-${run()}`), String(process.pid));
					await new Promise(() => {});
				},
				insideLookup: async (id) => {
					if (id !== "t3" || !existsSync(join(dir, `gate-${run()}`))) return;
					writeFileSync(join(dir, `inside-t3-${run()}`), String(process.pid));
					await waitForFile(join(dir, `release-${run()}`));
				},
			}),
	});
}

const worker = await launchDbosWorker({
	applicationName: "capstan-kill-test",
	databaseUrl: env("CAPSTAN_DB_URL"),
	executorId: executor,
});
process.stdout.write(`ready ${worker.executorId}\n`);
process.on("SIGTERM", () => {
	void worker.shutdown().finally(() => process.exit(0));
});
