import { describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../../../src/core/messages.js";
import type { Model } from "../../../src/core/model.js";
import {
	buildOpenAICompletionsRequest,
	resolveCompat,
	wireToolCallId,
} from "../../../src/providers/openai-completions/index.js";
import { testModel } from "./helpers.js";
import { assistant, context, model } from "./request-fixtures.js";

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

	it("Mistral: the assistant between tool and user also when a failed, empty reply sits between them", () => {
		const mistral = testModel("https://api.mistral.ai/v1", {
			id: "mistral-small-latest",
			provider: "mistral",
		});
		const [first, reply, withImage] = context.messages;
		// Text only: an image would go in a user message of its own, after an acknowledgement anyway.
		const result = {
			...(withImage as ToolResultMessage),
			content: [{ type: "text" as const, text: "contents" }],
		};
		const failed = { ...assistant([]), stopReason: "error" as const, errorMessage: "HTTP 429" };
		const messages = [
			first,
			reply,
			result,
			failed,
			{ role: "user" as const, content: "try again", timestamp: 5 },
		];
		const body = buildOpenAICompletionsRequest(mistral, {
			...context,
			messages: messages as typeof context.messages,
		});
		const roles = body.messages.map((m) => m.role);
		const tool = roles.indexOf("tool");
		expect(roles.slice(tool, tool + 2)).toEqual(["tool", "assistant"]);
	});

	it("temperature: not sent to OpenAI's or Azure's reasoning models, sent elsewhere, and a model can refuse it", () => {
		const hello = { messages: [{ role: "user" as const, content: "Hi", timestamp: 1 }] };
		const sent = (m: Model) => buildOpenAICompletionsRequest(m, hello, { temperature: 0.3 }).temperature;
		expect(sent({ ...model, reasoning: true })).toBeUndefined();
		expect(
			sent(testModel("https://res.openai.azure.com/openai/deployments/o4-mini", { reasoning: true })),
		).toBeUndefined();
		expect(sent({ ...model, id: "gpt-4.1", reasoning: false })).toBe(0.3);
		// Other servers take it from reasoning models (vLLM, Ollama, llama.cpp sample with it).
		expect(sent(testModel("http://localhost:11434/v1", { provider: "ollama", reasoning: true }))).toBe(0.3);
		// Per model, both ways: a server's reasoning model that rejects it; OpenAI's told it takes it.
		const strict = testModel("http://localhost:8000/v1", {
			reasoning: false,
			compat: { supportsTemperature: false },
		});
		expect(sent(strict)).toBeUndefined();
		expect(sent({ ...model, reasoning: true, compat: { reasoningModelsRejectTemperature: false } })).toBe(
			0.3,
		);
	});

	it("a user message with no content parts is not sent", () => {
		const body = buildOpenAICompletionsRequest(model, {
			messages: [
				{ role: "user", content: [], timestamp: 0 },
				{ role: "user", content: "hi", timestamp: 0 },
			],
		});
		expect(body.messages).toEqual([{ role: "user", content: "hi" }]);
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
});
