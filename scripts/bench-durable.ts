// Durable-run cost (not CI): per-step overhead of capstan/dbos versus the in-memory loop, and runs per second
// with 4 worker processes on one PostgreSQL. Needs a server (scripts/services/postgres.sh start):
//   CAPSTAN_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:54329/postgres npx tsx scripts/bench-durable.ts
// The agent is the durable tests' scripted one: 4 model calls and 3 tool calls per run (7 steps, plus the
// journal's own records: the start time, one started-marker, and the queue reads at each boundary).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { DbosAgentRuns, launchDbosWorker, registerDbosAgent } from "../src/dbos/index.js";
import { agentLoop, userMessage } from "../src/index.js";
import { countingAgent } from "../test/durable/support/agent.js";

const STEPS_PER_RUN = 7;
const APP = "capstan-bench";
const input = { prompts: [userMessage("pay the bill", 0)] };

function register() {
	return registerDbosAgent({
		name: "bench",
		agent: () => countingAgent({ count: () => {} }),
		queuePollingMs: 20,
	});
}

async function worker(databaseUrl: string, id: string): Promise<void> {
	register();
	const launched = await launchDbosWorker({ applicationName: APP, databaseUrl, executorId: id });
	process.stdout.write("ready\n");
	process.on("SIGTERM", () => void launched.shutdown().then(() => process.exit(0)));
}

async function inMemoryMsPerRun(runs: number): Promise<number> {
	const started = performance.now();
	for (let i = 0; i < runs; i++) {
		const agent = countingAgent({ count: () => {} });
		const stream = agentLoop(
			input.prompts,
			{ messages: [], tools: agent.tools ?? [] },
			{
				model: agent.model,
				...(agent.streamFn ? { streamFn: agent.streamFn } : {}),
			},
		);
		for await (const _ of stream);
	}
	return (performance.now() - started) / runs;
}

async function createDatabase(serverUrl: string): Promise<string> {
	const name = `capstan_bench_${randomBytes(4).toString("hex")}`;
	const admin = new pg.Client({ connectionString: serverUrl });
	await admin.connect();
	await admin.query(`CREATE DATABASE ${name}`);
	await admin.end();
	const url = new URL(serverUrl);
	url.pathname = `/${name}`;
	return url.toString();
}

function spawnWorker(databaseUrl: string, id: string) {
	const child = spawn(
		process.execPath,
		["--import", "tsx", fileURLToPath(import.meta.url), "worker", databaseUrl, id],
		{
			stdio: ["ignore", "pipe", "inherit"],
		},
	);
	const ready = new Promise<void>((resolve) =>
		child.stdout.on("data", (chunk) => String(chunk).includes("ready") && resolve()),
	);
	return { child, ready };
}

async function main(): Promise<void> {
	const serverUrl = process.env.CAPSTAN_TEST_POSTGRES_URL;
	if (!serverUrl)
		throw new Error("set CAPSTAN_TEST_POSTGRES_URL (scripts/services/postgres.sh start prints it)");
	await inMemoryMsPerRun(20); // warm-up
	const memory = await inMemoryMsPerRun(200);

	// Overhead: runs one after another in this process (no queue), after a warm-up.
	const databaseUrl = await createDatabase(serverUrl);
	const bench = register();
	const launched = await launchDbosWorker({ applicationName: APP, databaseUrl, executorId: "bench-main" });
	for (let i = 0; i < 5; i++) await bench.run(input);
	const sequential = 40;
	let started = performance.now();
	for (let i = 0; i < sequential; i++) await bench.run(input);
	const durable = (performance.now() - started) / sequential;
	await launched.shutdown();

	// Throughput: 4 worker processes on one database, runs enqueued from a client.
	const throughputUrl = await createDatabase(serverUrl);
	const workers = ["w1", "w2", "w3", "w4"].map((id) => spawnWorker(throughputUrl, id));
	await Promise.all(workers.map((w) => w.ready));
	const runs = await DbosAgentRuns.connect({ databaseUrl: throughputUrl, applicationName: APP });
	const total = 200;
	started = performance.now();
	const ids = await Promise.all(Array.from({ length: total }, () => runs.start("bench", input)));
	await Promise.all(ids.map((id) => runs.result(id)));
	const seconds = (performance.now() - started) / 1000;
	const perWorker = new Map<string, number>();
	for (const id of ids) {
		const executor = (await runs.status(id))?.executorId ?? "?";
		perWorker.set(executor, (perWorker.get(executor) ?? 0) + 1);
	}
	await runs.close();
	for (const w of workers) w.child.kill("SIGTERM");

	console.log(`node ${process.version}, ${STEPS_PER_RUN} steps per run`);
	console.log(`in-memory loop:      ${memory.toFixed(2)} ms/run`);
	console.log(`durable (DBOS, 1 process, sequential): ${durable.toFixed(1)} ms/run`);
	console.log(`overhead per step:   ${((durable - memory) / STEPS_PER_RUN).toFixed(2)} ms`);
	console.log(
		`4 workers, ${total} runs enqueued at once: ${(total / seconds).toFixed(1)} runs/s (${seconds.toFixed(1)} s)`,
	);
	console.log(`runs per worker: ${[...perWorker].map(([k, v]) => `${k}=${v}`).join(" ")}`);
	for (const url of [databaseUrl, throughputUrl]) {
		const admin = new pg.Client({ connectionString: serverUrl });
		await admin.connect();
		await admin.query(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
		await admin.end();
	}
}

if (process.argv[2] === "worker") await worker(process.argv[3] ?? "", process.argv[4] ?? "w");
else await main();
