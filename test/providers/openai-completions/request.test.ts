import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message } from "../../../src/core/messages.js";
import { emptyUsage } from "../../../src/core/messages.js";
import type { Context } from "../../../src/core/model.js";
import {
	buildOpenAICompletionsRequest,
	compatFor,
	presetNameFor,
	reasoningEffort,
	resolveCompat,
	wireToolCallId,
} from "../../../src/providers/openai-completions/index.js";
import { testModel } from "./helpers.js";

const model = testModel("https://api.openai.com/v1");
const tools = [
	{
		name: "read",
		description: "Read a file",
		parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
	},
];

function assistant(
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

const conversation: Message[] = [
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

const context: Context = { systemPrompt: "Be brief.", messages: conversation, tools };

describe("Chat Completions request body", () => {
	it("api.openai.com: developer role, max_completion_tokens, usage in stream, prompt_cache_key, effort, image after tool batch", () => {
		const body = buildOpenAICompletionsRequest(model, context, {
			toolChoice: "auto",
			maxTokens: 4096,
			sessionId: "session-1",
			thinkingLevel: "xhigh",
		});
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "model": "gpt-5",
			 "stream": true,
			 "stream_options": {
			  "include_usage": true
			 },
			 "max_completion_tokens": 4096,
			 "reasoning_effort": "high",
			 "prompt_cache_key": "session-1",
			 "tools": [
			  {
			   "type": "function",
			   "function": {
			    "name": "read",
			    "description": "Read a file",
			    "parameters": {
			     "type": "object",
			     "properties": {
			      "path": {
			       "type": "string"
			      }
			     },
			     "required": [
			      "path"
			     ]
			    }
			   }
			  }
			 ],
			 "tool_choice": "auto",
			 "messages": [
			  {
			   "role": "developer",
			   "content": "Be brief."
			  },
			  {
			   "role": "user",
			   "content": [
			    {
			     "type": "text",
			     "text": "Look at this"
			    },
			    {
			     "type": "image_url",
			     "image_url": {
			      "url": "data:image/png;base64,iVBORw0KGgo="
			     }
			    }
			   ]
			  },
			  {
			   "role": "assistant",
			   "content": "Reading it.",
			   "tool_calls": [
			    {
			     "id": "call_1_fc_abc_d691190b",
			     "type": "function",
			     "function": {
			      "name": "read",
			      "arguments": "{\\"path\\":\\"a.txt\\"}"
			     }
			    }
			   ]
			  },
			  {
			   "role": "tool",
			   "tool_call_id": "call_1_fc_abc_d691190b",
			   "content": "contents\\n(the tool returned an image; attached in the next message)"
			  },
			  {
			   "role": "user",
			   "content": [
			    {
			     "type": "text",
			     "text": "Image output of tool \\"read\\" (call call_1_fc_abc_d691190b):"
			    },
			    {
			     "type": "image_url",
			     "image_url": {
			      "url": "data:image/gif;base64,R0lGOD=="
			     }
			    }
			   ]
			  },
			  {
			   "role": "user",
			   "content": "Thanks"
			  }
			 ]
			}"
		`);
	});

	it("Ollama (local, from the port): system role, max_tokens, reasoning replayed in `reasoning`, no key needed", () => {
		const ollama = testModel("http://localhost:11434/v1", { id: "qwen3:8b", provider: "ollama" });
		const compat = resolveCompat(ollama);
		expect(compat.requiresApiKey).toBe(false);
		const body = buildOpenAICompletionsRequest(
			ollama,
			{
				systemPrompt: "Be brief.",
				messages: [
					{ role: "user", content: "Hi", timestamp: 1 },
					assistant(
						[
							{ type: "thinking", thinking: "Greet back." },
							{ type: "text", text: "Hello!" },
						],
						{ provider: "ollama", model: "qwen3:8b", stopReason: "stop" },
					),
					{ role: "user", content: "Bye", timestamp: 3 },
				],
			},
			{ thinkingLevel: "off", maxTokens: 1000 },
		);
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "model": "qwen3:8b",
			 "stream": true,
			 "stream_options": {
			  "include_usage": true
			 },
			 "max_tokens": 1000,
			 "reasoning_effort": "none",
			 "messages": [
			  {
			   "role": "system",
			   "content": "Be brief."
			  },
			  {
			   "role": "user",
			   "content": "Hi"
			  },
			  {
			   "role": "assistant",
			   "content": "Hello!",
			   "reasoning": "Greet back."
			  },
			  {
			   "role": "user",
			   "content": "Bye"
			  }
			 ]
			}"
		`);
	});

	it("Mistral: 9-character ids in calls and results alike, tool name on results, assistant between tool and user, no stream_options", () => {
		const mistral = testModel("https://api.mistral.ai/v1", {
			id: "mistral-small-latest",
			provider: "mistral",
			reasoning: false,
		});
		const body = buildOpenAICompletionsRequest(mistral, context, { maxTokens: 512 });
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "model": "mistral-small-latest",
			 "stream": true,
			 "max_tokens": 512,
			 "tools": [
			  {
			   "type": "function",
			   "function": {
			    "name": "read",
			    "description": "Read a file",
			    "parameters": {
			     "type": "object",
			     "properties": {
			      "path": {
			       "type": "string"
			      }
			     },
			     "required": [
			      "path"
			     ]
			    }
			   }
			  }
			 ],
			 "messages": [
			  {
			   "role": "system",
			   "content": "Be brief."
			  },
			  {
			   "role": "user",
			   "content": [
			    {
			     "type": "text",
			     "text": "Look at this"
			    },
			    {
			     "type": "image_url",
			     "image_url": {
			      "url": "data:image/png;base64,iVBORw0KGgo="
			     }
			    }
			   ]
			  },
			  {
			   "role": "assistant",
			   "content": "Need the file.\\n\\nReading it.",
			   "tool_calls": [
			    {
			     "id": "jqh6RPoJX",
			     "type": "function",
			     "function": {
			      "name": "read",
			      "arguments": "{\\"path\\":\\"a.txt\\"}"
			     }
			    }
			   ]
			  },
			  {
			   "role": "tool",
			   "tool_call_id": "jqh6RPoJX",
			   "content": "contents\\n(the tool returned an image; attached in the next message)",
			   "name": "read"
			  },
			  {
			   "role": "assistant",
			   "content": "I have processed the tool results."
			  },
			  {
			   "role": "user",
			   "content": [
			    {
			     "type": "text",
			     "text": "Image output of tool \\"read\\" (call jqh6RPoJX):"
			    },
			    {
			     "type": "image_url",
			     "image_url": {
			      "url": "data:image/gif;base64,R0lGOD=="
			     }
			    }
			   ]
			  },
			  {
			   "role": "user",
			   "content": "Thanks"
			  }
			 ]
			}"
		`);
		const id = wireToolCallId("call_1|fc_abc", "mistral9");
		expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
		expect(wireToolCallId("gSIMJiOkT", "mistral9")).toBe("gSIMJiOkT");
	});

	it("OpenRouter: reasoning object, reasoning_details with the signature replayed to the same model", () => {
		const openrouter = testModel("https://openrouter.ai/api/v1", {
			id: "anthropic/claude-sonnet-4.5",
			provider: "openrouter",
		});
		const body = buildOpenAICompletionsRequest(
			openrouter,
			{
				messages: [
					{ role: "user", content: "2+2?", timestamp: 1 },
					assistant(
						[
							{ type: "thinking", thinking: "Simple.", signature: "Et0B" },
							{ type: "redactedThinking", data: "enc" },
							{ type: "text", text: "4" },
						],
						{ provider: "openrouter", model: "anthropic/claude-sonnet-4.5", stopReason: "stop" },
					),
					{ role: "user", content: "3+3?", timestamp: 3 },
				],
			},
			{ thinkingLevel: "medium", maxTokens: 100 },
		);
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "model": "anthropic/claude-sonnet-4.5",
			 "stream": true,
			 "stream_options": {
			  "include_usage": true
			 },
			 "max_tokens": 100,
			 "reasoning": {
			  "effort": "medium"
			 },
			 "messages": [
			  {
			   "role": "user",
			   "content": "2+2?"
			  },
			  {
			   "role": "assistant",
			   "content": "4",
			   "reasoning_details": [
			    {
			     "type": "reasoning.text",
			     "text": "Simple.",
			     "signature": "Et0B"
			    },
			    {
			     "type": "reasoning.encrypted",
			     "data": "enc"
			    }
			   ]
			  },
			  {
			   "role": "user",
			   "content": "3+3?"
			  }
			 ]
			}"
		`);
	});

	it("DeepSeek: reasoning_content replayed to the same model; another provider's thinking becomes text", () => {
		const deepseek = testModel("https://api.deepseek.com", { id: "deepseek-reasoner", provider: "deepseek" });
		const foreign = assistant(
			[
				{ type: "thinking", thinking: "Foreign thought." },
				{ type: "text", text: "A" },
			],
			{
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				stopReason: "stop",
			},
		);
		const own = assistant(
			[
				{ type: "thinking", thinking: "Own thought." },
				{ type: "text", text: "B" },
			],
			{
				provider: "deepseek",
				model: "deepseek-reasoner",
				stopReason: "stop",
			},
		);
		const body = buildOpenAICompletionsRequest(deepseek, {
			messages: [
				{ role: "user", content: "q", timestamp: 1 },
				foreign,
				{ role: "user", content: "q2", timestamp: 3 },
				own,
			],
		});
		expect(body.messages.slice(1)).toEqual([
			{ role: "assistant", content: "Foreign thought.\n\nA" },
			{ role: "user", content: "q2" },
			{ role: "assistant", content: "B", reasoning_content: "Own thought." },
		]);
	});

	it("tool_choice: auto / none / required as is, a named tool → {type: function, function: {name}}", () => {
		const choice = (toolChoice: Parameters<typeof buildOpenAICompletionsRequest>[2]) =>
			buildOpenAICompletionsRequest(model, { messages: [], tools }, toolChoice).tool_choice;
		expect(choice({ toolChoice: "auto" })).toBe("auto");
		expect(choice({ toolChoice: "none" })).toBe("none");
		expect(choice({ toolChoice: "required" })).toBe("required");
		expect(choice({ toolChoice: { type: "tool", name: "read" } })).toEqual({
			type: "function",
			function: { name: "read" },
		});
		expect(
			buildOpenAICompletionsRequest(model, { messages: [] }, { toolChoice: "required" }).tool_choice,
		).toBeUndefined();
	});

	it("images in tool results stay inside the tool message where the server allows it", () => {
		const body = buildOpenAICompletionsRequest(model, context, {
			compat: { supportsImagesInToolResults: true },
		});
		expect(body.messages[3]).toEqual({
			role: "tool",
			tool_call_id: wireToolCallId("call_1|fc_abc", "openai"),
			content: [
				{ type: "text", text: "contents" },
				{ type: "image_url", image_url: { url: "data:image/gif;base64,R0lGOD==" } },
			],
		});
		expect(body.messages[4]).toEqual({ role: "user", content: "Thanks" });
	});

	it("a text-only model gets an explanatory text instead of images", () => {
		const textOnly = testModel("https://api.openai.com/v1", { input: ["text"] });
		const body = buildOpenAICompletionsRequest(textOnly, context);
		expect(JSON.stringify(body.messages)).not.toContain("base64");
		expect(JSON.stringify(body.messages)).toContain("image omitted");
	});

	describe("thinking levels (SPEC X5)", () => {
		const compat = compatFor("openai");
		it("maps levels to reasoning_effort, clamped to what the model supports", () => {
			expect(reasoningEffort(model, compat, "minimal")).toBe("minimal");
			expect(reasoningEffort(model, compat, "medium")).toBe("medium");
			expect(reasoningEffort(model, compat, "xhigh")).toBe("high");
			const grok = testModel("https://api.x.ai/v1", { provider: "xai" });
			expect(reasoningEffort(grok, resolveCompat(grok), "medium")).toBe("low");
			expect(reasoningEffort(grok, resolveCompat(grok), "minimal")).toBe("low");
			const withXhigh = testModel("x", {
				compat: { effortLevels: ["none", "low", "medium", "high", "xhigh"] },
			});
			expect(reasoningEffort(withXhigh, compat, "xhigh")).toBe("xhigh");
		});
		it("off omits the field, or sends the server's off value", () => {
			expect(reasoningEffort(model, compat, "off")).toBeUndefined();
			expect(reasoningEffort(model, { ...compat, reasoningEffortOff: "none" }, "off")).toBe("none");
		});
		it("nothing for a model without reasoning, a server without effort control, or no level", () => {
			expect(reasoningEffort({ ...model, reasoning: false }, compat, "high")).toBeUndefined();
			expect(reasoningEffort(model, compatFor(undefined), "high")).toBeUndefined();
			expect(reasoningEffort(model, compat, undefined)).toBeUndefined();
		});
	});

	describe("compat presets", () => {
		it("finds presets from provider names, hosts and local ports", () => {
			expect(presetNameFor("ollama")).toBe("ollama");
			expect(presetNameFor("llama.cpp")).toBe("llamacpp");
			expect(presetNameFor("http://localhost:11434/v1")).toBe("ollama");
			expect(presetNameFor("http://127.0.0.1:1234/v1")).toBe("lmstudio");
			expect(presetNameFor("http://localhost:8080/v1")).toBe("llamacpp");
			expect(presetNameFor("http://gpu-box:8000/v1")).toBe("vllm");
			expect(presetNameFor("https://openrouter.ai/api/v1")).toBe("openrouter");
			expect(presetNameFor("https://api.groq.com/openai/v1")).toBe("groq");
			expect(presetNameFor("https://api.deepseek.com")).toBe("deepseek");
			expect(presetNameFor("https://api.x.ai/v1")).toBe("xai");
			expect(presetNameFor("https://api.mistral.ai/v1")).toBe("mistral");
			expect(presetNameFor("https://my-server.example/v1")).toBeUndefined();
		});
		it("an unknown server gets the conservative defaults; model.compat overrides a preset, ill-typed flags are ignored", () => {
			const unknown = resolveCompat(testModel("https://my-server.example/v1", { provider: "acme" }));
			expect(unknown.maxTokensField).toBe("max_tokens");
			expect(unknown.supportsReasoningEffort).toBe(false);
			const custom = resolveCompat(
				testModel("http://localhost:11434/v1", {
					provider: "acme",
					compat: { preset: "mistral", supportsUsageInStreaming: true, maxTokensField: 7 },
				}),
			);
			expect(custom.toolCallIdFormat).toBe("mistral9");
			expect(custom.supportsUsageInStreaming).toBe(true);
			expect(custom.maxTokensField).toBe("max_tokens");
		});
	});

	it("SPEC C4: tool-call ids are rewritten identically in calls and results, valid ids unchanged", () => {
		const body = buildOpenAICompletionsRequest(model, context);
		const call = (body.messages[2] as { tool_calls: { id: string }[] }).tool_calls[0]?.id;
		const result = (body.messages[3] as { tool_call_id: string }).tool_call_id;
		expect(call).toBe(result);
		expect(call).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
		expect(wireToolCallId("call_abc", "openai")).toBe("call_abc");
		expect(wireToolCallId("x".repeat(64), "openai")).toHaveLength(40);
		expect(wireToolCallId("a|b", "openai")).not.toBe(wireToolCallId("a.b", "openai"));
	});
});

