/**
 * The registry's `stream` keeps rule E3 whatever the registered stream function does: one that throws, or
 * one that hands back something that is not a stream, still gives an `error` message, never a throw.
 */
import { describe, expect, it } from "vitest";
import type { StreamFunction } from "../../../src/core/model.js";
import { createProviderRegistry } from "../../../src/providers/registry.js";
import { testModel } from "../support/models.js";

const model = { ...testModel("openai-completions", "http://127.0.0.1:9"), api: "acme-chat" };
const context = { messages: [] };

describe("createProviderRegistry (SPEC E3)", () => {
	it("a stream function that throws ends as an internal error message", async () => {
		const registry = createProviderRegistry({
			"acme-chat": () => {
				throw new Error("decoder table missing");
			},
		});
		const message = await registry.stream(model, context, { apiKey: "k-0123456789" }).result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "internal" });
		expect(message.errorMessage).toContain("decoder table missing");
	});

	it.each([
		["an async stream function (a promise)", (async () => undefined) as unknown as StreamFunction],
		[
			"an async stream function that rejects",
			(async () => {
				throw new Error("async boom");
			}) as unknown as StreamFunction,
		],
		["one that returns nothing", (() => undefined) as unknown as StreamFunction],
	])("%s ends as an internal error message, not a throw at the caller", async (_name, streamFn) => {
		const registry = createProviderRegistry({ "acme-chat": streamFn });
		const stream = registry.stream(model, context, { apiKey: "k-0123456789" });
		const message = await stream.result();
		expect(message).toMatchObject({ stopReason: "error", errorKind: "internal" });
		expect(message.errorMessage).toContain('stream function for api "acme-chat"');
	});
});
