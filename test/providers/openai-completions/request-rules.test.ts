import { describe, expect, it } from "vitest";
import {
	buildOpenAICompletionsRequest,
	compatFor,
	presetNameFor,
	reasoningEffort,
	resolveCompat,
	wireToolCallId,
} from "../../../src/providers/openai-completions/index.js";
import { testModel } from "./helpers.js";
import { context, model, tools } from "./request-fixtures.js";

describe("Chat Completions request rules", () => {
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
			const gpt52 = testModel("x", { compat: { effortLevels: ["none", "low", "medium", "high", "xhigh"] } });
			expect(reasoningEffort(gpt52, compat, "off")).toBe("none");
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
			expect(presetNameFor("https://res.openai.azure.com/openai/deployments/d?api-version=1")).toBe("azure");
			expect(presetNameFor("https://api.openai.com/v1")).toBe("openai");
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

describe("which preset a model gets", () => {
	it("the base URL decides first (the server actually spoken to), then the provider name", () => {
		const local = resolveCompat(testModel("http://localhost:11434/v1", { provider: "openai" }));
		expect(local.requiresApiKey).toBe(false);
		expect(local.reasoningField).toBe("reasoning");
		const named = resolveCompat(testModel("http://gpu-box:9999/v1", { provider: "ollama" }));
		expect(named.requiresApiKey).toBe(false);
		const noReplay = resolveCompat(
			testModel("https://api.deepseek.com", { compat: { reasoningField: null } }),
		);
		expect(noReplay.reasoningField).toBeUndefined();
		const defaultEndpoint = resolveCompat({ ...testModel(""), baseUrl: undefined, provider: "acme" });
		expect(defaultEndpoint.maxTokensField).toBe("max_completion_tokens");
	});
});
