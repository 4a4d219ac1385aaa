/** Shared inputs of the request tests. */
import type { AssistantMessage, Message } from "../../../src/core/messages.js";
import { emptyUsage } from "../../../src/core/messages.js";
import type { Context } from "../../../src/core/model.js";
import { testModel } from "./helpers.js";

export const model = testModel("https://api.openai.com/v1");
export const tools = [
	{
		name: "read",
		description: "Read a file",
		parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
	},
];

export function assistant(
	content: AssistantMessage["content"],
	from: Partial<AssistantMessage> = {},
): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: emptyUsage(),
		stopReason: "toolUse",
		timestamp: 2,
		...from,
	};
}

export const conversation: Message[] = [
	{
		role: "user",
		content: [
			{ type: "text", text: "Look at this" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
		],
		timestamp: 1,
	},
	assistant([
		{ type: "thinking", thinking: "Need the file.", signature: "sig-abc" },
		{ type: "text", text: "Reading it." },
		{ type: "providerBlock", api: "openai-responses", data: { type: "reasoning", encrypted_content: "zzz" } },
		{ type: "toolCall", id: "call_1|fc_abc", name: "read", arguments: { path: "a.txt" } },
	]),
	{
		role: "toolResult",
		toolCallId: "call_1|fc_abc",
		toolName: "read",
		content: [
			{ type: "text", text: "contents" },
			{ type: "image", data: "R0lGOD==", mimeType: "image/gif" },
		],
		isError: false,
		timestamp: 3,
	},
	{ role: "user", content: "Thanks", timestamp: 4 },
];

export const context: Context = { systemPrompt: "Be brief.", messages: conversation, tools };
