/**
 * The Vercel AI SDK (v6), driven through `streamText(...).fullStream` with zod tool schemas and a stop
 * condition allowing the conversation's turns, over a `LanguageModelV3` whose `doStream` returns a
 * `ReadableStream` of stream parts pulled from the source, as the SDK's own providers return theirs.
 */
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { stepCountIs, streamText, type ToolSet, tool } from "ai";
import { z } from "zod";
import type { FakeSource, NeutralEvent } from "../source.js";
import type { BenchTool } from "../tools.js";
import type { Conversation, Driver } from "./types.js";

/** Calls of the reply being streamed: name and arguments text, by call id. */
type OpenCalls = Map<string, { name: string; input: string }>;

function partsOf(event: NeutralEvent, calls: OpenCalls): LanguageModelV3StreamPart[] {
	switch (event.type) {
		case "text-start":
			return [{ type: "text-start", id: "t" }];
		case "text-delta":
			return [{ type: "text-delta", id: "t", delta: event.delta }];
		case "text-end":
			return [{ type: "text-end", id: "t" }];
		case "tool-start":
			calls.set(event.id, { name: event.name, input: "" });
			return [{ type: "tool-input-start", id: event.id, toolName: event.name }];
		case "tool-delta":
			// Providers keep the arguments text to send the complete `tool-call` when the input ends.
			calls.get(event.id)!.input += event.delta;
			return [{ type: "tool-input-delta", id: event.id, delta: event.delta }];
		case "tool-end": {
			// As the SDK's Anthropic provider does at `content_block_stop`: the call, complete, right away.
			const call = calls.get(event.id)!;
			return [
				{ type: "tool-input-end", id: event.id },
				{ type: "tool-call", toolCallId: event.id, toolName: call.name, input: call.input },
			];
		}
		case "finish":
			return [
				{
					type: "finish",
					finishReason: { unified: event.reason === "tool-use" ? "tool-calls" : "stop", raw: event.reason },
					usage: {
						inputTokens: {
							total: event.usage.input,
							noCache: event.usage.input,
							cacheRead: 0,
							cacheWrite: 0,
						},
						outputTokens: { total: event.usage.output, text: event.usage.output, reasoning: 0 },
					},
				},
			];
	}
}

function modelFrom(source: FakeSource): LanguageModelV3 {
	return {
		specificationVersion: "v3",
		provider: "bench",
		modelId: "bench-1",
		supportedUrls: {},
		doGenerate: () => Promise.reject(new Error("the bench streams only")),
		doStream: async () => {
			const events = source.next();
			const calls: OpenCalls = new Map();
			const stream = new ReadableStream<LanguageModelV3StreamPart>({
				start(controller) {
					controller.enqueue({ type: "stream-start", warnings: [] });
				},
				async pull(controller) {
					const next = await events.next();
					if (next.done) return controller.close();
					for (const part of partsOf(next.value, calls)) controller.enqueue(part);
				},
			});
			return { stream };
		},
	};
}

function toAiTools(tools: readonly BenchTool[]): ToolSet {
	const set: ToolSet = {};
	for (const t of tools) {
		const shape: Record<string, z.ZodString | z.ZodNumber> = {};
		for (const [key, type] of Object.entries(t.fields))
			shape[key] = type === "string" ? z.string() : z.number();
		set[t.name] = tool({
			description: t.description,
			inputSchema: z.object(shape),
			execute: (args: Record<string, unknown>) => t.run(args),
		});
	}
	return set;
}

/** Runs the conversation by draining `streamText(...).fullStream`. */
export const runAiSdk: Driver = async ({ source, tools, maxTurns, onTextDelta }: Conversation) => {
	const result = streamText({
		model: modelFrom(source),
		tools: toAiTools(tools),
		prompt: "go",
		stopWhen: stepCountIs(maxTurns),
	});
	for await (const part of result.fullStream) {
		if (part.type === "text-delta") onTextDelta?.();
		else if (part.type === "error" || part.type === "tool-error")
			throw new Error(`AI SDK run failed: ${String("error" in part ? part.error : part)}`);
	}
	if ((await result.finishReason) !== "stop") throw new Error("AI SDK run did not end with a final reply");
};
