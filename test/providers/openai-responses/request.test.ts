/**
 * Request building for the OpenAI Responses API: exact JSON bodies (snapshots), SPEC C4 replay rules,
 * SPEC X5 reasoning levels, tool choice, and the prompt-cache key.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import { getModel } from "../../../src/providers/models.js";
import {
	buildResponsesRequest,
	responsesCallId,
	responsesReasoningConfig,
	toResponsesToolChoice,
} from "../../../src/providers/openai-responses/index.js";
import { repliesOf } from "../support/transcript.js";
import { responsesModel } from "./helpers.js";

const model = responsesModel("http://127.0.0.1:1");

const reasoningItem = {
	id: "rs_1",
	type: "reasoning",
	summary: [{ type: "summary_text", text: "Plan." }],
	encrypted_content: "gAAAA-opaque",
};
const webSearchItem = {
	id: "ws_1",
	type: "web_search_call",
	status: "completed",
	action: { type: "search" },
};

const assistant = repliesOf(model);

const ownReply = assistant([
	{ type: "providerBlock", api: "openai-responses", data: reasoningItem },
	{ type: "thinking", thinking: "Plan." },
	{ type: "providerBlock", api: "openai-responses", data: webSearchItem },
	{ type: "text", text: "Reading it.", signature: JSON.stringify({ id: "msg_1", phase: "commentary" }) },
	{ type: "toolCall", id: "call_1", name: "read_file", arguments: { path: "a.txt" }, signature: "fc_1" },
]);

const conversation: Message[] = [
	{
		role: "user",
		content: [
			{ type: "text", text: "Read a.txt" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
		],
		timestamp: 1,
	},
	ownReply,
	{
		role: "toolResult",
		toolCallId: "call_1",
		toolName: "read_file",
		content: [{ type: "text", text: "hello" }],
		isError: false,
		timestamp: 3,
	},
];

const context: Context = {
	systemPrompt: "You are terse.",
	tools: [
		{
			name: "read_file",
			description: "Read a file",
			parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
		},
	],
	messages: conversation,
};

describe("buildResponsesRequest: exact bodies", () => {
	it("snapshot: system, tools, reasoning, cache key, replayed items, tool result; input comes last", () => {
		const body = buildResponsesRequest(model, context, {
			thinkingLevel: "medium",
			sessionId: "session-42",
			maxTokens: 2048,
			toolChoice: "auto",
		});
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "model": "gpt-5",
			 "stream": true,
			 "store": false,
			 "instructions": "You are terse.",
			 "tools": [
			  {
			   "type": "function",
			   "name": "read_file",
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
			   },
			   "strict": false
			  }
			 ],
			 "tool_choice": "auto",
			 "reasoning": {
			  "effort": "medium",
			  "summary": "auto"
			 },
			 "include": [
			  "reasoning.encrypted_content"
			 ],
			 "prompt_cache_key": "session-42",
			 "max_output_tokens": 2048,
			 "input": [
			  {
			   "type": "message",
			   "role": "user",
			   "content": [
			    {
			     "type": "input_text",
			     "text": "Read a.txt"
			    },
			    {
			     "type": "input_image",
			     "detail": "auto",
			     "image_url": "data:image/png;base64,iVBORw0KGgo="
			    }
			   ]
			  },
			  {
			   "id": "rs_1",
			   "type": "reasoning",
			   "summary": [
			    {
			     "type": "summary_text",
			     "text": "Plan."
			    }
			   ],
			   "encrypted_content": "gAAAA-opaque"
			  },
			  {
			   "id": "ws_1",
			   "type": "web_search_call",
			   "status": "completed",
			   "action": {
			    "type": "search"
			   }
			  },
			  {
			   "type": "message",
			   "role": "assistant",
			   "content": [
			    {
			     "type": "output_text",
			     "text": "Reading it.",
			     "annotations": []
			    }
			   ],
			   "status": "completed",
			   "id": "msg_1",
			   "phase": "commentary"
			  },
			  {
			   "type": "function_call",
			   "call_id": "call_1",
			   "name": "read_file",
			   "arguments": "{\\"path\\":\\"a.txt\\"}",
			   "id": "fc_1"
			  },
			  {
			   "type": "function_call_output",
			   "call_id": "call_1",
			   "output": "hello"
			  }
			 ]
			}"
		`);
		expect(Object.keys(body).at(-1)).toBe("input");
	});

	it("a model without reasoning gets no reasoning or include, and keeps its temperature", () => {
		const plain = { ...model, id: "gpt-4.1", reasoning: false };
		const body = buildResponsesRequest(
			plain,
			{ messages: [{ role: "user", content: "hi", timestamp: 1 }] },
			{
				temperature: 0.2,
			},
		);
		expect(body).toEqual({
			model: "gpt-4.1",
			stream: true,
			store: false,
			temperature: 0.2,
			input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
		});
	});
});

describe("SPEC X5: thinking levels → reasoning.effort, clamped", () => {
	const table: [string, Model["compat"], Parameters<typeof responsesReasoningConfig>[1], unknown][] = [
		["no level: the model's default", undefined, undefined, undefined],
		[
			"off → none where supported",
			{ effortLevels: ["none", "low", "medium", "high"] },
			"off",
			{ effort: "none" },
		],
		[
			"off → lowest effort where it cannot be switched off",
			undefined,
			"off",
			{ effort: "low", summary: "auto" },
		],
		["minimal → low by default", undefined, "minimal", { effort: "low", summary: "auto" }],
		[
			"minimal kept where supported",
			{ effortLevels: ["minimal", "low"] },
			"minimal",
			{ effort: "minimal", summary: "auto" },
		],
		["xhigh → high by default", undefined, "xhigh", { effort: "high", summary: "auto" }],
		[
			"xhigh kept where supported",
			{ effortLevels: ["low", "xhigh"] },
			"xhigh",
			{ effort: "xhigh", summary: "auto" },
		],
		["summary off by compat", { reasoningSummary: false }, "high", { effort: "high" }],
	];
	for (const [name, compat, level, expected] of table) {
		it(name, () => {
			expect(responsesReasoningConfig({ ...model, ...(compat ? { compat } : {}) }, level)).toEqual(expected);
		});
	}

	it("a model without reasoning gets no reasoning config at any level", () => {
		expect(responsesReasoningConfig({ ...model, reasoning: false }, "high")).toBeUndefined();
	});
});

describe("tool choice", () => {
	it("maps auto / none / required / a named tool", () => {
		expect(toResponsesToolChoice("auto")).toBe("auto");
		expect(toResponsesToolChoice("none")).toBe("none");
		expect(toResponsesToolChoice("required")).toBe("required");
		expect(toResponsesToolChoice({ type: "tool", name: "read_file" })).toEqual({
			type: "function",
			name: "read_file",
		});
	});
});

describe("SPEC C4: replay across models and providers", () => {
	it("another model of the same provider: reasoning items and item ids dropped, thinking becomes text", () => {
		const body = buildResponsesRequest({ ...model, id: "gpt-5-mini" }, context);
		const items = body.input as unknown[];
		expect(items.slice(1, 5)).toEqual([
			{
				type: "message",
				role: "assistant",
				content: [{ type: "output_text", text: "Plan.", annotations: [] }],
				status: "completed",
			},
			webSearchItem,
			{
				type: "message",
				role: "assistant",
				content: [{ type: "output_text", text: "Reading it.", annotations: [] }],
				status: "completed",
			},
			{ type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' },
		]);
	});

	it("another provider: provider blocks dropped, thinking as text, tool-call ids rewritten consistently", () => {
		const foreign = assistant(
			[
				{ type: "thinking", thinking: "Hmm.", signature: "anthropic-sig" },
				{ type: "providerBlock", api: "anthropic-messages", data: { type: "server_tool_use" } },
				{ type: "toolCall", id: "toolu_01|weird.id", name: "read_file", arguments: {} },
			],
			{ api: "anthropic-messages", provider: "anthropic", model: "claude" },
		);
		const result: Message = {
			role: "toolResult",
			toolCallId: "toolu_01|weird.id",
			toolName: "read_file",
			content: [{ type: "text", text: "x" }],
			isError: false,
			timestamp: 5,
		};
		const body = buildResponsesRequest(model, { messages: [foreign, result] });
		const id = responsesCallId("toolu_01|weird.id");
		expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		expect(body.input).toEqual([
			{
				type: "message",
				role: "assistant",
				content: [{ type: "output_text", text: "Hmm.", annotations: [] }],
				status: "completed",
			},
			{ type: "function_call", call_id: id, name: "read_file", arguments: "{}" },
			{ type: "function_call_output", call_id: id, output: "x" },
		]);
	});

	it("two parts of one output message go back as one message item", () => {
		const reply = assistant([
			{ type: "text", text: "a", signature: "msg_9" },
			{ type: "text", text: "b", signature: "msg_9" },
		]);
		const body = buildResponsesRequest(model, { messages: [reply] });
		expect(body.input).toEqual([
			{
				type: "message",
				role: "assistant",
				content: [
					{ type: "output_text", text: "a", annotations: [] },
					{ type: "output_text", text: "b", annotations: [] },
				],
				status: "completed",
				id: "msg_9",
			},
		]);
	});

	it("SPEC I5: a reasoning item the reply ended after (length, abort, blank text) is not replayed without its following item", () => {
		const user = { role: "user" as const, content: "go on", timestamp: 1 };
		for (const tail of [[], [{ type: "text" as const, text: "  \n" }]]) {
			const cut = {
				...assistant([{ type: "providerBlock", api: "openai-responses", data: reasoningItem }, ...tail]),
				stopReason: "length" as const,
			};
			const body = buildResponsesRequest(model, { messages: [user, cut, user] });
			expect(JSON.stringify(body.input)).not.toContain('"reasoning"');
		}
		// Followed by its output item, the reasoning item goes back as it came.
		const whole = buildResponsesRequest(model, { messages: [user, ownReply] });
		expect(JSON.stringify(whole.input)).toContain('"rs_1"');
	});
});

describe("tool results with images", () => {
	const withImage: Message = {
		role: "toolResult",
		toolCallId: "call_1",
		toolName: "screenshot",
		content: [
			{ type: "text", text: "done" },
			{ type: "image", data: "AAAA", mimeType: "image/png" },
		],
		isError: false,
		timestamp: 1,
	};

	it("go inside function_call_output by default", () => {
		expect(buildResponsesRequest(model, { messages: [withImage] }).input).toEqual([
			{
				type: "function_call_output",
				call_id: "call_1",
				output: [
					{ type: "input_text", text: "done" },
					{ type: "input_image", detail: "auto", image_url: "data:image/png;base64,AAAA" },
				],
			},
		]);
	});

	it("go in a follow-up user message with compat.toolResultImages: false", () => {
		const input = buildResponsesRequest(
			{ ...model, compat: { toolResultImages: false } },
			{ messages: [withImage] },
		).input as unknown[];
		expect(input).toEqual([
			{
				type: "function_call_output",
				call_id: "call_1",
				output: "done\n(the tool returned 1 image(s), attached in the next message)",
			},
			{
				type: "message",
				role: "user",
				content: [
					{ type: "input_text", text: "Images returned by tool call call_1:" },
					{ type: "input_image", detail: "auto", image_url: "data:image/png;base64,AAAA" },
				],
			},
		]);
	});

	it("are replaced by a note for a text-only model", () => {
		const input = buildResponsesRequest({ ...model, input: ["text"] }, { messages: [withImage] }).input;
		expect(input).toEqual([
			{
				type: "function_call_output",
				call_id: "call_1",
				output: "done\n(image omitted: this model does not accept images)",
			},
		]);
	});
});

describe("catalog models carry their effort levels (SPEC X5)", () => {
	it("gpt-5.2 can switch reasoning off; gpt-5 clamps off to minimal and xhigh to high", () => {
		expect(responsesReasoningConfig(getModel("openai", "gpt-5.2"), "off")).toEqual({ effort: "none" });
		expect(responsesReasoningConfig(getModel("openai", "gpt-5.2"), "xhigh")).toEqual({
			effort: "xhigh",
			summary: "auto",
		});
		expect(responsesReasoningConfig(getModel("openai", "gpt-5"), "off")).toEqual({
			effort: "minimal",
			summary: "auto",
		});
		expect(responsesReasoningConfig(getModel("openai", "gpt-5"), "xhigh")).toEqual({
			effort: "high",
			summary: "auto",
		});
		expect(responsesReasoningConfig(getModel("openai", "gpt-4.1"), "high")).toBeUndefined();
	});

	it("GPT-6.2 Sol rejects none, so off is its lowest effort; Terra and Luna switch reasoning off", () => {
		expect(responsesReasoningConfig(getModel("openai", "gpt-6.2-sol"), "off")).toEqual({
			effort: "low",
			summary: "auto",
		});
		for (const id of ["gpt-6.1-terra", "gpt-6-luna"])
			expect(responsesReasoningConfig(getModel("openai", id), "off"), id).toEqual({ effort: "none" });
		expect(responsesReasoningConfig(getModel("openai", "gpt-6-luna"), "xhigh")?.effort).toBe("xhigh");
	});

	it("minimal on a model without it is its lowest reasoning level, never none (only off turns reasoning off)", () => {
		for (const id of ["gpt-5.2", "gpt-5.4"])
			expect(responsesReasoningConfig(getModel("openai", id), "minimal")?.effort, id).toBe("low");
	});
});
