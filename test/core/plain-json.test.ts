import { describe, expect, it } from "vitest";
import { PLAIN_JSON_MAX_DEPTH, toPlainJson } from "../../src/core/plain-json.js";

describe("toPlainJson — SPEC M6, I5: values from outside become plain JSON", () => {
	it("keeps plain JSON as is (a copy)", () => {
		const value = { a: [1, "x", true, null, { b: 2 }] };
		const copy = toPlainJson(value);
		expect(copy).toEqual(value);
		expect(copy).not.toBe(value);
	});

	it("BigInt → decimal string, cycles → [Circular], non-finite → null, functions/symbols/undefined dropped", () => {
		const cyclic: Record<string, unknown> = {
			n: 10n,
			nan: Number.NaN,
			f: () => 1,
			s: Symbol("s"),
			u: undefined,
		};
		cyclic.self = cyclic;
		cyclic.list = [cyclic, () => 1, undefined];
		expect(toPlainJson(cyclic)).toEqual({
			n: "10",
			nan: null,
			self: "[Circular]",
			list: ["[Circular]", null, null],
		});
		expect(JSON.stringify(toPlainJson(cyclic))).toBeTypeOf("string");
	});

	it("a shared (non-cyclic) object is converted once and reused: linear, not [Circular]", () => {
		const shared = { k: 1 };
		let value: unknown = shared;
		for (let i = 0; i < 60; i++) value = [value, value]; // 2^60 paths, 61 distinct objects
		const copy = toPlainJson(value) as unknown[];
		expect(Array.isArray(copy)).toBe(true);
		expect(copy[0]).toBe(copy[1]);
	});

	it("Date → ISO, Map → object, Set → array, Error → {name, message}, class instance → its data, toJSON used", () => {
		class Point {
			constructor(
				public x: number,
				public y: number,
			) {}
			get norm() {
				return 0;
			}
		}
		const value = {
			d: new Date(0),
			bad: new Date(Number.NaN),
			m: new Map<unknown, unknown>([[1, "one"]]),
			s: new Set([1, 2]),
			e: new TypeError("boom"),
			p: new Point(1, 2),
			b: Buffer.from("hi"),
			t: new Uint8Array([1, 2]),
		};
		expect(toPlainJson(value)).toEqual({
			d: "1970-01-01T00:00:00.000Z",
			bad: null,
			m: { "1": "one" },
			s: [1, 2],
			e: { name: "TypeError", message: "boom" },
			p: { x: 1, y: 2 },
			b: { type: "Buffer", data: [104, 105] },
			t: [1, 2],
		});
	});

	it("never throws: throwing getters, toJSON and proxies become markers; deep nesting is cut", () => {
		const getter = Object.defineProperty({}, "x", {
			enumerable: true,
			get() {
				throw new Error("no");
			},
		});
		const toJSON = {
			toJSON: () => {
				throw new Error("bad toJSON");
			},
		};
		const proxy = new Proxy(
			{},
			{
				ownKeys: () => {
					throw new Error("trap");
				},
			},
		);
		expect(toPlainJson({ getter, toJSON, proxy })).toEqual({
			getter: { x: "[Unserializable: no]" },
			toJSON: "[Unserializable: bad toJSON]",
			proxy: "[Unserializable: trap]",
		});
		let deep: unknown = 1;
		for (let i = 0; i < PLAIN_JSON_MAX_DEPTH + 10; i++) deep = [deep];
		expect(JSON.stringify(toPlainJson(deep))).toContain("[Too deep]");
		expect(toPlainJson(undefined)).toBeUndefined();
		const own = JSON.parse('{"__proto__": {"polluted": true}}');
		const copy = toPlainJson(own) as Record<string, unknown>;
		expect(Object.keys(copy)).toEqual(["__proto__"]);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});
