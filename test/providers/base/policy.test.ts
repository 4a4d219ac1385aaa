import { describe, expect, it } from "vitest";
import type { Model } from "../../../src/core/model.js";
import { resolveApiKey } from "../../../src/providers/base/env.js";
import {
	classifyHttpError,
	classifyThrown,
	kindForStatus,
	ProviderError,
	parseRetryAfter,
} from "../../../src/providers/base/errors.js";
import { retryDelayMs } from "../../../src/providers/base/retry.js";
import { mapStopReason } from "../../../src/providers/base/stop-reason.js";
import { buildUsage } from "../../../src/providers/base/usage.js";

const model: Model = {
	id: "m",
	api: "test-api",
	provider: "anthropic",
	reasoning: false,
	input: ["text"],
	contextWindow: 1000,
	maxTokens: 100,
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

describe("error classification", () => {
	it.each([
		[401, "", "auth"],
		[403, "", "auth"],
		[429, "", "rate_limit"],
		[529, "", "overloaded"],
		[500, "", "server"],
		[503, "", "server"],
		[408, "", "timeout"],
		[400, "prompt is too long: 210000 tokens > 200000 maximum", "context_overflow"],
		[400, "bad field", "invalid_request"],
		[404, "", "invalid_request"],
	] as const)("status %i %s → %s", (status, text, kind) => {
		expect(kindForStatus(status, text)).toBe(kind);
	});

	it("uses the per-API body classifier first and keeps the body message", () => {
		const error = classifyHttpError(
			500,
			"Internal Server Error",
			new Headers(),
			'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
			(body) =>
				(body as { error?: { type?: string } }).error?.type === "overloaded_error"
					? { kind: "overloaded" }
					: undefined,
		);
		expect(error.kind).toBe("overloaded");
		expect(error.message).toBe("HTTP 500 Internal Server Error: Overloaded");
	});

	it("turns anything fetch throws into a network error with the cause code", () => {
		const thrown = new TypeError("fetch failed", {
			cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
		});
		const error = classifyThrown(thrown);
		expect(error.kind).toBe("network");
		expect(error.message).toContain("ECONNREFUSED");
	});

	it("reads retry-after as seconds, as an HTTP date, and retry-after-ms", () => {
		expect(parseRetryAfter(new Headers({ "retry-after": "3" }))).toBe(3000);
		expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "3" }))).toBe(250);
		const now = Date.parse("2026-01-01T00:00:00Z");
		expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" }), now)).toBe(
			10_000,
		);
		expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
	});
});

describe("retry policy (SPEC A8)", () => {
	const state = { attempt: 1, firstByteSeen: false, contentStarted: false };
	it("backs off exponentially with jitter, honoring retry-after", () => {
		const policy = { retryBaseDelayMs: 100, random: () => 1 };
		expect(retryDelayMs(new ProviderError("server", "x"), state, policy)).toBe(100);
		expect(retryDelayMs(new ProviderError("server", "x"), { ...state, attempt: 2 }, policy)).toBe(200);
		expect(retryDelayMs(new ProviderError("server", "x"), state, { ...policy, random: () => 0 })).toBe(50);
		expect(retryDelayMs(new ProviderError("rate_limit", "x", { retryAfterMs: 7 }), state, policy)).toBe(7);
	});
	it("stops after maxRetries, on non-transient kinds, after content, and on drops after the first byte", () => {
		expect(retryDelayMs(new ProviderError("server", "x"), { ...state, attempt: 3 })).toBeUndefined();
		// A maxRetries that is no number (NaN from an unparsed setting) retries nothing rather than for ever.
		expect(retryDelayMs(new ProviderError("server", "x"), state, { maxRetries: Number.NaN })).toBeUndefined();
		expect(retryDelayMs(new ProviderError("auth", "x"), state)).toBeUndefined();
		expect(
			retryDelayMs(new ProviderError("server", "x"), { ...state, contentStarted: true }),
		).toBeUndefined();
		expect(
			retryDelayMs(new ProviderError("network", "x"), { ...state, firstByteSeen: true }),
		).toBeUndefined();
		expect(retryDelayMs(new ProviderError("rate_limit", "x", { retryable: false }), state)).toBeUndefined();
		expect(
			retryDelayMs(new ProviderError("rate_limit", "x", { retryAfterMs: 3_600_000 }), state),
		).toBeUndefined();

		// An HTTP 504 is a complete answer, not a mid-body drop: still retried after the first byte.
		const gatewayTimeout = new ProviderError("timeout", "HTTP 504", { status: 504 });
		expect(retryDelayMs(gatewayTimeout, { ...state, firstByteSeen: true }, { random: () => 0 })).toBe(500);
	});
});

describe("usage and cost (SPEC M5)", () => {
	it("computes totals and cost from per-million prices", () => {
		const usage = buildUsage({ input: 1_000_000, output: 1000, cacheRead: 2_000_000, cacheWrite: 0 }, model);
		expect(usage.totalTokens).toBe(3_001_000);
		expect(usage.cost.input).toBeCloseTo(3);
		expect(usage.cost.output).toBeCloseTo(0.015);
		expect(usage.cost.cacheRead).toBeCloseTo(0.6);
		expect(usage.cost.total).toBeCloseTo(3.615);
		expect(usage.priceUnknown).toBeUndefined();
	});
	it("marks an unpriced model and charges nothing", () => {
		const usage = buildUsage(
			{ input: 10, output: 5 },
			{ cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
		);
		expect(usage.cost.total).toBe(0);
		expect(usage.priceUnknown).toBe(true);
	});
});

describe("stop-reason mapping (SPEC M4)", () => {
	const table = {
		end_turn: { reason: "stop" },
		pause_turn: { reason: "stop", details: { type: "pause_turn" } },
	} as const;
	it("maps known values and keeps the raw value in details", () => {
		expect(mapStopReason("end_turn", table)).toEqual({ reason: "stop" });
		expect(mapStopReason("pause_turn", table)).toEqual({
			reason: "stop",
			details: { type: "pause_turn", raw: "pause_turn" },
		});
	});
	it("maps unknown and missing values to error with the raw value, never throwing", () => {
		expect(mapStopReason("weird", table)).toMatchObject({
			reason: "error",
			details: { type: "unknown_stop_reason", raw: "weird" },
		});
		expect(mapStopReason(null, table).reason).toBe("error");
		expect(mapStopReason("toString", table).reason).toBe("error");
	});
});

describe("API keys", () => {
	it("prefers options.apiKey, then the provider's environment variables", () => {
		const env = (globalThis as { process: { env: Record<string, string | undefined> } }).process.env;
		const saved = env.ANTHROPIC_API_KEY;
		env.ANTHROPIC_API_KEY = "from-env";
		try {
			expect(resolveApiKey(model, "explicit")).toBe("explicit");
			expect(resolveApiKey(model)).toBe("from-env");
			delete env.ANTHROPIC_API_KEY;
			expect(resolveApiKey(model)).toBeUndefined();
		} finally {
			if (saved === undefined) delete env.ANTHROPIC_API_KEY;
			else env.ANTHROPIC_API_KEY = saved;
		}
	});
});
