/**
 * Hardening item 2: the key in use never leaves the provider layer. A 401 body echoing it, an invalid
 * `baseUrl` with `?key=`, a retried error: the key is redacted in `errorMessage`, the events, `onRetry`,
 * `agent_end.outcome`, the telemetry record (`onModelCall`) and the OpenTelemetry span status, on all four
 * APIs (SPEC E3). Test with a sentinel key that no real text contains.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import {
	BasicTracerProvider,
	InMemorySpanExporter,
	SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/core/event-stream.js";
import type { AssistantMessageEvent } from "../../src/core/events.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import type { RetryInfo, StreamFunction } from "../../src/core/model.js";
import { agentLoop } from "../../src/index.js";
import { openTelemetry } from "../../src/otel.js";
import type { AgentEvent } from "../../src/protocol/events.js";
import type { ModelCallRecord } from "../../src/protocol/telemetry.js";
import { redactSecrets } from "../../src/providers/base/redact.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { testModel } from "../providers/support/models.js";
import { jsonResponse } from "../providers/support/replay-server.js";
import { APIS, callApi, FAST } from "./support.js";

closeServersAfterEach();

const KEY = "sk-proj-SENTINEL0123456789abcdefSENTINEL";
const echoing = (status = 401) =>
	jsonResponse(status, { error: { message: `Incorrect API key provided: ${KEY}.` } });

/** Everything a host can see of a failed call, as one string to search. */
const seen = (...parts: unknown[]): string => JSON.stringify(parts);

describe("the key in use is redacted wherever error text leaves the provider layer (hardening item 2)", () => {
	for (const api of APIS) {
		it(`${api}: a 401 echoing the key keeps the rest of the message, not the key`, async () => {
			const server = await serve(echoing());
			const { message, events } = await callApi(api, server.baseUrl, { apiKey: KEY });
			expect(message.errorKind).toBe("auth");
			expect(message.errorMessage).toContain("Incorrect API key provided");
			expect(message.errorMessage).toContain("[redacted]");
			expect(seen(message, events)).not.toContain("SENTINEL");
		});

		it(`${api}: a retried 500 echoing the key is redacted in onRetry too`, async () => {
			const server = await serve(echoing(500), echoing(500));
			const retries: RetryInfo[] = [];
			const { message } = await callApi(api, server.baseUrl, {
				apiKey: KEY,
				maxRetries: 1,
				onRetry: (info) => retries.push(info),
			});
			expect(retries).toHaveLength(1);
			expect(seen(message, retries)).not.toContain("SENTINEL");
		});

		it(`${api}: an invalid baseUrl carrying ?key= is not echoed whole`, async () => {
			const { message } = await callApi(api, `not a url?key=${KEY}&x=1`, { apiKey: KEY });
			expect(message.errorMessage).toContain("invalid base URL");
			expect(message.errorMessage).not.toContain("SENTINEL");
		});

		it(`${api}: a baseUrl with a proxy password in it is not echoed whole`, async () => {
			// fetch refuses a URL with credentials and quotes it whole; nothing is sent.
			const withPassword = "http://proxyuser:SENTINELpassword@127.0.0.1:9/v1";
			const { message } = await callApi(api, withPassword, { apiKey: KEY });
			expect(message.errorKind).toBe("network");
			expect(message.errorMessage).toContain("proxyuser");
			expect(message.errorMessage).not.toContain("SENTINEL");
		});
	}

	it("agent_end.outcome, onModelCall records and the OTel span status never hold the key", async () => {
		const server = await serve(echoing());
		const exporter = new InMemorySpanExporter();
		const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
		const records: ModelCallRecord[] = [];
		const stream = agentLoop(
			[{ role: "user", content: "hi", timestamp: 1 }],
			{ messages: [], tools: [] },
			{
				model: testModel("openai-completions", server.baseUrl),
				streamOptions: { apiKey: KEY, ...FAST },
				telemetry: {
					onModelCall: (record) => records.push(record),
					sinks: [openTelemetry(provider.getTracer("t"))],
				},
			},
		);
		const events: AgentEvent[] = [];
		for await (const event of stream) events.push(event);
		const end = events.at(-1);
		expect(end).toMatchObject({ type: "agent_end", outcome: { type: "error" } });
		expect(seen(end)).toContain("Incorrect API key provided");
		expect(records).toHaveLength(1);
		expect(records[0]?.errorMessage).toContain("[redacted]");
		const spans = exporter.getFinishedSpans();
		const failed = spans.filter((span) => span.status.code === SpanStatusCode.ERROR);
		expect(failed.length).toBeGreaterThan(0);
		expect(failed.map((span) => span.status.message).join(" ")).toContain("Incorrect API key provided");
		const spanText = seen(
			spans.map((span) => ({ status: span.status, attributes: span.attributes, events: span.events })),
		);
		expect(seen(events, records) + spanText).not.toContain("SENTINEL");
	});
});

