/** Shared inputs of the request tests. */
import type { Message } from "../../../src/core/messages.js";
import type { Context, ToolSpec } from "../../../src/core/model.js";
import { readFileTool, repliesOf } from "../support/transcript.js";
import { testModel } from "./helpers.js";

/** The model requests are built for (never contacted). */
export const model = testModel("https://api.openai.com/v1");
/** A file reader. */
export const tools: ToolSpec[] = [readFileTool("read")];

/** An earlier reply of `model`. */
export const assistant = repliesOf(model);

/** A user turn with an image, a tool-use reply, its result with an image, and a thank-you. */
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

/** `conversation` with a system prompt and `tools`. */
export const context: Context = { systemPrompt: "Be brief.", messages: conversation, tools };
