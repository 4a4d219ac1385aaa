import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import { buildAnthropicRequest } from "../../../src/providers/anthropic/index.js";
import { getModel } from "../../../src/providers/models.js";
import { assistant, model, tools } from "./request-fixtures.js";

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
		{ type: "redactedThinking", data: "enc-xyz" },
		{ type: "text", text: "Reading it." },
		{
			type: "providerBlock",
			api: "anthropic-messages",
			data: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
		},
		{ type: "providerBlock", api: "openai-responses", data: { type: "reasoning", encrypted_content: "zzz" } },
		{ type: "toolCall", id: "toolu_01", name: "read", arguments: { path: "a.txt" } },
	]),
	{
		role: "toolResult",
		toolCallId: "toolu_01",
		toolName: "read",
		content: [
			{ type: "text", text: "contents" },
			{ type: "image", data: "R0lGOD==", mimeType: "image/gif" },
		],
		isError: false,
		timestamp: 3,
	},
];

describe("Anthropic request body", () => {
	it("serializes the exact wire body (system, tools, images, thinking replay, provider blocks, tool results, cache breakpoints)", () => {
		const body = buildAnthropicRequest(
			model,
			{ systemPrompt: "Be brief.", messages: conversation, tools },
			{ toolChoice: "auto", maxTokens: 4096 },
		);
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "model": "claude-sonnet-4-5",
			 "max_tokens": 4096,
			 "stream": true,
			 "system": [
			  {
			   "type": "text",
			   "text": "Be brief.",
			   "cache_control": {
			    "type": "ephemeral"
			   }
			  }
			 ],
			 "tools": [
			  {
			   "name": "read",
			   "description": "Read a file",
			   "input_schema": {
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
			  },
			  {
			   "name": "ls",
			   "description": "List a folder",
			   "input_schema": {
			    "type": "object",
			    "properties": {}
			   },
			   "cache_control": {
			    "type": "ephemeral"
			   }
			  }
			 ],
			 "tool_choice": {
			  "type": "auto"
			 },
			 "messages": [
			  {
			   "role": "user",
			   "content": [
			    {
			     "type": "text",
			     "text": "Look at this"
			    },
			    {
			     "type": "image",
			     "source": {
			      "type": "base64",
			      "media_type": "image/png",
			      "data": "iVBORw0KGgo="
			     }
			    }
			   ]
			  },
			  {
			   "role": "assistant",
			   "content": [
			    {
			     "type": "thinking",
			     "thinking": "Need the file.",
			     "signature": "sig-abc"
			    },
			    {
			     "type": "redacted_thinking",
			     "data": "enc-xyz"
			    },
			    {
			     "type": "text",
			     "text": "Reading it."
			    },
			    {
			     "type": "server_tool_use",
			     "id": "srvtoolu_1",
			     "name": "web_search",
			     "input": {
			      "query": "q"
			     }
			    },
			    {
			     "type": "tool_use",
			     "id": "toolu_01",
			     "name": "read",
			     "input": {
			      "path": "a.txt"
			     }
			    }
			   ]
			  },
			  {
			   "role": "user",
			   "content": [
			    {
			     "type": "tool_result",
			     "tool_use_id": "toolu_01",
			     "content": [
			      {
			       "type": "text",
			       "text": "contents"
			      },
			      {
			       "type": "image",
			       "source": {
			        "type": "base64",
			        "media_type": "image/gif",
			        "data": "R0lGOD=="
			       }
			      }
			     ],
			     "cache_control": {
			      "type": "ephemeral"
			     }
			    }
			   ]
			  }
			 ]
			}"
		`);
	});

	it("pause_turn continuation: the assistant's server blocks are replayed last, unchanged and unmutated", () => {
		const data = { type: "server_tool_use", id: "srvtoolu_9", name: "web_search", input: { query: "x" } };
		const paused = assistant([{ type: "providerBlock", api: "anthropic-messages", data }], {
			stopReason: "stop",
			stopDetails: { type: "pause_turn" },
		});
		const body = buildAnthropicRequest(model, {
			messages: [{ role: "user", content: "q", timestamp: 1 }, paused],
		});
		expect(body.messages[1]).toEqual({
			role: "assistant",
			content: [{ ...data, cache_control: { type: "ephemeral" } }],
		});
		expect(data).toEqual({
			type: "server_tool_use",
			id: "srvtoolu_9",
			name: "web_search",
			input: { query: "x" },
		});
	});

	it("text that is only whitespace is not sent: the API rejects such a block (system, user, assistant, tool result)", () => {
		const body = buildAnthropicRequest(
			model,
			{
				systemPrompt: " ",
				messages: [
					{ role: "user", content: " ", timestamp: 0 },
					{ role: "user", content: "go", timestamp: 0 },
					assistant([
						{ type: "text", text: "\n\n" },
						{ type: "toolCall", id: "toolu_9", name: "read", arguments: { path: "a" } },
					]),
					{
						role: "toolResult",
						toolCallId: "toolu_9",
						toolName: "read",
						content: [{ type: "text", text: " \n" }],
						isError: false,
						timestamp: 0,
					},
				],
			},
			{ cacheTtl: "off" },
		);
		expect(body.system).toBeUndefined();
		const texts = JSON.stringify(body.messages).match(/"text":"[^"]*"/g) ?? [];
		expect(texts).toEqual(['"text":"go"']);
	});

	it("images to a text-only model become an explanatory text", () => {
		const textOnly = { ...model, input: ["text"] as Model["input"] };
		const body = buildAnthropicRequest(
			textOnly,
			{ messages: [conversation[0] as Message] },
			{ cacheTtl: "off" },
		);
		expect(body.messages[0]?.content).toEqual([
			{ type: "text", text: "Look at this" },
			{ type: "text", text: "(image omitted: this model does not accept images)" },
		]);
	});

	it("tool_choice: auto → auto, none → none, required → any, named → tool", () => {
		const choice = (
			toolChoice: Parameters<typeof buildAnthropicRequest>[2] extends infer O
				? O extends { toolChoice?: infer C }
					? C
					: never
				: never,
		) => buildAnthropicRequest(model, { messages: [], tools }, { toolChoice }).tool_choice;
		expect(choice("auto")).toEqual({ type: "auto" });
		expect(choice("none")).toEqual({ type: "none" });
		expect(choice("required")).toEqual({ type: "any" });
		expect(choice({ type: "tool", name: "read" })).toEqual({ type: "tool", name: "read" });
		expect(
			buildAnthropicRequest(model, { messages: [] }, { toolChoice: "required" }).tool_choice,
		).toBeUndefined();
	});

	it("cache TTL: 5 minutes by default, 1 hour on request, none when off", () => {
		const context: Context = {
			systemPrompt: "S",
			messages: [{ role: "user", content: "hi", timestamp: 1 }],
			tools,
		};
		const oneHour = JSON.stringify(buildAnthropicRequest(model, context, { cacheTtl: "1h" }));
		expect(oneHour.match(/"cache_control":\{"type":"ephemeral","ttl":"1h"\}/g)).toHaveLength(3);
		const off = JSON.stringify(buildAnthropicRequest(model, context, { cacheTtl: "off" }));
		expect(off).not.toContain("cache_control");
		const byDefault = JSON.stringify(buildAnthropicRequest(model, context));
		expect(byDefault.match(/"cache_control":\{"type":"ephemeral"\}/g)).toHaveLength(3);
	});

	describe("thinking levels (SPEC X5)", () => {
		const levels = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
		it("budget models: budget_tokens per level, clamped below max_tokens and ≥ 1024", () => {
			const budgets = levels.map(
				(thinkingLevel) => buildAnthropicRequest(model, { messages: [] }, { thinkingLevel }).thinking,
			);
			expect(budgets).toEqual([
				undefined,
				{ type: "enabled", budget_tokens: 1024 },
				{ type: "enabled", budget_tokens: 2048 },
				{ type: "enabled", budget_tokens: 8192 },
				{ type: "enabled", budget_tokens: 16384 },
				{ type: "enabled", budget_tokens: 32768 },
			]);
			const small = buildAnthropicRequest(
				model,
				{ messages: [] },
				{ thinkingLevel: "xhigh", maxTokens: 5000 },
			);
			expect(small.thinking).toEqual({ type: "enabled", budget_tokens: 3976 });
			expect(
				buildAnthropicRequest(model, { messages: [] }, { thinkingLevel: "high", maxTokens: 1500 }).thinking,
			).toBeUndefined();
		});
		it("adaptive models: adaptive thinking with an effort clamped to the model's levels", () => {
			const sonnet46 = getModel("anthropic", "claude-sonnet-4-6");
			const request = (m: Model, thinkingLevel: (typeof levels)[number]) => {
				const body = buildAnthropicRequest(m, { messages: [] }, { thinkingLevel });
				return [body.thinking, body.output_config];
			};
			expect(request(sonnet46, "off")).toEqual([{ type: "disabled" }, undefined]);
			expect(request(sonnet46, "minimal")).toEqual([{ type: "adaptive" }, { effort: "low" }]);
			expect(request(sonnet46, "medium")).toEqual([{ type: "adaptive" }, { effort: "medium" }]);
			// claude-sonnet-4-6 has no xhigh: clamped down to high.
			expect(request(sonnet46, "xhigh")).toEqual([{ type: "adaptive" }, { effort: "high" }]);
			const opus55 = getModel("anthropic", "claude-opus-5-5");
			expect(request(opus55, "xhigh")).toEqual([{ type: "adaptive" }, { effort: "xhigh" }]);
			// Always-on thinking cannot be disabled: "off" asks for the lowest effort instead.
			expect(request(opus55, "off")).toEqual([undefined, { effort: "low" }]);
		});
		it("a forced tool choice drops manual (budget) thinking, which rejects it; adaptive thinking keeps it", () => {
			const forced = buildAnthropicRequest(
				model,
				{ messages: [], tools },
				{ thinkingLevel: "high", toolChoice: "required" },
			);
			expect([forced.thinking, forced.tool_choice]).toEqual([undefined, { type: "any" }]);
			const auto = buildAnthropicRequest(
				model,
				{ messages: [], tools },
				{ thinkingLevel: "high", toolChoice: "auto" },
			);
			expect(auto.thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
			const adaptive = getModel("anthropic", "claude-sonnet-5-5");
			const named = buildAnthropicRequest(
				adaptive,
				{ messages: [], tools },
				{
					thinkingLevel: "high",
					toolChoice: { type: "tool", name: "read" },
				},
			);
			expect(named.thinking).toEqual({ type: "adaptive" });
		});

		it("a model that rejects forced tool use (compat.rejectsForcedToolChoice) gets auto instead", () => {
			// Anthropic's "What's new in Claude Opus 5.5": forced tool use returns an error there and on Fable 5.1.
			for (const id of ["claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-5-1"]) {
				const body = buildAnthropicRequest(
					getModel("anthropic", id),
					{ messages: [], tools },
					{ toolChoice: "required" },
				);
				expect(body.tool_choice, id).toEqual({ type: "auto" });
			}
		});

		it("a model without reasoning gets no thinking config", () => {
			const body = buildAnthropicRequest(
				{ ...model, reasoning: false },
				{ messages: [] },
				{ thinkingLevel: "high" },
			);
			expect(body.thinking).toBeUndefined();
		});
	});

	it("temperature only for models flagged compat.supportsTemperature, never with thinking on", () => {
		expect(buildAnthropicRequest(model, { messages: [] }, { temperature: 0.2 }).temperature).toBeUndefined();
		const legacy = { ...model, compat: { thinkingMode: "budget", supportsTemperature: true } };
		expect(buildAnthropicRequest(legacy, { messages: [] }, { temperature: 0.2 }).temperature).toBe(0.2);
		expect(
			buildAnthropicRequest(legacy, { messages: [] }, { temperature: 0.2, thinkingLevel: "low" }).temperature,
		).toBeUndefined();
	});
});
