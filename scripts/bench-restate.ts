/**
 * Durable overhead on Restate (not CI): the same scripted agent — `turns` tool turns, then a text — run in
 * memory (`agentLoop`) and as a `capstan/restate` conversation (a worker in this process, the server from
 * `scripts/services/restate.sh`). Prints ms per step over the in-memory run, a step being one model call or
 * one tool execution (a non-idempotent tool journals two entries: its start marker and its result).
 *
 *   eval "$(scripts/services/restate.sh start)" && npx tsx scripts/bench-restate.ts
 */
import { performance } from "node:perf_hooks";
import { type AgentTool, agentLoop, userMessage } from "../src/index.js";
import {
	RestateAgentClient,
	registerRestateDeployment,
	restateAgent,
	serveRestateAgents,
} from "../src/restate/index.js";
import { scriptedModel, textReply, toolReply } from "../src/testing/index.js";

const TURNS = 20;
const REPEATS = 7;

function agent(idempotent: boolean) {
	const scripted = scriptedModel(
		(call) => {
			const turns = call.context.messages.filter((message) => message.role === "assistant").length;
			return turns < TURNS ? toolReply("note", { n: turns }, { id: `call_${turns + 1}` }) : textReply("done");
		},
		{ now: () => 0 },
	);
	const note: AgentTool = {
		name: "note",
		description: "Write a note.",
		parameters: { type: "object", properties: { n: { type: "number" } } },
		idempotent,
		execute: async (_id, args: { n: number }) => ({ content: [{ type: "text", text: `noted ${args.n}` }] }),
	};
	return { model: scripted.model, streamFn: scripted.stream, tools: [note] };
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function inMemoryMs(idempotent: boolean): Promise<number> {
	const { model, streamFn, tools } = agent(idempotent);
	const started = performance.now();
	await agentLoop([userMessage("go", 0)], { messages: [], tools }, { model, streamFn }).result();
	return performance.now() - started;
}

async function main(): Promise<void> {
	const ingressUrl = process.env.CAPSTAN_TEST_RESTATE_URL;
	const adminUrl = process.env.CAPSTAN_TEST_RESTATE_ADMIN_URL;
	if (!ingressUrl || !adminUrl)
		throw new Error('no Restate server: run `eval "$(scripts/services/restate.sh start)"` first');
	const suffix = `${process.pid}`;
	const kinds = [
		{ label: "idempotent tools", idempotent: true, name: `bench_idem_${suffix}` },
		{ label: "non-idempotent tools", idempotent: false, name: `bench_once_${suffix}` },
	];
	const definitions = kinds.map((kind) => restateAgent({ name: kind.name, agent: agent(kind.idempotent) }));
	const worker = await serveRestateAgents(definitions);
	await registerRestateDeployment({ adminUrl, uri: worker.url });
	const steps = 2 * TURNS + 1; // TURNS model calls with a tool each, then the final model call
	console.log(
		`capstan/restate bench — node ${process.version}, ${TURNS} tool turns (${steps} steps), median of ${REPEATS}`,
	);
	for (const kind of kinds) {
		const client = new RestateAgentClient({ ingressUrl, name: kind.name });
		await client.run("warm-up", { prompt: "go" });
		const memory: number[] = [];
		const durable: number[] = [];
		for (let i = 0; i < REPEATS; i++) {
			memory.push(await inMemoryMs(kind.idempotent));
			const started = performance.now();
			await client.run(`run-${i}`, { prompt: "go" });
			durable.push(performance.now() - started);
		}
		const overhead = (median(durable) - median(memory)) / steps;
		console.log(
			`${kind.label}: in memory ${median(memory).toFixed(1)} ms, on Restate ${median(durable).toFixed(1)} ms → ${overhead.toFixed(2)} ms per step`,
		);
	}
	await worker.close();
}

await main();
