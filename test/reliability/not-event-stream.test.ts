/**
 * Hardening item 5: a 200 that is not an event stream — a proxy's HTML login page, a JSON error — is not
 * "stream ended unexpectedly" (`network`): the call fails at once, not retried, naming the status, the
 * content type and a short redacted snippet of the body.
 */
import { describe, expect, it } from "vitest";
import { textOf } from "../providers/support/content.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { APIS, callApi, textBody } from "./support.js";

closeServersAfterEach();

const LOGIN_PAGE = `<!doctype html><html><body><h1>Sign in to Corp Proxy</h1><a href="/login?token=SENTINELTOKEN123">go</a>${"<p>filler</p>".repeat(200)}</body></html>`;

describe("a 200 that is not an event stream is a clear, final error (hardening item 5)", () => {
	for (const api of APIS) {
		it(`${api}: an HTML login page → malformed_response with status, content type and snippet`, async () => {
			const page = {
				type: "http" as const,
				status: 200,
				headers: { "content-type": "text/html; charset=utf-8" },
				body: LOGIN_PAGE,
			};
			const server = await serve(page, page);
			const { message } = await callApi(api, server.baseUrl);
			expect(message).toMatchObject({ stopReason: "error", errorKind: "malformed_response" });
			expect(message.errorMessage).toContain("HTTP 200");
			expect(message.errorMessage).toContain("text/html");
			expect(message.errorMessage).toContain("Sign in to Corp Proxy");
			expect(message.errorMessage).not.toContain("SENTINELTOKEN123");
			expect(message.errorMessage?.length).toBeLessThan(400);
			expect(server.requests).toHaveLength(1);
		});
	}

	it("a gateway's HTML error page on a 5xx reads as its text, not its markup", async () => {
		const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>502: Bad gateway</title><style>${"body{margin:0}".repeat(60)}</style></head><body><h1>Bad gateway</h1><p>The web server reported a bad gateway error.</p></body></html>`;
		const bad = { type: "http" as const, status: 502, headers: { "content-type": "text/html" }, body: page };
		const server = await serve(bad, bad, bad);
		const { message } = await callApi("openai-completions", server.baseUrl, { maxRetries: 0 });
		expect(message).toMatchObject({ stopReason: "error", errorKind: "server" });
		expect(message.errorMessage).toMatch(
			/^HTTP 502[^<]*: 502: Bad gateway Bad gateway The web server reported/,
		);
		expect(message.errorMessage).not.toContain("<");
	});

	it("a JSON error in a 200 states its own kind and message, not retried", async () => {
		const body = JSON.stringify({ error: { type: "authentication_error", message: "key revoked" } });
		const json = { type: "http" as const, status: 200, body };
		const server = await serve(json, json);
		const { message } = await callApi("openai-completions", server.baseUrl);
		expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
		expect(message.errorMessage).toContain("application/json");
		expect(message.errorMessage).toContain("key revoked");
		expect(server.requests).toHaveLength(1);
	});

	it("an event stream without a content type (some local servers) is still read", async () => {
		const server = await serve({
			type: "sse",
			body: textBody("openai-completions"),
			headers: { "content-type": "" },
		});
		const { message } = await callApi("openai-completions", server.baseUrl);
		expect(message.stopReason).toBe("stop");
		expect(textOf(message).length).toBeGreaterThan(0);
	});
});
