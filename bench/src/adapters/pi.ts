/**
 * pi-agent-core, driven through its `Agent` with TypeBox tool schemas (validated by pi-ai's
 * `validateToolArguments`, its normal path), and a stream function that fills pi-ai's
 * `AssistantMessageEventStream` the way pi-ai's own providers do: one mutable output message, text appended
 * in place, each tool call's partial JSON re-parsed with `parseStreamingJson` on every delta.
 */
import { Agent, type AgentTool, type StreamFn } from "@mariozechner/pi-agent-core";
import {
	type AssistantMessage,
	createAssistantMessageEventStream,
	type Model,
	parseStreamingJson,
	type TextContent,
	type ToolCall,
	Type,
} from "@mariozechner/pi-ai";
import type { FakeSource } from "../source.js";
import type { BenchTool } from "../tools.js";
import { type Conversation, type Driver, ZERO_COST } from "./types.js";

const model: Model<"bench"> = {
	id: "bench-1",
	name: "bench",
	api: "bench",
	provider: "bench",
	baseUrl: "http://127.0.0.1:0",
	reasoning: false,
	input: ["text"],
	cost: ZERO_COST,
	contextWindow: 1_000_000,
	maxTokens: 100_000,
};

type StreamingToolCall = ToolCall & { partialJson?: string };

function streamFrom(source: FakeSource): StreamFn {
	return (m) => {
		const stream = createAssistantMessageEventStream();
		const output: AssistantMessage = {
			role: "assistant",
			content: [],
			api: m.api,
			provider: m.provider,
			model: m.id,
			usage: {
				input: 0,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 0,
				cost: { ...ZERO_COST, total: 0 },
			},
			stopReason: "stop",
			timestamp: Date.now(),
		};
		void (async () => {
			try {
				stream.push({ type: "start", partial: output });
				const calls = new Map<string, number>();
				let text = -1;
				for await (const event of source.next()) {
					if (event.type === "text-start") {
						output.content.push({ type: "text", text: "" });
						text = output.content.length - 1;
						stream.push({ type: "text_start", contentIndex: text, partial: output });
					} else if (event.type === "text-delta") {
						(output.content[text] as TextContent).text += event.delta;
						stream.push({ type: "text_delta", contentIndex: text, delta: event.delta, partial: output });
					} else if (event.type === "text-end") {
						const content = (output.content[text] as TextContent).text;
						stream.push({ type: "text_end", contentIndex: text, content, partial: output });
					} else if (event.type === "tool-start") {
						const block: StreamingToolCall = {
							type: "toolCall",
							id: event.id,
							name: event.name,
							arguments: {},
							partialJson: "",
						};
						output.content.push(block);
						calls.set(event.id, output.content.length - 1);
						stream.push({ type: "toolcall_start", contentIndex: output.content.length - 1, partial: output });
					} else if (event.type === "tool-delta") {
						const index = calls.get(event.id)!;
						const block = output.content[index] as StreamingToolCall;
						block.partialJson += event.delta;
						block.arguments = parseStreamingJson(block.partialJson);
						stream.push({ type: "toolcall_delta", contentIndex: index, delta: event.delta, partial: output });
					} else if (event.type === "tool-end") {
						const index = calls.get(event.id)!;
						const block = output.content[index] as StreamingToolCall;
						block.arguments = parseStreamingJson(block.partialJson);
						delete block.partialJson;
						stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: output });
					} else if (event.type === "finish") {
						output.usage.input = event.usage.input;
						output.usage.output = event.usage.output;
						output.usage.totalTokens = event.usage.input + event.usage.output;
						output.stopReason = event.reason === "tool-use" ? "toolUse" : "stop";
					}
				}
				stream.push({ type: "done", reason: output.stopReason as "stop" | "toolUse", message: output });
				stream.end();
			} catch (error) {
				output.stopReason = "error";
				output.errorMessage = error instanceof Error ? error.message : String(error);
				stream.push({ type: "error", reason: "error", error: output });
				stream.end();
			}
		})();
		return stream;
	};
}

function toPiTool(t: BenchTool): AgentTool {
	const properties: Record<string, ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>> = {};
	for (const [key, type] of Object.entries(t.fields))
		properties[key] = type === "string" ? Type.String() : Type.Number();
	return {
		name: t.name,
		label: t.name,
		description: t.description,
		parameters: Type.Object(properties),
		execute: async (_id, params) => ({
			content: [{ type: "text", text: await t.run(params as Record<string, unknown>) }],
			details: undefined,
		}),
	};
}

/** Runs the conversation through pi's `Agent.prompt`. */
export const runPi: Driver = async ({ source, tools, onTextDelta }: Conversation) => {
	const agent = new Agent({
		initialState: { model: model as Model<never>, tools: tools.map(toPiTool) },
		streamFn: streamFrom(source),
	});
	if (onTextDelta)
		agent.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") onTextDelta();
		});
	await agent.prompt("go");
	const last = agent.state.messages.at(-1);
	if (last?.role !== "assistant" || last.stopReason !== "stop")
		throw new Error(`pi run did not end with a final reply: ${JSON.stringify(last).slice(0, 300)}`);
};
