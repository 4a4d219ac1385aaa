/**
 * `openaiCompatible(...)`: the model and key wiring it builds, its input checks, and a real `Agent` on the
 * default registry stream talking to the loopback server replaying recorded llama.cpp and OpenAI streams —
 * with every provider key variable cleared, so "keyless" is proven, not inherited from the machine.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import * as providers from "../../../src/providers/index.js";
import { resolveCompat } from "../../../src/providers/openai-completions/compat.js";
import { LOCAL_SERVER_BASE_URLS, openaiCompatible } from "../../../src/providers/openai-completions/index.js";
import { stream as registryStream } from "../../../src/providers/registry.js";
import { runArithmeticTurn } from "../support/agent-turn.js";
import { textOf } from "../support/content.js";
import { withoutProviderKeysForEachTest } from "../support/env.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { HELLO } from "../support/transcript.js";
import { chatFacts } from "./facts.js";

closeServersAfterEach();

const LLAMACPP = ["openai-compatible-llamacpp"];
const OPENAI = ["openai-chat"];
const FAST = { retryBaseDelayMs: 1 };

withoutProviderKeysForEachTest("CAPSTAN_TEST_COMPAT_KEY");

describe("openaiCompatible: the model it builds", () => {
	it("is exported from capstan/providers as well as capstan/openai", () => {
		expect(providers.openaiCompatible).toBe(openaiCompatible);
		expect(providers.LOCAL_SERVER_BASE_URLS).toBe(LOCAL_SERVER_BASE_URLS);
	});

	it("a local server: Chat Completions, preset from the port, keyless, no output cap sent, free", () => {
		const { model, getApiKey } = openaiCompatible({
			baseUrl: "http://localhost:11434/v1/",
			model: "qwen3:8b",
		});
		expect(model).toEqual({
			id: "qwen3:8b",
			api: "openai-completions",
			provider: "ollama",
			baseUrl: "http://localhost:11434/v1",
			reasoning: false,
			input: ["text"],
			contextWindow: 32_768,
			maxTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			compat: { preset: "ollama", requiresApiKey: false },
		});
		expect(getApiKey).toBeUndefined();
		// The Ollama preset's own quirks apply (reasoning comes back in `reasoning`).
		expect(resolveCompat(model)).toMatchObject({ requiresApiKey: false, reasoningField: "reasoning" });
	});

	it("a local preset without baseUrl uses that server's default port; the four defaults are the documented ones", () => {
		expect(LOCAL_SERVER_BASE_URLS).toEqual({
			ollama: "http://localhost:11434/v1",
			llamacpp: "http://localhost:8080/v1",
			vllm: "http://localhost:8000/v1",
			lmstudio: "http://localhost:1234/v1",
		});
		for (const preset of ["ollama", "llamacpp", "vllm", "lmstudio"] as const) {
			const { model } = openaiCompatible({ preset, model: "m" });
			expect(model.baseUrl).toBe(LOCAL_SERVER_BASE_URLS[preset]);
			expect(model.provider).toBe(preset);
			expect(resolveCompat(model).requiresApiKey).toBe(false);
		}
	});

	it("an unknown server is labelled openai-compatible with the default flags; every option lands", () => {
		const { model } = openaiCompatible({
			baseUrl: "http://10.0.0.7:9000/api/v1/chat/completions",
			model: "my-model",
			name: "My model",
			provider: "lab",
			contextWindow: 131_072,
			maxTokens: 2048,
			reasoning: true,
			input: ["text", "image"],
			cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0 },
			headers: { "x-team": "infra" },
			compat: { supportsUsageInStreaming: false, reasoningField: "reasoning_content" },
		});
		expect(model).toMatchObject({
			id: "my-model",
			name: "My model",
			provider: "lab",
			// A pasted endpoint is trimmed back to the API root.
			baseUrl: "http://10.0.0.7:9000/api/v1",
			contextWindow: 131_072,
			maxTokens: 2048,
			reasoning: true,
			input: ["text", "image"],
			headers: { "x-team": "infra" },
		});
		expect(model.compat).toEqual({
			// The cap every request sends unless it sets its own (a model's maxTokens alone is its ceiling).
			defaultMaxTokens: 2048,
			supportsUsageInStreaming: false,
			reasoningField: "reasoning_content",
			requiresApiKey: false,
		});
		expect(resolveCompat(model)).toMatchObject({
			supportsUsageInStreaming: false,
			reasoningField: "reasoning_content",
		});
		expect(openaiCompatible({ baseUrl: "http://10.0.0.7:9000/v1", model: "m" }).model.provider).toBe(
			"openai-compatible",
		);
	});

	it("`null` clears a preset's optional flag", () => {
		const { model } = openaiCompatible({ preset: "llamacpp", model: "m", compat: { reasoningField: null } });
		expect(resolveCompat(model).reasoningField).toBeUndefined();
	});

	it("an apiKey stays out of the model (plain data) and is handed out only for this provider label", () => {
		const secret = "sk-local-0123456789";
		const setup = openaiCompatible({ preset: "vllm", model: "Qwen/Qwen3-8B", apiKey: secret });
		expect(JSON.stringify(setup)).not.toContain(secret);
		expect(setup.model.compat?.requiresApiKey).toBe(true);
		expect(setup.getApiKey?.("vllm")).toBe(secret);
		expect(setup.getApiKey?.("anthropic")).toBeUndefined();
	});

	it("a hosted preset still wants its key (from its variable), and says how to give it", async () => {
		const { model } = openaiCompatible({ baseUrl: "https://openrouter.ai/api/v1", model: "x/y" });
		expect(model.provider).toBe("openrouter");
		const message = await registryStream(model, HELLO).result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
		expect(message.errorMessage).toContain("OPENROUTER_API_KEY");
	});

	it.each([
		[{ model: "m" }, /`baseUrl` is required/],
		[{ baseUrl: "localhost:11434/v1", model: "m" }, /absolute http\(s\) URL.*"localhost:11434\/v1"/],
		[{ baseUrl: "ftp://host/v1", model: "m" }, /absolute http\(s\) URL/],
		[{ baseUrl: "http://localhost:8080/v1", model: "" }, /`model` must be the model id/],
		[
			{ baseUrl: "http://localhost:8080/v1", model: "m", maxTokens: -1 },
			/`maxTokens` must be a whole number/,
		],
		[{ baseUrl: "http://localhost:8080/v1", model: "m", contextWindow: 1.5 }, /`contextWindow` must be/],
	])("bad input %j → a TypeError naming the fix", (options, why) => {
		expect(() => openaiCompatible(options as Parameters<typeof openaiCompatible>[0])).toThrow(TypeError);
		expect(() => openaiCompatible(options as Parameters<typeof openaiCompatible>[0])).toThrow(why);
	});
});

describe("Agent × openaiCompatible over loopback (no key anywhere in the environment)", () => {
	it("llama.cpp: an error event before any content is retried, then the recorded reply (with `timings`) lands", async () => {
		const server = await serve(
			{ type: "sse", body: firstBodyMatching(LLAMACPP, "error-event-only"), split: { seed: 2 } },
			{ type: "sse", body: firstBodyMatching(LLAMACPP, "length-timings"), split: { seed: 7 } },
		);
		const retries: string[] = [];
		const agent = new Agent({
			...openaiCompatible({
				baseUrl: `${server.baseUrl}/v1`,
				model: "rand-qwen2-tiny.gguf",
				preset: "llamacpp",
			}),
			streamOptions: { ...FAST, onRetry: (info) => retries.push(`${info.errorKind}: ${info.errorMessage}`) },
		});
		await agent.prompt("Say something.");

		expect(agent.state.error).toBeUndefined();
		expect(retries).toEqual([
			"server: The model produced output that does not match the expected peg-native format",
		]);
		const reply = agent.state.messages.at(-1);
		expect(reply).toMatchObject({ role: "assistant", stopReason: "length", provider: "llamacpp" });
		if (reply?.role !== "assistant") throw new Error("no reply");
		expect(textOf(reply)).toBe(chatFacts(firstBodyMatching(LLAMACPP, "length-timings")).text);
		expect(server.requests).toHaveLength(2);
		for (const request of server.requests) {
			expect(request.path).toBe("/v1/chat/completions");
			expect(request.headers.authorization).toBeUndefined();
			const body = JSON.parse(request.body) as Record<string, unknown>;
			expect(body).toMatchObject({ model: "rand-qwen2-tiny.gguf", stream: true });
			// maxTokens 0: the server's own limit, no cap field at all.
			expect(body.max_tokens).toBeUndefined();
		}
	});

	it("llama.cpp: an error event after content ends the run as an error with the partial text kept, not retried", async () => {
		const server = await serve({
			type: "sse",
			body: firstBodyMatching(LLAMACPP, "text-then-error"),
			split: { seed: 5 },
		});
		const agent = new Agent({
			...openaiCompatible({ baseUrl: `${server.baseUrl}/v1`, model: "rand-qwen2-0.5b-shape.gguf" }),
			streamOptions: FAST,
		});
		await agent.prompt("Say something.");

		expect(agent.state.error).toBe(
			"The model produced output that does not match the expected peg-native format",
		);
		const reply = agent.state.messages.at(-1);
		expect(reply).toMatchObject({ role: "assistant", stopReason: "error", errorKind: "server" });
		if (reply?.role !== "assistant") throw new Error("no reply");
		expect(textOf(reply)).toBe(chatFacts(firstBodyMatching(LLAMACPP, "text-then-error")).text);
		expect(textOf(reply)).toMatch(/^toddler.+ decided$/);
		expect(server.requests).toHaveLength(1);
	});

	it("OpenAI recordings: parallel tool calls run, results go back, then text; the given key is sent", async () => {
		const server = await serve(
			{ type: "sse", body: firstBodyMatching(OPENAI, "multi_tool_streaming"), split: { seed: 3 } },
			{ type: "sse", body: firstBodyMatching(OPENAI, "e2aad469"), split: { seed: 4 } },
		);
		const agent = await runArithmeticTurn(
			openaiCompatible({ baseUrl: `${server.baseUrl}/v1`, model: "gpt-5", apiKey: "sk-gateway-key-1" }),
		);
		expect(server.requests.map((r) => r.headers.authorization)).toEqual([
			"Bearer sk-gateway-key-1",
			"Bearer sk-gateway-key-1",
		]);
		const second = JSON.parse(server.requests[1]?.body ?? "{}") as { messages: { role: string }[] };
		expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
		// The key never lands in state.
		expect(JSON.stringify(agent.state)).not.toContain("sk-gateway-key-1");
	});

	it("nothing listening: the run ends as a network error that says so (no throw)", async () => {
		const server = await serve();
		const baseUrl = `${server.baseUrl}/v1`;
		await server.close();
		const agent = new Agent({
			model: openaiCompatible({ baseUrl, model: "m" }).model,
			streamOptions: { maxRetries: 0 },
		});
		await agent.prompt("hi");
		expect(agent.state.error).toMatch(
			/nothing is listening at http:\/\/127\.0\.0\.1:\d+: is the server running/,
		);
	});
});