describe("redactSecrets", () => {
	it("masks the given secrets, key-shaped tokens, key query parameters and auth headers", () => {
		const text = [
			"key my-own-secret-value echoed",
			"Bearer abc.def-ghi",
			"https://h/v1?key=AIzaSyA0123456789abcdefghijklmnopqrstu&alt=sse",
			"x-api-key: sk-ant-api03-abcdefghijklmnop",
			'"authorization":"Bearer tok_0123456789"',
			"api-key=zzz123",
			"http://user:pa55word@proxy:8080/v1 and ftp://:onlypass@h/",
		].join("\n");
		const out = redactSecrets(text, ["my-own-secret-value"]);
		for (const secret of [
			"my-own-secret-value",
			"abc.def-ghi",
			"AIzaSy",
			"sk-ant-api03",
			"tok_0123456789",
			"zzz123",
			"pa55word",
			"onlypass",
		])
			expect(out).not.toContain(secret);
		expect(out).toContain("alt=sse");
		expect(out).toContain("echoed");
		expect(out).toContain("http://user:[redacted]@proxy:8080/v1");
	});

	it("masks credentials a tool or proxy echoes in other shapes: any auth scheme, bare name=value, GitHub and Hugging Face tokens", () => {
		const text = [
			"Authorization: token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
			"api_key=abcdef123456",
			"ANTHROPIC_API_KEY=plainvalue987",
			"token: hf_abcdefghijklmnopqrstuvwxyz",
			"cloned with github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
		].join("\n");
		const out = redactSecrets(text);
		for (const secret of ["ghp_", "abcdef123456", "plainvalue987", "hf_", "github_pat_"])
			expect(out).not.toContain(secret);
		expect(out).toContain("cloned with");
	});

	it("leaves the prose of real auth errors readable: no word after Authorization: or Bearer is taken for a credential", () => {
		// OpenAI's answer to a request without a key, and a gateway's.
		const openai =
			"You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)";
		expect(redactSecrets(openai)).toBe(
			"You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer [redacted])",
		);
		const gateway = "Missing Authorization: please provide a valid token";
		expect(redactSecrets(gateway)).toBe(gateway);
		expect(redactSecrets("Authorization: invalid credentials supplied")).toBe(
			"Authorization: invalid credentials supplied",
		);
		// Credentials after any of the usual schemes still go.
		expect(
			redactSecrets("Authorization: Basic YWxpY2U6czNjcmV0 and Authorization: SSWS 00abcdEFGH1234"),
		).toBe("Authorization: Basic [redacted] and Authorization: SSWS [redacted]");
	});

	it("leaves ordinary text alone and ignores empty or tiny secrets", () => {
		const text = "HTTP 400: max_tokens must be at most 8192 (skip this)";
		expect(redactSecrets(text, ["", "a"])).toBe(text);
	});
});

