/**
 * capstan context → the AI SDK call options a real mock model receives (`doStreamCalls`), and a whole Agent
 * run (a tool turn, then text) over an AI SDK model.
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { aiSdkModel } from "../../src/ai-sdk/index.js";
import type { AssistantMessage, Message } from "../../src/core/messages.js";
import { emptyUsage } from "../../src/core/messages.js";
import type { Context } from "../../src/core/model.js";
import { Agent } from "../../src/index.js";
import { tool } from "../../src/tools/tool.js";
import { collectStream } from "../providers/support/collect.js";
import { finishV3, mockV2, mockV3, usageV3 } from "./support.js";

const PNG = "iVBORw0KGgo=";

function reply(provider: string, content: AssistantMessage["content"]): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: "ai-sdk",
		provider,
		model: "m",
		usage: emptyUsage(),
		stopReason: "toolUse",
		timestamp: 2,
	};
}

function conversation(provider: string): Context {
	const messages: Message[] = [
		{
			role: "user",
			content: [
				{ type: "text", text: "What is in it?" },
				{ type: "image", data: PNG, mimeType: "image/png" },
			],
			timestamp: 1,
		},
		reply(provider, [
			{ type: "thinking", thinking: "Look first.", signature: '{"mock":{"signature":"sig"}}' },
			{ type: "text", text: "Reading.", signature: '{"mock":{"itemId":"msg_1"}}' },
			{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.png" } },
			{ type: "toolCall", id: "c2", name: "stat", arguments: {} },
			{ type: "redactedThinking", data: "opaque" },
			{ type: "providerBlock", api: "ai-sdk", data: { type: "file", mediaType: "image/png", data: PNG } },
		]),
		{
			role: "toolResult",
			toolCallId: "c1",
			toolName: "read",
			content: [
				{ type: "text", text: "an image:" },
				{ type: "image", data: PNG, mimeType: "image/png" },
			],
			isError: false,
			timestamp: 3,
		},
		{
			role: "toolResult",
			toolCallId: "c2",
			toolName: "stat",
			content: [{ type: "text", text: "ENOENT" }],
			isError: true,
			timestamp: 4,
		},
	];
	return {
		systemPrompt: "Be brief.",
		messages,
		tools: [
			{
				name: "read",
				description: "Read a file",
				parameters: { type: "object", properties: { path: { type: "string" } } },
			},
		],
	};
}

describe("context conversion", () => {
	it("V3: every message and content type, opaque data replayed to its own provider (SPEC M3)", async () => {
		const lm = mockV3([finishV3("stop")]);
		const { model, streamFn } = aiSdkModel(lm);
		await collectStream(
			streamFn(model, conversation("mock.v3"), {
				temperature: 0.2,
				maxTokens: 300,
				toolChoice: { type: "tool", name: "read" },
			}),
		);
		const call = lm.doStreamCalls[0];
		expect(call?.prompt).toEqual([
			{ role: "system", content: "Be brief." },
			{
				role: "user",
				content: [
					{ type: "text", text: "What is in it?" },
					{ type: "file", data: PNG, mediaType: "image/png" },
				],
			},
			{
				role: "assistant",
				content: [
					{ type: "reasoning", text: "Look first.", providerOptions: { mock: { signature: "sig" } } },
					{ type: "text", text: "Reading.", providerOptions: { mock: { itemId: "msg_1" } } },
					{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.png" } },
					{ type: "tool-call", toolCallId: "c2", toolName: "stat", input: {} },
					{ type: "file", mediaType: "image/png", data: PNG },
				],
			},
			{
				role: "tool",
				content: [
					{
						type: "tool-result",
						toolCallId: "c1",
						toolName: "read",
						output: {
							type: "content",
							value: [
								{ type: "text", text: "an image:" },
								{ type: "image-data", data: PNG, mediaType: "image/png" },
							],
						},
					},
					{
						type: "tool-result",
						toolCallId: "c2",
						toolName: "stat",
						output: { type: "error-text", value: "ENOENT" },
					},
				],
			},
		]);
		expect(call?.tools).toEqual([
			{
				type: "function",
				name: "read",
				description: "Read a file",
				inputSchema: { type: "object", properties: { path: { type: "string" } } },
			},
		]);
		expect(call?.toolChoice).toEqual({ type: "tool", toolName: "read" });
		expect(call).toMatchObject({ temperature: 0.2, maxOutputTokens: 300 });
		expect(call?.abortSignal).toBeInstanceOf(AbortSignal);
	});

	it("another provider's signatures and provider blocks are not replayed; its reasoning stays as text", async () => {
		const lm = mockV3([finishV3("stop")]);
		const { model, streamFn } = aiSdkModel(lm);
		await collectStream(streamFn(model, conversation("someone.else")));
		const assistant = lm.doStreamCalls[0]?.prompt[2];
		expect(assistant).toEqual({
			role: "assistant",
			content: [
				{ type: "reasoning", text: "Look first." },
				{ type: "text", text: "Reading." },
				{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.png" } },
				{ type: "tool-call", toolCallId: "c2", toolName: "stat", input: {} },
			],
		});
	});

	it("V2: a tool-result image is a `media` part", async () => {
		const lm = mockV2([
			{ type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
		]);
		const { model, streamFn } = aiSdkModel(lm);
		await collectStream(streamFn(model, conversation("mock.v2")));
		const tool = lm.doStreamCalls[0]?.prompt[3];
		expect(tool?.role).toBe("tool");
		const results = tool?.role === "tool" ? tool.content : [];
		expect(results[0]).toMatchObject({
			output: {
				type: "content",
				value: [{ type: "text" }, { type: "media", data: PNG, mediaType: "image/png" }],
			},
		});
		expect(results[1]).toMatchObject({ output: { type: "error-text", value: "ENOENT" } });
	});

	it("thinking levels map to provider options through the host's function (SPEC X5), merged per provider", async () => {
		const lm = mockV3([finishV3("stop")], [finishV3("stop")]);
		const { model, streamFn } = aiSdkModel(lm, {
			providerOptions: { anthropic: { sendReasoning: true } },
			thinking: (level) =>
				level === "off" ? undefined : { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } },
		});
		await collectStream(streamFn(model, { messages: [] }, { thinkingLevel: "high" }));
		await collectStream(streamFn(model, { messages: [] }, { thinkingLevel: "off" }));
		expect(lm.doStreamCalls[0]?.providerOptions).toEqual({
			anthropic: { sendReasoning: true, thinking: { type: "enabled", budgetTokens: 2048 } },
		});
		expect(lm.doStreamCalls[1]?.providerOptions).toEqual({ anthropic: { sendReasoning: true } });
	});

	it("the output cap follows the providers' rule: maxTokens, else compat.defaultMaxTokens, else none", async () => {
		const lm = mockV3([finishV3("stop")], [finishV3("stop")], [finishV3("stop")]);
		const plain = aiSdkModel(lm);
		const capped = aiSdkModel(lm, { model: { compat: { defaultMaxTokens: 4000 } } });
		await collectStream(plain.streamFn(plain.model, { messages: [] }));
		await collectStream(capped.streamFn(capped.model, { messages: [] }));
		await collectStream(capped.streamFn(capped.model, { messages: [] }, { maxTokens: 300 }));
		// The model's 16k `maxTokens` is its ceiling, not a cap: the AI SDK provider's own default applies.
		expect(lm.doStreamCalls.map((call) => call.maxOutputTokens)).toEqual([undefined, 4000, 300]);
	});

	it("a reply round-trips: what the decoder stored is what the next prompt sends back", async () => {
		const lm = mockV3(
			[
				{ type: "reasoning-start", id: "r", providerMetadata: { mock: { redactedData: "xyz" } } },
				{ type: "reasoning-end", id: "r" },
				{ type: "text-start", id: "t" },
				{ type: "text-delta", id: "t", delta: "Hi" },
				{ type: "text-end", id: "t" },
				finishV3("stop"),
			],
			[finishV3("stop")],
		);
		const { model, streamFn } = aiSdkModel(lm);
		const first = await collectStream(
			streamFn(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] }),
		);
		const history: Message[] = [
			{ role: "user", content: "hi", timestamp: 1 },
			first.message,
			{ role: "user", content: "again", timestamp: 3 },
		];
		await collectStream(streamFn(model, { messages: history }));
		expect(lm.doStreamCalls[1]?.prompt[1]).toEqual({
			role: "assistant",
			// Empty reasoning that carries data is sent back: the provider needs it (redacted / encrypted).
			content: [
				{ type: "reasoning", text: "", providerOptions: { mock: { redactedData: "xyz" } } },
				{ type: "text", text: "Hi" },
			],
		});
	});
});

describe("provider-executed tools replay as the AI SDK replays them", () => {
	/** A reply in which the provider ran two of its own tools (one failed) and made a file. */
	const providerTurn: LanguageModelV3StreamPart[] = [
		{
			type: "tool-call",
			toolCallId: "ws",
			toolName: "web_search",
			input: '{"q":"x"}',
			providerExecuted: true,
			dynamic: true,
			providerMetadata: { mock: { itemId: "ws_1" } },
		},
		{
			type: "tool-result",
			toolCallId: "ws",
			toolName: "web_search",
			result: { hits: 1 },
			dynamic: true,
			providerMetadata: { mock: { itemId: "wsr_1" } },
		},
		{
			type: "tool-call",
			toolCallId: "cx",
			toolName: "code",
			input: "{}",
			providerExecuted: true,
			dynamic: true,
		},
		{ type: "tool-result", toolCallId: "cx", toolName: "code", result: "boom", isError: true, dynamic: true },
		{ type: "file", mediaType: "image/png", data: "AQID", providerMetadata: { mock: { fileId: "f1" } } },
		finishV3("stop"),
	];

	/** What the AI SDK itself (`streamText`, then its response messages as the next prompt) sends back. */
	async function aiSdkReplay() {
		const lm = mockV3(providerTurn, [finishV3("stop")]);
		const first = streamText({ model: lm, prompt: "hi" });
		await first.consumeStream();
		const { messages } = await first.response;
		const second = streamText({ model: lm, messages: [{ role: "user", content: "hi" }, ...messages] });
		await second.consumeStream();
		return lm.doStreamCalls[1]?.prompt[1];
	}

	it("SPEC M3: results carry `output`, metadata goes back as `providerOptions`", async () => {
		const lm = mockV3(providerTurn, [finishV3("stop")]);
		const { model, streamFn } = aiSdkModel(lm);
		const hi: Message = { role: "user", content: "hi", timestamp: 1 };
		const first = await collectStream(streamFn(model, { messages: [hi] }));
		await collectStream(streamFn(model, { messages: [hi, first.message] }));
		const expected = await aiSdkReplay();
		expect(expected).toMatchObject({ role: "assistant" });
		expect(lm.doStreamCalls[1]?.prompt[1]).toEqual(expected);
	});

	it("a transcript saved with the stream-part shape still replays in the prompt shape", async () => {
		const lm = mockV3([finishV3("stop")]);
		const { model, streamFn } = aiSdkModel(lm);
		const saved = reply("mock.v3", [
			{
				type: "providerBlock",
				api: "ai-sdk",
				data: {
					type: "tool-call",
					toolCallId: "ws",
					toolName: "web_search",
					input: { q: "x" },
					providerExecuted: true,
					providerMetadata: { mock: { itemId: "ws_1" } },
				},
			},
			{
				type: "providerBlock",
				api: "ai-sdk",
				data: {
					type: "tool-result",
					toolCallId: "ws",
					toolName: "web_search",
					result: { hits: 1 },
					providerExecuted: true,
				},
			},
			{
				type: "providerBlock",
				api: "ai-sdk",
				data: { type: "tool-result", toolCallId: "cx", toolName: "code", result: "boom", isError: true },
			},
		]);
		await collectStream(
			streamFn(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }, saved] }),
		);
		expect(lm.doStreamCalls[0]?.prompt[1]).toEqual({
			role: "assistant",
			content: [
				{
					type: "tool-call",
					toolCallId: "ws",
					toolName: "web_search",
					input: { q: "x" },
					providerExecuted: true,
					providerOptions: { mock: { itemId: "ws_1" } },
				},
				{
					type: "tool-result",
					toolCallId: "ws",
					toolName: "web_search",
					output: { type: "json", value: { hits: 1 } },
				},
				{
					type: "tool-result",
					toolCallId: "cx",
					toolName: "code",
					output: { type: "error-json", value: "boom" },
				},
			],
		});
	});
});

