/**
 * capstan, driven through `Agent` with tools defined by `tool()` over a JSON Schema (validated by the
 * library's interpreted validator), and a stream function built the way capstan's own providers build theirs:
 * `runProviderStream` (the never-throw runner with its abort and retry handling) feeding an
 * `AssistantMessageBuilder` from the source's events.
 */
import { Agent, type AgentTool, type Model, type StreamFunction, tool } from "capstan";
import { runProviderStream } from "capstan/providers";
import type { FakeSource } from "../source.js";
import type { BenchTool } from "../tools.js";
import { type Conversation, type Driver, ZERO_COST } from "./types.js";

const model: Model = {
	id: "bench-1",
	api: "bench",
	provider: "bench",
	reasoning: false,
	input: ["text"],
	contextWindow: 1_000_000,
	maxTokens: 100_000,
	cost: ZERO_COST,
};

function streamFrom(source: FakeSource): StreamFunction {
	return (m, _context, options) =>
		runProviderStream(
			m,
			options,
			async (builder) => {
				let text = -1;
				const calls = new Map<string, number>();
				for await (const event of source.next()) {
					switch (event.type) {
						case "text-start":
							text = builder.startText();
							break;
						case "text-delta":
							builder.appendText(text, event.delta);
							break;
						case "text-end":
							builder.endText(text);
							break;
						case "tool-start":
							calls.set(event.id, builder.startToolCall(event.id, event.name));
							break;
						case "tool-delta":
							builder.appendToolCallArguments(calls.get(event.id)!, event.delta);
							break;
						case "tool-end":
							builder.endToolCall(calls.get(event.id)!);
							break;
						case "finish":
							builder.setUsage({ input: event.usage.input, output: event.usage.output });
							builder.done(event.reason === "tool-use" ? "toolUse" : "stop");
							break;
					}
				}
			},
			{ requireApiKey: false },
		);
}

function toCapstanTool(t: BenchTool): AgentTool {
	const properties: Record<string, { type: string }> = {};
	for (const [key, type] of Object.entries(t.fields)) properties[key] = { type };
	return tool({
		name: t.name,
		description: t.description,
		parameters: { type: "object", properties, required: Object.keys(t.fields), additionalProperties: false },
		execute: async (_id, args) => ({
			content: [{ type: "text", text: await t.run(args as Record<string, unknown>) }],
		}),
	});
}

/** Runs the conversation through `Agent.prompt`. */
export const runCapstan: Driver = async ({ source, tools, onTextDelta, onEvent }: Conversation) => {
	const agent = new Agent({ model, streamFn: streamFrom(source), tools: tools.map(toCapstanTool) });
	if (onTextDelta)
		agent.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") onTextDelta();
		});
	if (onEvent) agent.subscribe(onEvent);
	await agent.prompt("go");
	const last = agent.state.messages.at(-1);
	if (last?.role !== "assistant" || last.stopReason !== "stop")
		throw new Error(`capstan run did not end with a final reply: ${JSON.stringify(last).slice(0, 300)}`);
};
