/**
 * User-facing advice in provider errors names fixes that exist (issue item 6): the missing-key message for
 * every API, each fix it names actually working through a real Agent over loopback, the hints on a refused
 * connection and a 404, the registry's and the catalog's advice — and no error text ever carries the key in
 * use, even when the server echoes it back (SPEC E3).
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { KnownApi, Model, RetryInfo } from "../../../src/core/model.js";
import { missingApiKeyMessage } from "../../../src/providers/base/advice.js";
import { redactSecrets } from "../../../src/providers/base/redact.js";
import { getModel } from "../../../src/providers/models.js";
import { createProviderRegistry, stream as registryStream } from "../../../src/providers/registry.js";
import { chatFacts } from "../openai-completions/facts.js";
import { textOf } from "../support/content.js";
import { withoutProviderKeysForEachTest } from "../support/env.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { testModel } from "../support/models.js";
import { HELLO } from "../support/transcript.js";

closeServersAfterEach();

const REPLY = firstBodyMatching(["openai-chat"], "e2aad469");
const REPLY_TEXT = chatFacts(REPLY).text;
const KEY = "sk-live-ABCDEF0123456789";

withoutProviderKeysForEachTest("CAPSTAN_ADVICE_KEY");

/** The case: a Chat Completions server labelled "local" on a custom port. */
const localModel = (baseUrl: string, overrides: Partial<Model> = {}): Model =>
	testModel("openai-completions", baseUrl, { provider: "local", id: "qwen3", ...overrides });

const APIS: KnownApi[] = [
	"anthropic-messages",
	"openai-completions",
	"openai-responses",
	"google-generative-ai",
];

describe("no API key: the message names the real fixes", () => {
	for (const api of APIS)
		it(`${api}, unknown provider: Agent streamOptions.apiKey, getApiKey, compat.apiKeyEnv, compat.requiresApiKey`, async () => {
			const model = testModel(api as "openai-completions", "http://127.0.0.1:9/v1", { provider: "local" });
			const message = await registryStream(model, HELLO).result();
			expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
			const text = message.errorMessage ?? "";
			expect(text).toBe(missingApiKeyMessage(model));
			expect(text).toContain('No API key for provider "local"');
			expect(text).toContain("new Agent({ streamOptions: { apiKey } })");
			expect(text).toContain("getApiKey: (provider) => key");
			expect(text).toContain('compat: { apiKeyEnv: "MY_API_KEY" }');
			expect(text).toContain("compat: { requiresApiKey: false }");
			// The old advice pointed at an option the Agent does not have.
			expect(text).not.toContain("set options.apiKey");
			expect(text.includes("openaiCompatible(")).toBe(api === "openai-completions");
		});

	it("a known provider names its environment variables first", () => {
		const google = testModel("google-generative-ai", "http://127.0.0.1:9");
		expect(missingApiKeyMessage(google)).toMatch(
			/^No API key for provider "google" \(model "gemini-2\.5-flash"\): set GEMINI_API_KEY or GOOGLE_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY, or pass one with new Agent/,
		);
		const custom = testModel("openai-completions", "http://127.0.0.1:9", {
			compat: { apiKeyEnv: "MY_GATEWAY_KEY" },
		});
		expect(missingApiKeyMessage(custom)).toContain("set MY_GATEWAY_KEY or OPENAI_API_KEY");
	});
});

describe("each fix the message names works (Agent on the default registry stream, loopback)", () => {
	it("without a fix the run ends with the advice and sends nothing", async () => {
		const server = await serve();
		const agent = new Agent({ model: localModel(`${server.baseUrl}/v1`) });
		await agent.prompt("hi");
		expect(agent.state.error).toContain("compat: { requiresApiKey: false }");
		expect(server.requests).toHaveLength(0);
	});

	const fixes: [string, (baseUrl: string) => Agent, string | undefined][] = [
		[
			"new Agent({ streamOptions: { apiKey } })",
			(url) => new Agent({ model: localModel(url), streamOptions: { apiKey: KEY } }),
			`Bearer ${KEY}`,
		],
		["getApiKey", (url) => new Agent({ model: localModel(url), getApiKey: () => KEY }), `Bearer ${KEY}`],
		[
			"compat.apiKeyEnv",
			(url) => {
				process.env.CAPSTAN_ADVICE_KEY = KEY;
				return new Agent({ model: localModel(url, { compat: { apiKeyEnv: "CAPSTAN_ADVICE_KEY" } }) });
			},
			`Bearer ${KEY}`,
		],
		[
			"compat.requiresApiKey: false",
			(url) => new Agent({ model: localModel(url, { compat: { requiresApiKey: false } }) }),
			undefined,
		],
	];
	for (const [name, agentAt, authorization] of fixes)
		it(name, async () => {
			const server = await serve({ type: "sse", body: REPLY });
			const agent = agentAt(`${server.baseUrl}/v1`);
			await agent.prompt("hi");
			expect(agent.state.error).toBeUndefined();
			const reply = agent.state.messages.at(-1);
			expect(reply?.role === "assistant" ? textOf(reply) : "").toBe(REPLY_TEXT);
			expect(server.requests[0]?.headers.authorization).toBe(authorization);
		});
});