describe("an Agent run over an AI SDK model", () => {
	it("runs a tool turn then a text turn (V3 mock)", async () => {
		const lm = mockV3(
			[
				{ type: "tool-input-start", id: "call_1", toolName: "add" },
				{ type: "tool-input-delta", id: "call_1", delta: '{"a":2,"b":3}' },
				{ type: "tool-input-end", id: "call_1" },
				{ type: "tool-call", toolCallId: "call_1", toolName: "add", input: '{"a":2,"b":3}' },
				{
					type: "finish",
					finishReason: { unified: "tool-calls", raw: "tool_calls" },
					usage: usageV3(20, 0, 10),
				},
			],
			[
				{ type: "text-start", id: "t" },
				{ type: "text-delta", id: "t", delta: "2 + 3 = 5" },
				{ type: "text-end", id: "t" },
				finishV3("stop"),
			],
		);
		const add = tool({
			name: "add",
			description: "Add two numbers",
			parameters: {
				type: "object",
				properties: { a: { type: "number" }, b: { type: "number" } },
				required: ["a", "b"],
			},
			execute: async (_id, args) => {
				const { a, b } = args as { a: number; b: number };
				return { content: [{ type: "text", text: String(a + b) }] };
			},
		});
		const agent = new Agent({ ...aiSdkModel(lm), tools: [add] });
		await agent.prompt("What is 2 + 3?");
		const roles = agent.state.messages.map((message) => (message as Message).role);
		expect(roles).toEqual(["user", "assistant", "toolResult", "assistant"]);
		const last = agent.state.messages.at(-1) as AssistantMessage;
		expect(last.content).toEqual([{ type: "text", text: "2 + 3 = 5" }]);
		expect(last.stopReason).toBe("stop");
		// The second call carried the tool call and its result back to the model.
		expect(lm.doStreamCalls[1]?.prompt.slice(-2)).toEqual([
			{
				role: "assistant",
				content: [{ type: "tool-call", toolCallId: "call_1", toolName: "add", input: { a: 2, b: 3 } }],
			},
			{
				role: "tool",
				content: [
					{
						type: "tool-result",
						toolCallId: "call_1",
						toolName: "add",
						output: { type: "text", value: "5" },
					},
				],
			},
		]);
		expect(lm.doStreamCalls[1]?.tools?.map((spec) => spec.name)).toEqual(["add"]);
	});
});
