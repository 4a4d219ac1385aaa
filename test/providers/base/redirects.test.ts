/**
 * Redirects keep the key at home: a provider request follows a redirect only within its base URL's origin, so
 * `x-api-key`, `x-goog-api-key` and custom headers never reach another server (SPEC E3: secrets never leave).
 * Two loopback servers on different ports are two origins.
 */
import { describe, expect, it } from "vitest";
import { ModelError, resolveModel } from "../../../src/cli/models.js";
import { collect, testModel } from "../anthropic/helpers.js";
import { collect as collectGemini, geminiModel } from "../google/helpers.js";
import { textOf } from "../support/content.js";
import { fixtureBytes } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import type { ScriptedResponse } from "../support/replay-server.js";
import { HELLO } from "../support/transcript.js";

closeServersAfterEach();

const KEY = "sk-ant-secret-key-0123456789";
const redirect = (status: number, location: string): ScriptedResponse => ({
	type: "http",
	status,
	headers: { location },
	body: "",
});
const okBody = (): ScriptedResponse => ({
	type: "sse",
	body: fixtureBytes("anthropic-messages/test_prompt.sse"),
});
const FAST = { retryBaseDelayMs: 1 };

describe("a redirect to another origin is refused (SPEC E3)", () => {
	it("Anthropic: the other server never sees the request, and the error names where to point baseUrl", async () => {
		const elsewhere = await serve(okBody());
		const home = await serve(redirect(307, `${elsewhere.baseUrl}/v1/messages`));
		const { message, events } = await collect(
			testModel(home.baseUrl, { headers: { "x-custom": "c-secret" } }),
			{
				...FAST,
				apiKey: KEY,
			},
		);
		expect(elsewhere.requests).toEqual([]);
		expect(home.requests).toHaveLength(1); // not retried
		expect(message).toMatchObject({ stopReason: "error", errorKind: "invalid_request" });
		expect(message.errorMessage).toContain(`redirect to ${elsewhere.baseUrl}/v1/messages`);
		expect(message.errorMessage).toContain("model.baseUrl");
		const seen = JSON.stringify(events);
		expect(seen).not.toContain(KEY);
		expect(seen).not.toContain("c-secret");
	});

	it("Gemini: x-goog-api-key stays home on a 308 as well", async () => {
		const elsewhere = await serve();
		const home = await serve(redirect(308, `${elsewhere.baseUrl}/v1beta/models/x:streamGenerateContent`));
		const { message } = await collectGemini(geminiModel(home.baseUrl), HELLO, { apiKey: KEY });
		expect(elsewhere.requests).toEqual([]);
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toContain(elsewhere.baseUrl);
	});

	it("http → https on the same host and port is another origin too", async () => {
		const home = await serve(redirect(307, "https://127.0.0.1:1/v1/messages"));
		const { message } = await collect(testModel(home.baseUrl), { ...FAST, apiKey: KEY });
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toContain("redirect to https://127.0.0.1:1/v1/messages, another origin");
	});

	it("the error shows neither the target's query nor its credentials", async () => {
		const home = await serve(redirect(302, "http://user:pw-secret@127.0.0.1:1/v1?key=q-secret"));
		const { message } = await collect(testModel(home.baseUrl), { ...FAST, apiKey: KEY });
		expect(message.errorMessage).toContain("redirect to http://127.0.0.1:1/v1,");
		expect(message.errorMessage).not.toMatch(/pw-secret|q-secret|user/);
	});

	it("the CLI's model listing refuses it too, and says to pass --base-url", async () => {
		const elsewhere = await serve({ type: "http", status: 200, body: '{"data":[{"id":"m"}]}' });
		const home = await serve(redirect(307, `${elsewhere.baseUrl}/v1/models`));
		const asking = resolveModel({ baseUrl: `${home.baseUrl}/v1`, apiKey: KEY });
		await expect(asking).rejects.toThrow(ModelError);
		await expect(asking).rejects.toThrow(/another origin.*--base-url/);
		expect(elsewhere.requests).toEqual([]);
	});
});

describe("a redirect within the origin is followed", () => {
	it.each([307, 308])("%i keeps method, body and key, and the stream decodes", async (status) => {
		const home = await serve(redirect(status, "/moved/v1/messages"), okBody());
		const { message } = await collect(testModel(home.baseUrl), { ...FAST, apiKey: KEY });
		expect(message.stopReason).toBe("stop");
		expect(textOf(message).length).toBeGreaterThan(0);
		const [first, second] = home.requests;
		expect(second).toMatchObject({ method: "POST", path: "/moved/v1/messages", body: first?.body });
		expect(second?.headers["x-api-key"]).toBe(KEY);
	});

	it("a 301 for a POST is refused: fetch would resend it as a GET without its body", async () => {
		const home = await serve(redirect(301, "/moved/v1/messages"));
		const { message } = await collect(testModel(home.baseUrl), { ...FAST, apiKey: KEY });
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toContain("would turn the POST into a GET");
		expect(home.requests).toHaveLength(1);
	});

	it("at most 5 redirects are followed", async () => {
		const loop = Array.from({ length: 6 }, () => redirect(307, "/again"));
		const home = await serve(...loop);
		const { message } = await collect(testModel(home.baseUrl), { ...FAST, apiKey: KEY });
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toContain("more than 5 redirects");
		expect(home.requests).toHaveLength(6);
	});
});

describe("a host's fetch", () => {
	it("is asked for redirect: manual, and an opaque redirect (browsers, edge) ends with a clear error", async () => {
		const inits: RequestInit[] = [];
		// A browser's answer to redirect: "manual": status 0, no headers, type "opaqueredirect".
		const browserFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
			inits.push(init ?? {});
			return { type: "opaqueredirect", status: 0, ok: false, headers: new Headers(), body: null };
		}) as unknown as typeof fetch;
		const { message } = await collect(testModel("http://127.0.0.1:1"), {
			...FAST,
			apiKey: KEY,
			fetch: browserFetch,
		});
		expect(inits.map((init) => init.redirect)).toEqual(["manual"]);
		expect(message.errorKind).toBe("invalid_request");
		expect(message.errorMessage).toContain("redirect this runtime does not let capstan inspect");
	});
});
