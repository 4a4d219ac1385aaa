/**
 * What SPEC X3 telemetry costs per turn: a W2-like run (1,000 turns, one trivial tool each, then a final
 * text) with telemetry off, with the collector on, and with the collector plus OpenTelemetry spans recorded
 * by the SDK into memory. Rounds alternate the variants so drift and GC hit them alike; medians are reported.
 */
import {
	BasicTracerProvider,
	InMemorySpanExporter,
	SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
	type AgentLoopConfig,
	type AgentTool,
	agentLoop,
	type TelemetryOptions,
	type UserMessage,
} from "../src/index.js";
import { openTelemetry } from "../src/otel.js";
import { type ScriptedReply, scriptedModel } from "../src/testing/index.js";
import { median } from "./core.js";

const user: UserMessage = { role: "user", content: "go", timestamp: 0 };

const noop: AgentTool = {
	name: "noop",
	description: "does nothing",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
};

async function runTurns(replies: ScriptedReply[], telemetry: TelemetryOptions | undefined): Promise<number> {
	const scripted = scriptedModel(replies, { now: () => 0, record: false });
	const config: AgentLoopConfig = {
		model: scripted.model,
		streamFn: scripted.stream,
		...(telemetry ? { telemetry } : {}),
	};
	const start = performance.now();
	for await (const _event of agentLoop([user], { messages: [], tools: [noop] }, config)) {
		// drain
	}
	return performance.now() - start;
}

/** µs per turn with telemetry off, with the collector, and with collector + OTel spans; and the differences. */
export async function telemetryCost(turns = 1000, rounds = 15) {
	const replies: ScriptedReply[] = [];
	for (let i = 0; i < turns; i++)
		replies.push({ content: [{ type: "toolCall", name: "noop", arguments: {} }] });
	replies.push({ content: [{ type: "text", text: "done" }] });

	const exporter = new InMemorySpanExporter();
	const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
		"bench",
	);
	const variants: Record<"off" | "collector" | "otel", () => TelemetryOptions | undefined> = {
		off: () => undefined,
		collector: () => ({}),
		otel: () => ({ sinks: [openTelemetry(tracer)] }),
	};
	const samples = { off: [] as number[], collector: [] as number[], otel: [] as number[] };
	for (let round = -2; round < rounds; round++) {
		const order = ["off", "collector", "otel"] as const;
		// Rotate who goes first each round, so no variant always runs right after the allocation-heavy one.
		for (let k = 0; k < order.length; k++) {
			const name = order[(k + round + 3) % order.length] ?? "off";
			const ms = await runTurns(replies, variants[name]());
			exporter.reset();
			if (round >= 0) samples[name].push(ms); // the first two rounds are JIT warm-up
		}
	}
	const usPerTurn = (ms: number) => (ms * 1000) / turns;
	// Paired per round (same round, same machine state), then the median: drift cancels out of the difference.
	const pairedCost = (name: "collector" | "otel") =>
		usPerTurn(median(samples[name].map((ms, i) => ms - (samples.off[i] ?? Number.NaN))));
	return {
		off: usPerTurn(median(samples.off)),
		collector: usPerTurn(median(samples.collector)),
		otel: usPerTurn(median(samples.otel)),
		collectorCost: pairedCost("collector"),
		otelCost: pairedCost("otel"),
	};
}
