/**
 * Building blocks of the transcripts request tests replay: an earlier assistant reply as the given model
 * produced it, the file-reading tool most conversations use, and the smallest contexts.
 */
import type { AssistantMessage } from "../../../src/core/messages.js";
import { emptyUsage } from "../../../src/core/messages.js";
import type { Context, Model, ToolSpec } from "../../../src/core/model.js";
import type { AgentTool } from "../../../src/tools/types.js";

/** A factory of earlier replies from `model` (a tool-use turn at timestamp 2 unless `from` says otherwise). */
export function repliesOf(
	model: Model,
): (content: AssistantMessage["content"], from?: Partial<AssistantMessage>) => AssistantMessage {
	return (content, from = {}) => ({
		role: "assistant",
		content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: emptyUsage(),
		stopReason: "toolUse",
		timestamp: 2,
		...from,
	});
}

/** A tool that reads the file at `path`, named `name`. */
export function readFileTool(name: string): ToolSpec {
	return {
		name,
		description: "Read a file",
		parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
	};
}

/** A one-message context with a system prompt. */
export const HELLO: Context = {
	systemPrompt: "You are terse.",
	messages: [{ role: "user", content: "Hello", timestamp: 1 }],
};

/** A one-user-message context, nothing else. */
export const HI: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

/**
 * `add`/`multiply`-style tools for the agent-loop suites: the recorded multi-tool conversations call them
 * with `{a, b}` numbers.
 */
export function arithmeticTool(
	name: string,
	fn: (a: number, b: number) => number,
): AgentTool<{ a: number; b: number }> {
	return {
		name,
		description: name,
		parameters: {
			type: "object",
			properties: { a: { type: "number" }, b: { type: "number" } },
			required: ["a", "b"],
		},
		execute: async (_id, { a, b }) => ({ content: [{ type: "text", text: String(fn(a, b)) }] }),
	};
}
