/**
 * Hardening item 3: a `baseUrl` carrying a query string (Azure `?api-version=…`, a Gemini `?key=…` proxy)
 * keeps the query at the end of the URL on every API; the path goes before it.
 */
import { describe, expect, it } from "vitest";
import { joinUrl } from "../../src/providers/base/run-stream.js";
import { textOf } from "../providers/support/content.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { APIS, callApi, textBody } from "./support.js";

closeServersAfterEach();

const PATHS = {
	"anthropic-messages": "/v1/messages?api-version=2025-01-01",
	"openai-completions": "/v1/chat/completions?api-version=2025-01-01",
	"openai-responses": "/v1/responses?api-version=2025-01-01",
	"google-generative-ai": "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse&api-version=2025-01-01",
} as const;

describe("a query in baseUrl stays at the end of the URL (hardening item 3)", () => {
	for (const api of APIS)
		it(`${api}: the path goes before the query`, async () => {
			const server = await serve({ type: "sse", body: textBody(api), split: false });
			// Anthropic's base URL is the origin (the path adds /v1); the others include the version segment.
			const prefix = api === "anthropic-messages" ? "" : "/v1";
			const { message } = await callApi(api, `${server.baseUrl}${prefix}?api-version=2025-01-01`);
			expect(message.stopReason).toBe("stop");
			expect(textOf(message).length).toBeGreaterThan(0);
			expect(server.requests[0]?.path).toBe(PATHS[api]);
		});

	it("joinUrl merges a query in the path with one in the base, and a base without one joins as before", () => {
		expect(joinUrl("https://h/v1?key=k", "models/m:stream?alt=sse")).toBe(
			"https://h/v1/models/m:stream?alt=sse&key=k",
		);
		expect(joinUrl("https://h/v1/?a=1&b=2", "/responses")).toBe("https://h/v1/responses?a=1&b=2");
		expect(joinUrl("https://h/v1/", "/responses")).toBe("https://h/v1/responses");
		expect(joinUrl("https://h/v1?", "responses")).toBe("https://h/v1/responses");
	});
});
