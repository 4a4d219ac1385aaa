/**
 * Hardening item 9: `canonicalJson` must keep an own `__proto__` key. Tool arguments parsed from model
 * output (`JSON.parse`) can carry one as an ordinary data property; dropping it made two different messages
 * share a digest, so SPEC X2's append-only log kept the stale one.
 */
import { describe, expect, it } from "vitest";
import { AppendOnlyContextManager, canonicalJson } from "../../src/context/append-only.js";
import type { Message } from "../../src/core/messages.js";
import { emptyUsage } from "../../src/core/messages.js";

const withProto = (x: number): unknown => JSON.parse(`{"n":1,"__proto__":{"x":${x}}}`);

describe("canonicalJson keeps an own __proto__ key (hardening item 9)", () => {
	it("two objects differing only under __proto__ serialize differently", () => {
		expect(canonicalJson(withProto(1))).toBe('{"__proto__":{"x":1},"n":1}');
		expect(canonicalJson(withProto(1))).not.toBe(canonicalJson(withProto(2)));
	});

	it("the serialized key stays a data property: parsing it back does not touch any prototype", () => {
		const back = JSON.parse(canonicalJson(withProto(3))) as Record<string, unknown>;
		expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
		expect(Object.hasOwn(back, "__proto__")).toBe(true);
		expect(({} as { x?: unknown }).x).toBeUndefined();
	});

	it("SPEC X2: an edit under __proto__ in an old message is seen by the append-only log", () => {
		const message = (x: number): Message => ({
			role: "user",
			content: [{ type: "text", text: JSON.stringify(withProto(x)) }],
			timestamp: 1,
		});
		const call = (x: number): Message => ({
			role: "assistant",
			content: [
				{ type: "toolCall", id: "c1", name: "t", arguments: withProto(x) as Record<string, unknown> },
			],
			api: "a",
			provider: "p",
			model: "m",
			usage: emptyUsage(),
			stopReason: "toolUse",
			timestamp: 1,
		});
		const manager = new AppendOnlyContextManager();
		manager.syncMessages([message(1), call(1)]);
		const sync = manager.syncMessages([message(1), call(2)]);
		expect(sync.unchanged).toBe(1);
		expect(sync.changed).toBe(true);
	});
});
