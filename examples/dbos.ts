// A durable agent on DBOS + PostgreSQL (docs/durable.md): kill the worker inside a tool, let another take over.
//   export DATABASE_URL=postgresql://postgres@127.0.0.1:54329/postgres   (scripts/services/postgres.sh start)
//   npx tsx examples/dbos.ts worker w1 &        a worker (executor id w1)
//   npx tsx examples/dbos.ts start              enqueue a run, print its events as they happen
//   kill -9 %1                                  …while "charge" runs (it takes 3 s)
//   npx tsx examples/dbos.ts worker w2 &        another worker
//   npx tsx examples/dbos.ts takeover w1        hand w1's unfinished runs to the live workers
//   npx tsx examples/dbos.ts watch <run id>     the rest of the events, then the transcript
// And a hard stop that loses nothing the user sent (docs/durable.md, rule 5):
//   npx tsx examples/dbos.ts start &            another run
//   npx tsx examples/dbos.ts steer <run id> "Use the company card."
//   npx tsx examples/dbos.ts next <run id>      cancel it (DBOS), start the next run with its steering
//                                               (a run that ended first gives the messages it never read)
// And retention (docs/durable.md, "Retention"):
//   npx tsx examples/dbos.ts clean 0            delete the runs that ended, then prune rows DBOS's deletes left
// The model is scripted (capstan/testing), so no API key is needed.

import { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { AgentTool } from "capstan";
import {
	DbosAgentRuns,
	DbosRunNotFoundError,
	type DurableAgent,
	launchDbosWorker,
	registerDbosAgent,
} from "capstan/dbos";
import { scriptedModel } from "capstan/testing";

const databaseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:54329/postgres";
const applicationName = "capstan-example";

function paymentAgent(): DurableAgent {
	// Replies are chosen from the transcript, not a counter: a worker that takes a run over starts fresh.
	const scripted = scriptedModel((call) => {
		const turn = call.context.messages.filter((message) => message.role === "assistant").length;
		if (turn === 0)
			return { content: [{ type: "toolCall", id: "c1", name: "lookup", arguments: { key: "invoice" } }] };
		if (turn === 1)
			return { content: [{ type: "toolCall", id: "c2", name: "charge", arguments: { cents: 1250 } }] };
		return { content: [{ type: "text", text: "Done: the invoice is paid, or the charge needs checking." }] };
	});
	const lookup: AgentTool = {
		name: "lookup",
		description: "Read a record (safe to repeat).",
		parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
		idempotent: true,
		execute: async (_id, args: { key: string }) => ({
			content: [{ type: "text", text: `${args.key}: 12.50 EUR due` }],
		}),
	};
	const charge: AgentTool = {
		name: "charge",
		description: "Charge the card (not safe to repeat).",
		parameters: { type: "object", properties: { cents: { type: "number" } }, required: ["cents"] },
		// Not idempotent: after a crash inside it, the model is told it was not re-run (onInterrupted: "report").
		execute: async (_id, args: { cents: number }) => {
			await new Promise((resolve) => setTimeout(resolve, 3_000));
			return { content: [{ type: "text", text: `charged ${args.cents} cents` }] };
		},
	};
	return { model: scripted.model, streamFn: scripted.stream, tools: [lookup, charge] };
}

async function printEvents(runs: DbosAgentRuns, runId: string): Promise<void> {
	for await (const { event } of runs.events(runId)) {
		if (event.type === "tool_execution_start") console.log(`  tool ${event.toolName} started`);
		if (event.type === "tool_execution_end")
			console.log(
				`  tool ${event.toolName}: ${event.result.content.map((c) => (c.type === "text" ? c.text : "")).join("")}`,
			);
		if (event.type === "agent_end") console.log(`  ended: ${event.outcome.type}`);
	}
}

// Every command needs PostgreSQL: when it is not there, say so instead of printing the driver's stack trace.
function unreachable(error: unknown): never {
	const code = (error as { code?: unknown } | undefined)?.code;
	if (code !== "ECONNREFUSED" && code !== "ENOTFOUND") throw error;
	console.error(
		`PostgreSQL is unreachable (${code}): export DATABASE_URL=$(scripts/services/postgres.sh start), or any PostgreSQL's URL`,
	);
	process.exit(1);
}

const [command, arg, text] = process.argv.slice(2);
const known =
	command === "worker" ||
	command === "start" ||
	command === "clean" ||
	((command === "takeover" || command === "watch" || command === "next") && arg) ||
	(command === "steer" && arg && text);
if (!known) {
	console.log(
		"usage: examples/dbos.ts worker <id> | start | takeover <dead worker id> | watch <run id> | steer <run id> <text> | next <run id> | clean [minutes]",
	);
} else if (command === "worker") {
	registerDbosAgent({ name: "pay-invoice", agent: paymentAgent });
	const worker = await launchDbosWorker({ applicationName, databaseUrl, executorId: arg ?? "w1" }).catch(
		unreachable,
	);
	console.log(`worker ${worker.executorId} is running (Ctrl-C to stop)`);
	process.on("SIGINT", () => void worker.shutdown().then(() => process.exit(0)));
} else {
	const runs = await DbosAgentRuns.connect({ databaseUrl, applicationName }).catch(unreachable);
	try {
		if (command === "start") {
			const runId = await runs.start("pay-invoice", {
				prompts: [{ role: "user", content: "Pay the open invoice.", timestamp: Date.now() }],
			});
			console.log(`run ${runId}`);
			await printEvents(runs, runId);
		} else if (command === "takeover" && arg) {
			console.log(`handed over: ${(await runs.takeOver({ executorId: arg })).join(", ") || "nothing"}`);
		} else if (command === "steer" && arg && text) {
			await runs.steer(arg, text); // recorded with the run: a run that carries over from it gets it too
			console.log(`steered ${arg}`);
		} else if (command === "next" && arg) {
			// A hard stop: the run ends CANCELLED, without a transcript, keeping what it was sent.
			const dbos = await DBOSClient.create({ systemDatabaseUrl: databaseUrl, applicationName });
			await dbos.cancelWorkflow(arg).finally(() => dbos.destroy());
			// The conversation's next run gets every steer and follow-up the cancelled run was sent, read or not.
			const runId = await runs.start(
				"pay-invoice",
				{ prompts: [{ role: "user", content: "Pay it after all.", timestamp: Date.now() }] },
				{ carryOverFrom: arg },
			);
			console.log(`run ${runId}`);
			await printEvents(runs, runId);
			const added = (await runs.result(runId)).added.filter((message) => message.role === "user");
			console.log(`it read: ${added.map((message) => JSON.stringify(message.content)).join(", ")}`);
		} else if (command === "clean") {
			// Retention: the runs that ended more than [minutes] ago (default 60) go, with their events and messages,
			// then the rows of runs DBOS deleted itself (DBOS.deleteWorkflow, a Conductor retention policy).
			const endedBefore = new Date(Date.now() - Number(arg ?? 60) * 60_000);
			let deleted = 0;
			for (;;) {
				const ids = await runs.deleteEnded({ agent: "pay-invoice", endedBefore });
				if (ids.length === 0) break;
				deleted += ids.length;
			}
			console.log(`deleted ${deleted} run(s); pruned the rows of ${await runs.pruneOrphans()} more`);
		} else if (command === "watch" && arg) {
			// A run id never started, or a run deleted (`clean`), ends the watch at once.
			const found = await printEvents(runs, arg).then(
				() => true,
				(error: unknown) => {
					if (error instanceof DbosRunNotFoundError) return false;
					throw error;
				},
			);
			if (found) {
				const result = await runs.result(arg);
				const reply = result.added.filter((message) => message.role === "assistant").at(-1);
				console.log(`${result.outcome.type}: ${JSON.stringify(reply?.content)}`);
			} else {
				console.error(`no run ${arg}`);
				process.exitCode = 1;
			}
		}
	} finally {
		await runs.close();
	}
}
