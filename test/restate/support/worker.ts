/**
 * A worker process of the Restate tests: serves the test agent on a loopback port, registers itself with the
 * Restate server through the admin API, then prints `READY <url>`. Run as
 * `node --import tsx test/restate/support/worker.ts '<WorkerConfig JSON>'`; the tests SIGKILL it.
 */
import { appendFileSync, existsSync } from "node:fs";
import * as restate from "@restatedev/restate-sdk";
import {
	type RestateObjectOptions,
	registerRestateDeployment,
	restateAgent,
	serveRestateAgents,
} from "../../../src/restate/index.js";
import { eventsFile, gateFile, testAgent, type WorkerConfig } from "./agent.js";

const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;

/**
 * With `holdMarkerOf` or `holdResultOf`, the SDK's own interceptors (`hooks`, passed through `objectOptions`)
 * hold back the result of one entry on the first attempt — the tool call's `<id>:started` marker, or the step
 * named — noting `held <entry>` in the count file: its action has run, but Restate gets the result only once
 * the handler has failed, just before the handler's failure goes out. Meanwhile the run waits for that entry
 * (with a marker, the tool's own entry has started and waits for it: `run <id> start`), so a cancel sent then
 * reaches the run as it would when the cancel overtakes the entry's answer on the wire; the entry's result is
 * still recorded, as it would be had the server taken it before the cancel.
 */
function holdResult(entry: string, waiting?: string): restate.HooksProvider {
	let heldOnce = false;
	return () => {
		let release = () => {};
		const released = new Promise<void>((resolve) => {
			release = resolve;
		});
		let entryReturned: Promise<void> | undefined;
		return {
			interceptor: {
				run: async (name, next) => {
					if (name === waiting) appendFileSync(config.countFile, `run ${waiting} start\n`);
					if (name !== entry || heldOnce) return next();
					heldOnce = true;
					entryReturned = next().then(async () => {
						appendFileSync(config.countFile, `held ${entry}\n`);
						await released;
					});
					return entryReturned;
				},
				handler: async (next) => {
					try {
						await next();
					} catch (error) {
						if (entryReturned) {
							release();
							await entryReturned;
							// The SDK proposes the entry's result right after its interceptor returns.
							await new Promise((resolve) => setImmediate(resolve));
						}
						throw error;
					}
				},
			},
		};
	};
}

/**
 * With `holdInboxByKey`, a conversation whose key is `hold-<handler>-…` holds the first call of that inbox
 * handler (`begin`, `boundary`, `end`), before it runs: it notes `held <key>` in the count file and waits
 * until the test opens the gate named by the key (`gateFile`). Meanwhile the run waits for that call.
 */
function holdInboxByKey(): restate.HooksProvider {
	const held = new Set<string>();
	return ({ request }) => ({
		interceptor: {
			handler: async (next) => {
				const key = request.target.key ?? "";
				if (key.startsWith(`hold-${request.target.handler}-`) && !held.has(key)) {
					held.add(key);
					appendFileSync(config.countFile, `held ${key}\n`);
					const gate = gateFile(config.countFile, key);
					// Bounded: a test that never opens the gate fails by its own timeout, not by a hung worker.
					for (let waited = 0; !existsSync(gate) && waited < 30_000; waited += 20)
						await new Promise((resolve) => setTimeout(resolve, 20));
				}
				await next();
			},
		},
	});
}

function conversationHooks(): restate.HooksProvider[] {
	if (config.holdMarkerOf) return [holdResult(`${config.holdMarkerOf}:started`, config.holdMarkerOf)];
	if (config.holdResultOf) return [holdResult(config.holdResultOf)];
	return [];
}

const objectOptions = {
	// A killed worker's invocation is retried quickly: the tests wait for it.
	retryPolicy: { initialInterval: 50, maxInterval: 500, exponentiationFactor: 2 },
	hooks: conversationHooks(),
	...config.timeouts,
} as RestateObjectOptions;
/** Each run's turn starts seen by `onEvent` (a `fail-terminal-…` conversation's run fails at its second). */
const turnStarts = new Map<string, number>();
const definition = restateAgent({
	name: config.name,
	agent: testAgent(config),
	// What the host sees live, one line per non-update event: `<key> <type>` (` error` on a failed tool).
	onEvent: (event, position, source) => {
		if (position.delta !== 0) return;
		// A conversation whose key is `fail-terminal-…`: the host fails its run for good (a TerminalError, never
		// retried) at its second turn's start, after the first boundary took the steering queued for it.
		if (source.key.startsWith("fail-terminal-") && event.type === "turn_start") {
			const turns = (turnStarts.get(source.invocationId) ?? 0) + 1;
			turnStarts.set(source.invocationId, turns);
			if (turns === 2) throw new restate.TerminalError("the host fails this run", { errorCode: 500 });
		}
		const failed = event.type === "tool_execution_end" && event.isError ? " error" : "";
		appendFileSync(eventsFile(config.countFile), `${source.key} ${event.type}${failed}\n`);
	},
	objectOptions,
});
if (config.holdInboxByKey) {
	// The inbox object is built inside restateAgent without options of its own: the test gives it its hook.
	const inbox = definition.services.find((service) => service.name === definition.inboxName);
	(inbox as { options?: restate.ObjectOptions }).options = { hooks: [holdInboxByKey()] };
}
const served = config.serve
	? {
			...definition,
			services: definition.services.filter(
				(service) => (service.name === definition.inboxName) === (config.serve === "inbox"),
			),
		}
	: definition;
const worker = await serveRestateAgents([served], { port: config.port });
await registerRestateDeployment({ adminUrl: config.adminUrl, uri: worker.url });
process.stdout.write(`READY ${worker.url}\n`);
