import {
	type AgentContext,
	type AgentLoopConfig,
	type AgentMessage,
	type AgentTool,
	type AssistantMessage,
	agentLoop,
	agentLoopContinue,
	emptyUsage,
	type UserMessage,
} from "../../src/index.js";
import { type ScriptedReply, scriptedModel } from "../../src/testing/index.js";
import { collect } from "./trace.js";

/** An assistant message as a transcript would hold it (fixed timestamp, zero usage). */
export function assistant(
	content: AssistantMessage["content"],
	stopReason: AssistantMessage["stopReason"] = "stop",
): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: "x",
		provider: "x",
		model: "x",
		usage: emptyUsage(),
		stopReason,
		timestamp: 0,
	};
}

/** A user message with a fixed timestamp (deterministic transcripts). */
export function user(text: string): UserMessage {
	return { role: "user", content: text, timestamp: 0 };
}

/** A tool that echoes its `text` argument after `ms` milliseconds (setTimeout, fake-timer friendly). */
export function echoTool(
	name = "echo",
	options: Partial<AgentTool> & { ms?: number; log?: string[] } = {},
): AgentTool {
	const { ms = 0, log, ...rest } = options;
	return {
		name,
		description: `echo (${name})`,
		parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		async execute(_id, args: { text: string }, signal) {
			log?.push(`start:${name}:${args.text}`);
			if (ms > 0) {
				await new Promise<void>((resolve, reject) => {
					const timer = setTimeout(resolve, ms);
					signal.addEventListener("abort", () => {
						clearTimeout(timer);
						reject(new Error("tool aborted"));
					});
				});
			}
			log?.push(`end:${name}:${args.text}`);
			return { content: [{ type: "text", text: `${name}:${args.text}` }] };
		},
		...rest,
	};
}

/** Options of `runScript`. */
export interface RunOptions {
	tools?: AgentTool[];
	config?: Partial<AgentLoopConfig>;
	prompts?: AgentMessage[];
	messages?: AgentMessage[];
	signal?: AbortSignal;
	continue?: boolean;
	systemPrompt?: string;
}

/** Run the real loop on the scripted model; returns the model, the stream, and a promise of all events. */
export function startScript(
	script: ScriptedReply[] | Parameters<typeof scriptedModel>[0],
	options: RunOptions = {},
) {
	const scripted = scriptedModel(script as ScriptedReply[], { now: () => 0 });
	const context: AgentContext = { messages: options.messages ?? [], tools: options.tools ?? [] };
	if (options.systemPrompt !== undefined) context.systemPrompt = options.systemPrompt;
	const config: AgentLoopConfig = {
		model: scripted.model,
		streamFn: scripted.stream,
		now: () => 0,
		...options.config,
	};
	const stream = options.continue
		? agentLoopContinue(context, config, options.signal)
		: agentLoop(options.prompts ?? [user("hi")], context, config, options.signal);
	return { scripted, stream, context, done: collect(stream) };
}

/** Run a script to the end. */
export async function runScript(script: Parameters<typeof startScript>[0], options: RunOptions = {}) {
	const { scripted, done, context } = startScript(script, options);
	const { events, result } = await done;
	return { scripted, events, messages: result, context };
}
