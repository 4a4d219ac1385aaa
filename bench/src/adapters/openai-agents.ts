/**
 * The OpenAI Agents SDK (agents-core), driven through `Runner.run(agent, input, { stream: true })` with
 * tracing off and zod tool schemas, over a fake `Model` whose `getStreamedResponse` yields what the SDK's own
 * streaming models yield: `response_started`, an `output_text_delta` per text delta, each raw chunk as a
 * `model` event, and `response_done` carrying the output items (argument text accumulated as it streams).
 */
import {
	Agent,
	type Model,
	type ModelResponse,
	Runner,
	type StreamEvent,
	type StreamEventResponseCompleted,
	tool,
} from "@openai/agents-core";
import { z } from "zod";
import type { FakeSource } from "../source.js";
import type { BenchTool } from "../tools.js";
import type { Conversation, Driver } from "./types.js";

async function* streamedResponse(source: FakeSource, turn: number): AsyncIterable<StreamEvent> {
	yield { type: "response_started" };
	let text: string | undefined;
	const calls = new Map<string, { name: string; args: string }>();
	let usage = { input: 0, output: 0 };
	for await (const event of source.next()) {
		yield { type: "model", event };
		if (event.type === "text-start") text = "";
		else if (event.type === "text-delta") {
			text += event.delta;
			yield { type: "output_text_delta", delta: event.delta };
		} else if (event.type === "tool-start") calls.set(event.id, { name: event.name, args: "" });
		else if (event.type === "tool-delta") calls.get(event.id)!.args += event.delta;
		else if (event.type === "finish") usage = event.usage;
	}
	const output: StreamEventResponseCompleted["response"]["output"] = [];
	if (text !== undefined)
		output.push({
			type: "message",
			id: `msg_${turn}`,
			role: "assistant",
			status: "completed",
			content: [{ type: "output_text", text }],
		});
	for (const [callId, call] of calls)
		output.push({
			type: "function_call",
			id: `fc_${callId}`,
			callId,
			name: call.name,
			arguments: call.args,
			status: "completed",
		});
	yield {
		type: "response_done",
		response: {
			id: `resp_${turn}`,
			usage: {
				requests: 1,
				inputTokens: usage.input,
				outputTokens: usage.output,
				totalTokens: usage.input + usage.output,
			},
			output,
		},
	};
}

function modelFrom(source: FakeSource): Model {
	let turn = 0;
	return {
		getResponse: (): Promise<ModelResponse> => Promise.reject(new Error("the bench streams only")),
		getStreamedResponse: () => streamedResponse(source, turn++),
	};
}

function toAgentsTools(tools: readonly BenchTool[]) {
	return tools.map((t) => {
		const shape: Record<string, z.ZodString | z.ZodNumber> = {};
		for (const [key, type] of Object.entries(t.fields))
			shape[key] = type === "string" ? z.string() : z.number();
		return tool({
			name: t.name,
			description: t.description,
			parameters: z.object(shape),
			execute: (args: Record<string, unknown>) => t.run(args),
		});
	});
}

/** Runs the conversation by draining the streamed run result. */
export const runOpenAiAgents: Driver = async ({ source, tools, maxTurns, onTextDelta }: Conversation) => {
	const agent = new Agent({
		name: "bench",
		instructions: "",
		model: modelFrom(source),
		tools: toAgentsTools(tools),
	});
	const runner = new Runner({ tracingDisabled: true });
	const result = await runner.run(agent, "go", { stream: true, maxTurns });
	for await (const event of result) {
		if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta") onTextDelta?.();
	}
	await result.completed;
	if (result.error) throw result.error;
	if (typeof result.finalOutput !== "string")
		throw new Error("OpenAI Agents run did not end with a final reply");
};
