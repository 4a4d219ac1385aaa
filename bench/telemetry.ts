/**
 * What SPEC X3 telemetry costs per turn: a W2-like run (1,000 turns, one trivial tool each, then a final
 * text) with telemetry off, with the collector on, with the collector plus the OTel sink on a no-op tracer
 * (capstan's own span work: non-recording spans, no attributes built), and with OpenTelemetry spans recorded
 * by the SDK into memory. Rounds rotate the variants so drift and GC hit them alike; medians are reported.
 *
 * End to end, the collector's cost is smaller than a loaded machine's run-to-run noise, so it is also
 * measured directly: one run's recorded events replayed into a fresh collector, timing only `observe`.
 */
import { trace } from "@opentelemetry/api";
import {
	BasicTracerProvider,
	InMemorySpanExporter,
	SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
	type AgentEvent,
	type AgentLoopConfig,
	type AgentTool,
	agentLoop,
	type TelemetryOptions,
	type UserMessage,
} from "../src/index.js";
import { openTelemetry } from "../src/otel.js";
import { createRunTelemetry } from "../src/telemetry/collector.js";
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

function w2Replies(turns: number): ScriptedReply[] {
	const replies: ScriptedReply[] = [];
	for (let i = 0; i < turns; i++)
		replies.push({ content: [{ type: "toolCall", name: "noop", arguments: {} }] });
	replies.push({ content: [{ type: "text", text: "done" }] });
	return replies;
}

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
	const replies = w2Replies(turns);
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

/**
 * The collector alone: a W2-like run's events (recorded once) replayed into a fresh collector, alone and
 * with the OTel sink on a no-op tracer; µs per turn of `observe` and `report`, free of the loop's noise.
 */
export async function collectorDirectCost(turns = 1000, rounds = 31) {
	const scripted = scriptedModel(w2Replies(turns), { now: () => 0, record: false });
	const context = { messages: [], tools: [noop] };
	const events: AgentEvent[] = [];
	for await (const event of agentLoop([user], context, { model: scripted.model, streamFn: scripted.stream }))
		events.push(event);
	const noopTracer = trace.getTracer("bench-noop");
	const replay = (options: TelemetryOptions): number => {
		const start = performance.now();
		const telemetry = createRunTelemetry(options, { model: scripted.model, context, now: Date.now });
		for (const event of events) {
			if (event.type === "agent_end") telemetry.report();
			telemetry.observe(event);
		}
		return performance.now() - start;
	};
	const collector: number[] = [];
	const withSink: number[] = [];
	for (let round = -5; round < rounds; round++) {
		const a = replay({});
		const b = replay({ sinks: [openTelemetry(noopTracer)] });
		if (round >= 0) {
			collector.push(a);
			withSink.push(b);
		}
	}
	return {
		collectorUsPerTurn: (median(collector) * 1000) / turns,
		withNoopSinkUsPerTurn: (median(withSink) * 1000) / turns,
	};
}
