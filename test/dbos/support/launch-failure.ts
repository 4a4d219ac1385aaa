// A process whose `launchDbosWorker` fails (DBOS is global to a process, so each case gets a process of its
// own). One line per outcome on stdout, each starting `case: ` (DBOS prints there too). The process must then
// end by itself: a pool left open or a DBOS left launched and polling would keep it alive.
//   CAPSTAN_DB_URL   the database
//   CAPSTAN_CASE     `launch`: DBOS.launch() fails (no application name), then a corrected launch runs an agent
//                    `queue`: DBOS launched, then registering a reserved queue name fails
//                    `shutdown`: DBOS.shutdown() fails, then a new launch runs an agent
//                    `concurrent`: two launches at once
import { DBOS } from "@dbos-inc/dbos-sdk";
import { errorText } from "../../../src/core/abort.js";
import { launchDbosWorker, registerDbosAgent } from "../../../src/dbos/index.js";
import { countingAgent } from "../../durable/support/agent.js";
import { user } from "../../support/run.js";

const databaseUrl = process.env.CAPSTAN_DB_URL ?? "";
const say = (line: string) => process.stdout.write(`case: ${line}\n`);

async function launch(applicationName: string): Promise<Awaited<ReturnType<typeof launchDbosWorker>>> {
	return launchDbosWorker({ applicationName, databaseUrl, executorId: "launch-failure" });
}

async function failedLaunch(applicationName: string): Promise<void> {
	try {
		await launch(applicationName);
		say("launched");
	} catch (error) {
		say(`failed: ${errorText(error)}`);
	}
	say(`dbos initialized: ${DBOS.isInitialized()}`);
}

if (process.env.CAPSTAN_CASE === "launch") {
	const agent = registerDbosAgent({ name: "launch-ok", agent: () => countingAgent({ count: () => {} }) });
	await failedLaunch("");
	const worker = await launch("capstan-launch-test");
	const result = await agent.run({ prompts: [user("pay the bill")] });
	say(`run: ${result.outcome.type}`);
	await worker.shutdown();
} else if (process.env.CAPSTAN_CASE === "shutdown") {
	const agent = registerDbosAgent({ name: "shutdown-ok", agent: () => countingAgent({ count: () => {} }) });
	const first = await launch("capstan-launch-test");
	// DBOS's own shutdown runs for real, then reports a failure.
	const shutdown = DBOS.shutdown.bind(DBOS);
	DBOS.shutdown = async (options) => {
		await shutdown(options);
		throw new Error("DBOS shutdown failed");
	};
	await first.shutdown().catch((error: unknown) => say(`shutdown failed: ${errorText(error)}`));
	DBOS.shutdown = shutdown;
	const second = await launch("capstan-launch-test");
	// The failed worker's shutdown again: the same failure, and the worker launched since keeps running.
	await first.shutdown().catch((error: unknown) => say(`shutdown again: ${errorText(error)}`));
	const result = await agent.run({ prompts: [user("pay the bill")] });
	say(`run: ${result.outcome.type}`);
	await second.shutdown();
	await second.shutdown();
} else if (process.env.CAPSTAN_CASE === "concurrent") {
	registerDbosAgent({ name: "concurrent-ok", agent: () => countingAgent({ count: () => {} }) });
	const launches = await Promise.allSettled([launch("capstan-launch-test"), launch("capstan-launch-test")]);
	for (const settled of launches)
		say(settled.status === "fulfilled" ? "launched" : `failed: ${errorText(settled.reason)}`);
	for (const settled of launches) if (settled.status === "fulfilled") await settled.value.shutdown();
} else {
	registerDbosAgent({
		name: "launch-bad-queue",
		queueName: "_dbos_mine",
		agent: () => countingAgent({ count: () => {} }),
	});
	await failedLaunch("capstan-launch-test");
	await failedLaunch("capstan-launch-test");
}
say("end");