describe("credentials besides the key are redacted too: headers the host adds and the base URL's own (SPEC E3)", () => {
	/** A gateway that refuses the request, quoting back the credentials it was sent (values only, no names). */
	const quoting = (...values: string[]) =>
		jsonResponse(401, { error: { message: `gateway refused credentials ${values.join(" and ")}` } });

	for (const api of APIS) {
		it(`${api}: credential values from model.headers and options.headers, not key-shaped, are masked`, async () => {
			const gateway = "gwSENTINELgatewaykey42";
			const proxyToken = "pxSENTINELproxytoken77";
			const server = await serve(quoting(gateway, proxyToken, "my-app-title", "req-0042-abcdef"));
			const { message, events } = await callApi(
				api,
				server.baseUrl,
				{ apiKey: KEY, headers: { "cf-aig-authorization": `Bearer ${proxyToken}` } },
				{
					headers: {
						"X-Gateway-Api-Key": gateway,
						"X-Title": "my-app-title",
						"Idempotency-Key": "req-0042-abcdef",
					},
				},
			);
			expect(message.errorKind).toBe("auth");
			expect(message.errorMessage).toContain("gateway refused credentials [redacted] and [redacted]");
			// A header that is no credential keeps its value: it may be what the error is about.
			expect(message.errorMessage).toContain("my-app-title and req-0042-abcdef");
			expect(seen(message, events)).not.toContain("SENTINEL");
		});

		it(`${api}: a key with a line break inside (two pasted keys), which fetch refuses and quotes, is masked`, async () => {
			// fetch refuses a header value with a line break inside and quotes it whole; nothing is sent.
			const server = await serve(echoing());
			const { message } = await callApi(api, server.baseUrl, {
				apiKey: "plainSENTINELkey0123456\nplainSENTINELsecond789",
			});
			expect(message.stopReason).toBe("error");
			expect(server.requests).toHaveLength(0);
			expect(message.errorMessage).toContain("invalid header value");
			expect(message.errorMessage).not.toContain("SENTINEL");
			const header = await callApi(
				api,
				server.baseUrl,
				{ apiKey: KEY },
				{ headers: { "x-gateway-token": "gwSENTINELtoken42\ngwSENTINELother77" } },
			);
			expect(header.message.errorMessage).toContain("invalid header value");
			expect(header.message.errorMessage).not.toContain("SENTINEL");
		});

		it(`${api}: a credential in the base URL's query, under any name, is masked`, async () => {
			const server = await serve(quoting("qSENTINELquerycode55"), quoting("qSENTINELquerycode55"));
			const retries: RetryInfo[] = [];
			const { message } = await callApi(api, `${server.baseUrl}?x-functions-code=qSENTINELquerycode55`, {
				apiKey: KEY,
				maxRetries: 1,
				onRetry: (info) => retries.push(info),
			});
			expect(message.errorMessage).toContain("gateway refused credentials [redacted]");
			expect(seen(message, retries)).not.toContain("SENTINEL");
			const invalid = await callApi(api, "not a url?x-functions-code=qSENTINELquerycode55", { apiKey: KEY });
			expect(invalid.message.errorMessage).toContain("invalid base URL");
			expect(invalid.message.errorMessage).not.toContain("SENTINEL");
		});
	}
});

describe("a host stream function that throws with the key in its message (SPEC L12, E3)", () => {
	/** Not key-shaped: only the key in use can mask it. */
	const PLAIN_KEY = "plainSENTINELkey0123456";
	const failure = () => new Error(`gateway said: key ${PLAIN_KEY} is not allowed here`);
	const throwing: Record<string, StreamFunction> = {
		"throws synchronously": () => {
			throw failure();
		},
		"returns a stream that fails": () => {
			const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
			queueMicrotask(() => stream.fail(failure()));
			return stream;
		},
		"returns an iterable that throws": () =>
			({
				// biome-ignore lint/correctness/useYield: it fails before its first event
				async *[Symbol.asyncIterator]() {
					throw failure();
				},
			}) as unknown as ReturnType<StreamFunction>,
	};

	for (const [how, streamFn] of Object.entries(throwing)) {
		it(`${how}: the error reply, agent_end, records and spans carry the rest of the message, not the key`, async () => {
			const exporter = new InMemorySpanExporter();
			const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
			const records: ModelCallRecord[] = [];
			const events: AgentEvent[] = [];
			const stream = agentLoop(
				[{ role: "user", content: "hi", timestamp: 1 }],
				{ messages: [], tools: [] },
				{
					model: testModel("openai-completions", "http://127.0.0.1:9/v1"),
					streamFn,
					getApiKey: () => PLAIN_KEY,
					telemetry: {
						onModelCall: (record) => records.push(record),
						sinks: [openTelemetry(provider.getTracer("t"))],
					},
				},
			);
			for await (const event of stream) events.push(event);
			expect(events.at(-1)).toMatchObject({ type: "agent_end", outcome: { type: "error" } });
			expect(seen(events.at(-1))).toContain("gateway said: key [redacted] is not allowed here");
			const spans = exporter
				.getFinishedSpans()
				.map((span) => ({ status: span.status, attributes: span.attributes }));
			expect(seen(events, records, spans)).not.toContain("SENTINEL");
		});
	}
});
