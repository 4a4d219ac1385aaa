/**
 * A durable agent on Restate, a crash and a takeover. A scripted model (no API key) and a slow tool, so there
 * is time to kill the worker mid-run; the run finishes on the next worker without repeating a finished step.
 *
 *   eval "$(scripts/services/restate.sh start)"          # a local restate-server (from its npm package)
 *   npx tsx examples/restate.ts worker &                 # serve on :9080 and register with the server
 *   npx tsx examples/restate.ts start demo "Pack the order"
 *   kill -9 %1; npx tsx examples/restate.ts worker &     # kill it mid-run, start another one
 *   npx tsx examples/restate.ts result <invocation id>   # the run finishes on the new worker
 *
 * Server addresses: RESTATE_INGRESS_URL and RESTATE_ADMIN_URL (default: what restate.sh exported).
 */
import type { AgentTool } from "capstan";
import {
	RestateAgentClient,
	registerRestateDeployment,
	restateAgent,
	serveRestateAgents,
} from "capstan/restate";
import { scriptedModel, textReply, toolReply } from "capstan/testing";

const ingressUrl =
	process.env.RESTATE_INGRESS_URL ?? process.env.CAPSTAN_TEST_RESTATE_URL ?? "http://127.0.0.1:8080";
const adminUrl =
	process.env.RESTATE_ADMIN_URL ?? process.env.CAPSTAN_TEST_RESTATE_ADMIN_URL ?? "http://127.0.0.1:9070";

// Chosen from the context, not a call counter: a new worker process replays the run without calling the model.
const scripted = scriptedModel((call) => {
	const turns = call.context.messages.filter((message) => message.role === "assistant").length;
	if (turns < 3) return toolReply("pack_box", { box: turns + 1 }, { id: `pack_${turns + 1}` });
	return textReply("Three boxes packed.");
});

const packBox: AgentTool<{ box: number }> = {
	name: "pack_box",
	description: "Pack one box (takes a few seconds).",
	parameters: { type: "object", properties: { box: { type: "number" } }, required: ["box"] },
	idempotent: true, // packing a box twice is harmless: after a crash it simply runs again
	async execute(_id, { box }) {
		console.log(`packing box ${box}…`);
		await new Promise((resolve) => setTimeout(resolve, 3000));
		console.log(`box ${box} packed`);
		return { content: [{ type: "text", text: `box ${box} packed` }] };
	},
};

const orders = restateAgent({
	name: "orders",
	agent: { model: scripted.model, streamFn: scripted.stream, tools: [packBox] },
});
const client = new RestateAgentClient({ ingressUrl, name: "orders" });

const [command, ...args] = process.argv.slice(2);
if (command === "worker") {
	const worker = await serveRestateAgents([orders], { port: Number(process.env.PORT ?? 9080) });
	await registerRestateDeployment({ adminUrl, uri: worker.url });
	console.log(`worker ready at ${worker.url}`);
} else if (command === "start") {
	const run = await client.start(args[0] ?? "demo", { prompt: args[1] ?? "Pack the order" });
	console.log(run.invocationId);
} else if (command === "result") {
	const result = await client.result({ invocationId: args[0] ?? "" });
	console.log(result.outcome, `${result.added.length} messages added`);
} else if (command === "transcript") {
	console.log(JSON.stringify(await client.transcript(args[0] ?? "demo"), null, 2));
} else {
	console.log("usage: examples/restate.ts worker | start <key> <prompt> | result <id> | transcript <key>");
}
