/**
 * What SPEC X3 telemetry costs per turn: a W2-like run (1,000 turns, one trivial tool each, then a final
 * text) with telemetry off, with the collector on, with the collector plus the OTel sink on a no-op tracer
 * (capstan's own span work: non-recording spans, no attributes built), and with OpenTelemetry spans recorded
 * by the SDK into memory. Rounds rotate the variants so drift and GC hit them alike; medians are reported.
 */
import { trace } from "@opentelemetry/api";
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

type Variant = "off" | "collector" | "otelNoop" | "otel";

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

/** µs per turn with telemetry off, and what the collector, the OTel sink and the OTel SDK add to it. */
export async function telemetryCost(turns = 1000, rounds = 15) {
	const replies: ScriptedReply[] = [];
	for (let i = 0; i < turns; i++)
		replies.push({ content: [{ type: "toolCall", name: "noop", arguments: {} }] });
	replies.push({ content: [{ type: "text", text: "done" }] });

	const exporter = new InMemorySpanExporter();
	const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
		"bench",
	);
	const noopTracer = trace.getTracer("bench-noop"); // no provider registered: non-recording spans
	const variants: Record<Variant, () => TelemetryOptions | undefined> = {
		off: () => undefined,
		collector: () => ({}),
		otelNoop: () => ({ sinks: [openTelemetry(noopTracer)] }),
		otel: () => ({ sinks: [openTelemetry(tracer)] }),
	};
	const samples: Record<Variant, number[]> = { off: [], collector: [], otelNoop: [], otel: [] };
	for (let round = -2; round < rounds; round++) {
		const order = ["off", "collector", "otelNoop", "otel"] as const;
		// Rotate who goes first each round, so no variant always runs right after the allocation-heavy one.
		for (let k = 0; k < order.length; k++) {
			const name = order[(k + round + order.length) % order.length] ?? "off";
			const ms = await runTurns(replies, variants[name]());
			exporter.reset();
			if (round >= 0) samples[name].push(ms); // the first two rounds are JIT warm-up
		}
	}
	const usPerTurn = (ms: number) => (ms * 1000) / turns;
	// Paired per round (same round, same machine state), then the median: drift cancels out of the difference.
	const pairedCost = (name: Exclude<Variant, "off">) =>
		usPerTurn(median(samples[name].map((ms, i) => ms - (samples.off[i] ?? Number.NaN))));
	return {
		off: usPerTurn(median(samples.off)),
		collector: usPerTurn(median(samples.collector)),
		otel: usPerTurn(median(samples.otel)),
		collectorCost: pairedCost("collector"),
		otelNoopCost: pairedCost("otelNoop"),
		otelCost: pairedCost("otel"),
	};
}
