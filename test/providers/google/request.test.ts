/**
 * Gemini request building: exact JSON bodies (snapshot), SPEC C4 replay rules (thought signatures to the
 * same model only), SPEC X5 thinking levels, tool choice.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import {
	buildGeminiRequest,
	geminiStreamUrl,
	geminiThinkingConfig,
	toFunctionCallingConfig,
} from "../../../src/providers/google/index.js";
import { getModel } from "../../../src/providers/models.js";
import { repliesOf } from "../support/transcript.js";
import { geminiModel } from "./helpers.js";

const model = geminiModel("http://127.0.0.1:1");

const assistant = repliesOf(model);

const codePart = { executableCode: { language: "PYTHON", code: "print(1)" }, thoughtSignature: "sig-code" };

const ownReply = assistant([
	{ type: "thinking", thinking: "Let me look.", signature: "sig-thought" },
	{ type: "providerBlock", api: "google-generative-ai", data: codePart },
	{ type: "text", text: "Checking.", signature: "sig-text" },
	{
		type: "toolCall",
		id: "read_file_r1_0",
		name: "read_file",
		arguments: { path: "a.txt" },
		signature: "sig-call",
	},
	{ type: "toolCall", id: "read_file_r1_1", name: "read_file", arguments: { path: "b.txt" } },
]);

const messages: Message[] = [
	{
		role: "user",
		content: [
			{ type: "text", text: "Read a.txt and b.txt" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
		],
		timestamp: 1,
	},
	ownReply,
	{
		role: "toolResult",
		toolCallId: "read_file_r1_0",
		toolName: "read_file",
		content: [{ type: "text", text: "A" }],
		isError: false,
		timestamp: 3,
	},
	{
		role: "toolResult",
		toolCallId: "read_file_r1_1",
		toolName: "read_file",
		content: [{ type: "text", text: "no such file" }],
		isError: true,
		timestamp: 4,
	},
];

const context: Context = {
	systemPrompt: "You are terse.",
	tools: [
		{
			name: "read_file",
			description: "Read a file",
			parameters: { type: "object", properties: { path: { type: "string" } } },
		},
	],
	messages,
};

describe("buildGeminiRequest: exact bodies", () => {
	it("snapshot: system instruction, tools, tool config, thinking, signed parts, merged tool results; contents last", () => {
		const body = buildGeminiRequest(model, context, {
			thinkingLevel: "low",
			maxTokens: 1000,
			toolChoice: { type: "tool", name: "read_file" },
		});
		expect(JSON.stringify(body, null, 1)).toMatchInlineSnapshot(`
			"{
			 "systemInstruction": {
			  "parts": [
			   {
			    "text": "You are terse."
			   }
			  ]
			 },
			 "tools": [
			  {
			   "functionDeclarations": [
			    {
			     "name": "read_file",
			     "description": "Read a file",
			     "parametersJsonSchema": {
			      "type": "object",
			      "properties": {
			       "path": {
			        "type": "string"
			       }
			      }
			     }
			    }
			   ]
			  }
			 ],
			 "toolConfig": {
			  "functionCallingConfig": {
			   "mode": "ANY",
			   "allowedFunctionNames": [
			    "read_file"
			   ]
			  }
			 },
			 "generationConfig": {
			  "maxOutputTokens": 1000,
			  "thinkingConfig": {
			   "thinkingBudget": 2048,
			   "includeThoughts": true
			  }
			 },
			 "contents": [
			  {
			   "role": "user",
			   "parts": [
			    {
			     "text": "Read a.txt and b.txt"
			    },
			    {
			     "inlineData": {
			      "mimeType": "image/png",
			      "data": "iVBORw0KGgo="
			     }
			    }
			   ]
			  },
			  {
			   "role": "model",
			   "parts": [
			    {
			     "text": "Let me look.",
			     "thought": true,
			     "thoughtSignature": "sig-thought"
			    },
			    {
			     "executableCode": {
			      "language": "PYTHON",
			      "code": "print(1)"
			     },
			     "thoughtSignature": "sig-code"
			    },
			    {
			     "text": "Checking.",
			     "thoughtSignature": "sig-text"
			    },
			    {
			     "functionCall": {
			      "name": "read_file",
			      "args": {
			       "path": "a.txt"
			      }
			     },
			     "thoughtSignature": "sig-call"
			    },
			    {
			     "functionCall": {
			      "name": "read_file",
			      "args": {
			       "path": "b.txt"
			      }
			     }
			    }
			   ]
			  },
			  {
			   "role": "user",
			   "parts": [
			    {
			     "functionResponse": {
			      "name": "read_file",
			      "response": {
			       "output": "A"
			      }
			     }
			    },
			    {
			     "functionResponse": {
			      "name": "read_file",
			      "response": {
			       "error": "no such file"
			      }
			     }
			    }
			   ]
			  }
			 ]
			}"
		`);
		expect(Object.keys(body).at(-1)).toBe("contents");
	});

	it("the URL is {baseUrl}/models/{id}:streamGenerateContent?alt=sse", () => {
		expect(geminiStreamUrl(geminiModel("https://example.test/v1beta/"))).toBe(
			"https://example.test/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		);
		expect(geminiStreamUrl(geminiModel("https://example.test", { id: "models/gemini-2.5-pro" }))).toBe(
			"https://example.test/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
		);
	});
});

describe("SPEC X5: thinking levels → thinkingConfig, clamped", () => {
	const table: [string, Model["compat"], Parameters<typeof geminiThinkingConfig>[1], unknown][] = [
		["no level: the model's default", undefined, undefined, undefined],
		["off → budget 0", undefined, "off", { thinkingBudget: 0 }],
		[
			"off on an always-thinking model → smallest budget",
			{ thinkingAlwaysOn: true },
			"off",
			{ thinkingBudget: 128, includeThoughts: true },
		],
		["medium → 8192", undefined, "medium", { thinkingBudget: 8192, includeThoughts: true }],
		[
			"xhigh capped at the default 24576",
			undefined,
			"xhigh",
			{ thinkingBudget: 24576, includeThoughts: true },
		],
		[
			"xhigh capped by compat.maxThinkingBudget",
			{ maxThinkingBudget: 32768 },
			"xhigh",
			{ thinkingBudget: 32768, includeThoughts: true },
		],
		[
			"Gemini 3 levels: medium → LOW when only low/high exist",
			{ thinkingLevels: ["low", "high"] },
			"medium",
			{ thinkingLevel: "LOW", includeThoughts: true },
		],
		[
			"Gemini 3 levels: xhigh → HIGH",
			{ thinkingLevels: ["low", "high"] },
			"xhigh",
			{ thinkingLevel: "HIGH", includeThoughts: true },
		],
		[
			"Gemini 3 levels: off → the lowest level (cannot switch off)",
			{ thinkingLevels: ["low", "high"] },
			"off",
			{ thinkingLevel: "LOW", includeThoughts: true },
		],
		[
			"Gemini 3 levels: minimal kept where supported",
			{ thinkingLevels: ["minimal", "low", "medium", "high"] },
			"minimal",
			{ thinkingLevel: "MINIMAL", includeThoughts: true },
		],
	];
	for (const [name, compat, level, expected] of table) {
		it(name, () => {
			expect(geminiThinkingConfig({ ...model, ...(compat ? { compat } : {}) }, level)).toEqual(expected);
		});
	}

	it("a model without reasoning gets no thinking config", () => {
		expect(geminiThinkingConfig({ ...model, reasoning: false }, "high")).toBeUndefined();
	});
});

describe("tool choice", () => {
	it("maps auto / none / required / a named tool", () => {
		expect(toFunctionCallingConfig("auto")).toEqual({ mode: "AUTO" });
		expect(toFunctionCallingConfig("none")).toEqual({ mode: "NONE" });
		expect(toFunctionCallingConfig("required")).toEqual({ mode: "ANY" });
		expect(toFunctionCallingConfig({ type: "tool", name: "x" })).toEqual({
			mode: "ANY",
			allowedFunctionNames: ["x"],
		});
	});
});

describe("SPEC C4: replay across models and providers", () => {
	it("another model: thinking becomes text, signatures and provider blocks dropped", () => {
		const body = buildGeminiRequest({ ...model, id: "gemini-2.5-pro" }, context);
		expect(body.contents[1]).toEqual({
			role: "model",
			parts: [
				{ text: "Let me look." },
				{ text: "Checking." },
				{ functionCall: { name: "read_file", args: { path: "a.txt" } } },
				{ functionCall: { name: "read_file", args: { path: "b.txt" } } },
			],
		});
	});

	it("compat.toolCallSignaturePlaceholder signs unsigned calls; compat.toolCallIds sends ids", () => {
		const compat = { toolCallSignaturePlaceholder: "skip_thought_signature_validator", toolCallIds: true };
		const foreign = assistant([{ type: "toolCall", id: "toolu_1", name: "read_file", arguments: {} }], {
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude",
		});
		const result: Message = {
			role: "toolResult",
			toolCallId: "toolu_1",
			toolName: "read_file",
			content: [{ type: "text", text: "x" }],
			isError: false,
			timestamp: 1,
		};
		const body = buildGeminiRequest({ ...model, compat }, { messages: [foreign, result] });
		expect(body.contents).toEqual([
			{
				role: "model",
				parts: [
					{
						functionCall: { name: "read_file", args: {}, id: "toolu_1" },
						thoughtSignature: "skip_thought_signature_validator",
					},
				],
			},
			{
				role: "user",
				parts: [{ functionResponse: { name: "read_file", response: { output: "x" }, id: "toolu_1" } }],
			},
		]);
	});

	it("tool-result images follow their functionResponse as inline data", () => {
		const result: Message = {
			role: "toolResult",
			toolCallId: "shot_0",
			toolName: "screenshot",
			content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
			isError: false,
			timestamp: 1,
		};
		expect(buildGeminiRequest(model, { messages: [result] }).contents).toEqual([
			{
				role: "user",
				parts: [
					{ functionResponse: { name: "screenshot", response: { output: "(see the attached image)" } } },
					{ inlineData: { mimeType: "image/png", data: "AAAA" } },
				],
			},
		]);
		// A type Gemini does not take: the response points at the note that replaces the image, not at an image.
		const bmp: Message = { ...result, content: [{ type: "image", data: "AAAA", mimeType: "image/bmp" }] };
		const [content] = buildGeminiRequest(model, { messages: [bmp] }).contents;
		expect(content?.parts?.[0]).toEqual({
			functionResponse: { name: "screenshot", response: { output: "(see below)" } },
		});
		expect(content?.parts?.[1]?.text).toMatch(/^\(image omitted: its type "image\/bmp"/);
	});
});

describe("catalog models carry their thinking controls (SPEC X5)", () => {
	it("Gemini 3 uses levels (off → the lowest), Gemini 2.5 Pro cannot switch thinking off", () => {
		const flash3 = getModel("google", "gemini-3-flash-preview");
		expect(geminiThinkingConfig(flash3, "medium")).toEqual({
			thinkingLevel: "MEDIUM",
			includeThoughts: true,
		});
		expect(geminiThinkingConfig(flash3, "off")).toEqual({ thinkingLevel: "MINIMAL", includeThoughts: true });
		expect(geminiThinkingConfig(getModel("google", "gemini-2.5-pro"), "off")).toEqual({
			thinkingBudget: 128,
			includeThoughts: true,
		});
		expect(geminiThinkingConfig(getModel("google", "gemini-2.5-flash"), "off")).toEqual({
			thinkingBudget: 0,
		});
	});
});