describe("prompt bytes: a growing conversation keeps its request prefix byte for byte", () => {
	for (const [name, target] of [
		["openai", model],
		["mistral", testModel("https://api.mistral.ai/v1", { provider: "mistral", id: "mistral-small-latest" })],
		["openrouter", testModel("https://openrouter.ai/api/v1", { provider: "openrouter", id: "x/y" })],
	] as const) {
		it(`ten turns (${name})`, () => {
			const messages: Message[] = [];
			let previous: string | undefined;
			for (let turn = 0; turn < 10; turn++) {
				messages.push({ role: "user", content: `question ${turn}`, timestamp: turn * 10 });
				const body = buildOpenAICompletionsRequest(target, { systemPrompt: "Be brief.", messages, tools });
				// The whole body, not just the messages: everything before `messages` must not move either.
				const bytes = JSON.stringify(body);
				expect(bytes.endsWith("]}")).toBe(true);
				if (previous !== undefined) expect(bytes.startsWith(previous.slice(0, -2))).toBe(true);
				previous = bytes;
				messages.push(
					assistant(
						[
							{ type: "thinking", thinking: `thought ${turn}`, signature: `sig${turn}` },
							{ type: "text", text: `answer ${turn}` },
							{ type: "toolCall", id: `call_${turn}|item`, name: "read", arguments: { path: `${turn}.txt` } },
						],
						{ provider: target.provider, model: target.id },
					),
					{
						role: "toolResult",
						toolCallId: `call_${turn}|item`,
						toolName: "read",
						content: [
							{ type: "text", text: `file ${turn}` },
							...(turn % 3 === 0 ? [{ type: "image" as const, data: "AAAA", mimeType: "image/png" }] : []),
						],
						isError: false,
						timestamp: turn * 10 + 2,
					},
				);
			}
		});
	}
});