describe("the key never appears in an error text (SPEC E3)", () => {
	it("a 401 that echoes the key: the message and every event show [redacted]", async () => {
		const server = await serve({
			type: "http",
			status: 401,
			body: JSON.stringify({
				error: { message: `Incorrect API key provided: ${KEY}.`, code: "invalid_api_key" },
			}),
		});
		const stream = registryStream(localModel(`${server.baseUrl}/v1`), HELLO, { apiKey: KEY });
		const events = [];
		for await (const event of stream) events.push(event);
		const message = await stream.result();
		expect(message.errorKind).toBe("auth");
		expect(message.errorMessage).toBe("HTTP 401 Unauthorized: Incorrect API key provided: [redacted].");
		expect(JSON.stringify(events)).not.toContain(KEY);
	});

	it("a retried 500 that echoes the key: onRetry sees it redacted too", async () => {
		const server = await serve(
			{ type: "http", status: 500, body: JSON.stringify({ error: { message: `upstream rejected ${KEY}` } }) },
			{ type: "sse", body: REPLY },
		);
		const retries: RetryInfo[] = [];
		const message = await registryStream(localModel(`${server.baseUrl}/v1`), HELLO, {
			apiKey: KEY,
			retryBaseDelayMs: 1,
			onRetry: (info) => retries.push(info),
		}).result();
		expect(message.stopReason).toBe("stop");
		expect(retries.map((retry) => retry.errorMessage)).toEqual([
			"HTTP 500 Internal Server Error: upstream rejected [redacted]",
		]);
	});

	it("the key is masked by one rule in retry reports and in the reply alike (SPEC E3)", () => {
		expect(redactSecrets(`a ${KEY} b ${KEY}`, [KEY])).toBe("a [redacted] b [redacted]");
		expect(redactSecrets("keep k here", ["k"])).toBe("keep k here");
		expect(redactSecrets("nothing", [undefined])).toBe("nothing");
	});
});

describe("hints on the two commonest local-server mistakes", () => {
	it("a refused connection says nothing listens there", async () => {
		const server = await serve();
		const baseUrl = `${server.baseUrl}/v1`;
		await server.close();
		const message = await registryStream(localModel(baseUrl), HELLO, { apiKey: KEY, maxRetries: 0 }).result();
		expect(message.errorKind).toBe("network");
		expect(message.errorMessage).toContain(
			`nothing is listening at ${server.baseUrl}: is the server running, and is model.baseUrl right?`,
		);
	});

	it("a 404 shows the URL that was tried (a base URL missing its /v1), without the query", async () => {
		const server = await serve({ type: "http", status: 404, body: "404 page not found" });
		const message = await registryStream(localModel(`${server.baseUrl}?tenant=a`), HELLO, {
			apiKey: KEY,
		}).result();
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toBe(
			`HTTP 404 Not Found: 404 page not found (from POST ${server.baseUrl}/chat/completions)`,
		);
	});

	it("an unusable base URL says what one looks like", async () => {
		const message = await registryStream(localModel("localhost:11434/v1"), HELLO, { apiKey: KEY }).result();
		expect(message.errorMessage).toContain(
			"model.baseUrl must be an absolute http(s) URL such as http://localhost:11434/v1",
		);
	});
});

describe("registry and catalog advice", () => {
	it("an unregistered api names streamFn and createProviderRegistry", async () => {
		const registry = createProviderRegistry({});
		const model = { ...localModel("http://127.0.0.1:9"), api: "acme-chat" };
		const message = await registry.stream(model, HELLO).result();
		expect(message.errorMessage).toContain('No provider registered for api "acme-chat" (registered: none)');
		expect(message.errorMessage).toContain("streamFn");
		expect(message.errorMessage).toContain('createProviderRegistry({ "acme-chat": yourStreamFunction');
	});

	it("an unknown catalog provider points at openaiCompatible", () => {
		expect(() => getModel("ollama", "qwen3")).toThrow(
			/openaiCompatible\(\{ baseUrl, model \}\) from "capstan\/openai"/,
		);
	});
});
