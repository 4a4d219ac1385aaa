/**
 * Plain JSON copies of values that come from outside the library (tool `details`, a foreign provider's
 * message). A transcript must survive `JSON.stringify` and load back the same (rule M6, I5), whatever a tool
 * returned; the rules mirror `JSON.stringify` where it has one and pick a lossless-as-possible value where it
 * would throw:
 *
 * - `bigint` becomes its decimal string (`10n` → `"10"`): exact, and readable by the model.
 * - A reference back to an enclosing object (a cycle) becomes `"[Circular]"`. An object reached twice without
 *   a cycle is converted once and shared, so the work stays linear in the number of distinct objects.
 * - Functions, symbols and `undefined` are dropped from objects and become `null` in arrays (as in JSON).
 * - `NaN` and `±Infinity` become `null` (as in JSON). A `Date` becomes its ISO string (`null` when invalid).
 * - Anything with `toJSON()` (e.g. `Buffer`) is converted through it; a `Map` becomes an object of its entries
 *   (keys as strings), a `Set` an array, an `Error` `{ name, message }`; other class instances keep their own
 *   enumerable data.
 * - A getter, proxy or `toJSON` that throws becomes `"[Unserializable: <message>]"`; nesting deeper than
 *   {@link PLAIN_JSON_MAX_DEPTH} becomes `"[Too deep]"`. Nothing here throws.
 */
import type { JsonValue } from "./messages.js";

/** Nesting limit of {@link toPlainJson}: past it a value becomes `"[Too deep]"` (no stack overflow). */
export const PLAIN_JSON_MAX_DEPTH = 500;

/**
 * A plain JSON copy of `value` (rules above). Returns `undefined` only for a top-level value JSON would drop
 * (`undefined`, a function, a symbol). Linear in the size of the value.
 */
export function toPlainJson(value: unknown): JsonValue | undefined {
	return new PlainJson().convert(value, 0);
}

class PlainJson {
	/** Objects on the path from the root to the value being converted: meeting one again is a cycle. */
	private readonly path = new Set<object>();
	/** Objects already converted, reused when reached again (shared, not cyclic). */
	private readonly done = new Map<object, JsonValue>();

	convert(value: unknown, depth: number): JsonValue | undefined {
		switch (typeof value) {
			case "string":
			case "boolean":
				return value;
			case "number":
				return Number.isFinite(value) ? value : null;
			case "bigint":
				return value.toString();
			case "undefined":
			case "function":
			case "symbol":
				return undefined;
		}
		if (value === null) return null;
		return this.object(value as object, depth);
	}

	private object(value: object, depth: number): JsonValue {
		if (this.path.has(value)) return "[Circular]";
		const seen = this.done.get(value);
		if (seen !== undefined) return seen;
		if (depth >= PLAIN_JSON_MAX_DEPTH) return "[Too deep]";
		this.path.add(value);
		let result: JsonValue;
		try {
			result = this.shape(value, depth + 1);
		} catch (error) {
			result = `[Unserializable: ${error instanceof Error ? error.message : String(error)}]`;
		}
		this.path.delete(value);
		this.done.set(value, result);
		return result;
	}

	private shape(value: object, depth: number): JsonValue {
		if (Array.isArray(value)) return value.map((item) => this.convert(item, depth) ?? null);
		if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
		const toJSON = (value as { toJSON?: unknown }).toJSON;
		if (typeof toJSON === "function") {
			const converted = toJSON.call(value);
			// A toJSON returning its own receiver would recurse forever; take its plain data instead.
			return converted === value
				? this.entries(Object.entries(value), depth)
				: (this.convert(converted, depth) ?? null);
		}
		if (value instanceof Map)
			return this.entries(
				Array.from(value, ([key, item]) => [String(key), item] as const),
				depth,
			);
		if (value instanceof Set) return Array.from(value, (item) => this.convert(item, depth) ?? null);
		if (value instanceof Error) return { name: value.name, message: value.message };
		if (ArrayBuffer.isView(value) && !(value instanceof DataView))
			return Array.from(
				value as unknown as ArrayLike<number | bigint>,
				(item) => this.convert(item, depth) ?? null,
			);
		return this.entries(
			Object.keys(value).map((key) => [key, this.property(value, key)] as const),
			depth,
		);
	}

	/** One property read; a throwing getter becomes a marker instead of failing the whole value. */
	private property(value: object, key: string): unknown {
		try {
			return (value as Record<string, unknown>)[key];
		} catch (error) {
			return `[Unserializable: ${error instanceof Error ? error.message : String(error)}]`;
		}
	}

	private entries(entries: readonly (readonly [string, unknown])[], depth: number): JsonValue {
		const out: { [key: string]: JsonValue } = {};
		for (const [key, item] of entries) {
			const converted = this.convert(item, depth);
			// __proto__ as an own data key: defineProperty keeps it data instead of reshaping `out`.
			if (converted !== undefined)
				Object.defineProperty(out, key, {
					value: converted,
					enumerable: true,
					writable: true,
					configurable: true,
				});
		}
		return out;
	}
}
