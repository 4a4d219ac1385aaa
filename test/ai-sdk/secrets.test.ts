/**
 * SPEC E3 through the AI SDK bridge: a real AI SDK provider (`@ai-sdk/openai-compatible`) against a loopback
 * server that quotes the key back. The AI SDK model holds its own key, so capstan masks what it knows: the
 * key-shaped ones always, and any key the host also names as `streamOptions.apiKey`.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterEach, describe, expect, it, vi } from "vitest";
import { aiSdkModel } from "../../src/ai-sdk/index.js";
import { collectStream } from "../providers/support/collect.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { jsonResponse } from "../providers/support/replay-server.js";
import { HELLO } from "../providers/support/transcript.js";

closeServersAfterEach();
afterEach(() => vi.unstubAllEnvs());

async function refusedWith(key: string, apiKey?: string, apiKeyEnv?: string) {
	const server = await serve(
		jsonResponse(401, { error: { message: `Incorrect API key provided: ${key}`, type: "auth" } }),
	);
	const languageModel = createOpenAICompatible({
		name: "gw",
		baseURL: `${server.baseUrl}/v1`,
		apiKey: key,
	}).chatModel("m");
	const { model, streamFn } = aiSdkModel(
		languageModel,
		apiKeyEnv ? { model: { compat: { apiKeyEnv } } } : {},
	);
	const { message, events } = await collectStream(
		streamFn(model, HELLO, { maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) }),
	);
	expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
	return { message, text: JSON.stringify([message, events]) };
}

describe("the AI SDK bridge masks keys in error texts (SPEC E3)", () => {
	it("a key-shaped key the server quotes back is masked", async () => {
		const { message, text } = await refusedWith("sk-proj-SENTINEL0123456789abcdef");
		expect(message.errorKind).toBe("auth");
		expect(message.errorMessage).toContain("Incorrect API key provided: [redacted]");
		expect(text).not.toContain("SENTINEL");
	});

	it("a key of any shape is masked when the host names it as streamOptions.apiKey too", async () => {
		const { message, text } = await refusedWith("plainSENTINELkey0123456", "plainSENTINELkey0123456");
		expect(message.errorMessage).toContain("Incorrect API key provided: [redacted]");
		expect(text).not.toContain("SENTINEL");
	});

	it("a key of any shape is masked when the host names its variable as compat.apiKeyEnv", async () => {
		vi.stubEnv("GATEWAY_TOKEN", "plainSENTINELkey0123456");
		const { text } = await refusedWith("plainSENTINELkey0123456", undefined, "GATEWAY_TOKEN");
		expect(text).toContain("Incorrect API key provided: [redacted]");
		expect(text).not.toContain("SENTINEL");
	});
});
