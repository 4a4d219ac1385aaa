// Run telemetry (SPEC X3): per-call records as they happen, and the run's summary and coverage on agent_end.
// Offline, on the scripted model. Run: npx tsx examples/telemetry.ts
import { Agent, type AgentTool } from "capstan";
import { scriptedModel } from "capstan/testing";

// OpenTelemetry spans (optional peer dependency @opentelemetry/api, plus an SDK of your choice):
// import { trace } from "@opentelemetry/api";
// import { openTelemetry } from "capstan/otel";

const tool = (name: string, fail = false): AgentTool => ({
	name,
	description: `${name} a file`,
	parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
	execute: async (_id, args: { path: string }) => {
		if (fail) throw new Error(`cannot ${name} ${args.path}`);
		return { content: [{ type: "text", text: `${name}: ${args.path} ok` }] };
	},
});
const usage = (input: number, output: number, total: number) => ({
	input,
	output,
	cost: { input: total / 2, output: total / 2, cacheRead: 0, cacheWrite: 0, total },
});

const scripted = scriptedModel([
	{
		content: [
			{ type: "toolCall", name: "read", arguments: { path: "README.md", i: "read the readme" } },
			{ type: "toolCall", name: "write", arguments: { path: "/etc/passwd", i: "edit a system file" } },
		],
		usage: usage(1200, 80, 0.004),
	},
	{ content: [{ type: "text", text: "The README is fine." }], usage: usage(1500, 20, 0.005) },
]);

const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	tools: [tool("read"), tool("write", true), tool("delete")],
	intentTracing: true, // the model states why it calls each tool (SPEC C5); telemetry records it
	telemetry: {
		onToolCall: (r) => console.log(`tool ${r.name}: ${r.status} in ${r.latencyMs} ms — "${r.intent}"`),
		onModelCall: (r) => console.log(`model ${r.model}: ${r.stopReason}, $${r.cost.toFixed(4)}`),
		// sinks: [openTelemetry(trace.getTracer("my-app"))],
		// recordContent: true, // also export prompts, completions, tool arguments and results
	},
});

agent.subscribe((event) => {
	if (event.type !== "agent_end" || !event.summary || !event.coverage) return;
	const { summary, coverage } = event;
	console.log(
		`run: ${summary.turns} turns, ${summary.modelCalls} model calls, ${summary.toolCalls} tool calls`,
		summary.toolCallsByStatus,
	);
	console.log(
		`tokens in/out ${summary.usage.input}/${summary.usage.output}, cost $${summary.cost.toFixed(4)}`,
	);
	console.log(`tools never used: ${coverage.toolsNeverUsed.join(", ")}`);
});

await agent.prompt("Check the README.");
