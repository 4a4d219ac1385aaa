/**
 * The argument type a tool's `execute` receives, inferred from its parameters — what validation hands over,
 * so defaults are filled in and transforms applied:
 *
 * - Zod 4: the schema's output type (`_zod.output`).
 * - Standard Schema v1 (Valibot, ArkType, …): `~standard.types.output`.
 * - TypeBox: `Static<T>`, read structurally from the schema's `static` phantom property, so capstan's
 *   published types need no TypeBox installed.
 * - A JSON Schema literal (`as const`, or written inline in `tool({...})`): `FromJsonSchema`, a focused
 *   type for objects, properties, required, defaults, enums, const, arrays and tuples, primitives, type
 *   lists and anyOf/oneOf. What it cannot read becomes `unknown`, and a schema it cannot read at all (one
 *   typed as a plain `JsonSchema`) gives `Record<string, unknown>`, never `any`.
 *
 * `json-schema-to-ts`'s `FromSchema` covers more of JSON Schema, but it would put `@babel/runtime` into every
 * user's install for a type, and tool parameters rarely go past what is handled here.
 */

/** The type `execute` receives for parameters `S`. */
export type InferToolArgs<S> = S extends { readonly _zod: { readonly output: infer Output } }
	? Output
	: S extends { readonly "~standard": { readonly types?: infer Types } }
		? NonNullable<Types> extends { readonly output: infer Output }
			? Output
			: Record<string, unknown>
		: S extends { readonly static: infer Static; readonly params: unknown[] }
			? Static
			: ObjectArgs<FromJsonSchema<S>>;

/** Tool arguments are always an object; a schema that says nothing about them gives a safe record. */
type ObjectArgs<T> = unknown extends T ? Record<string, unknown> : T;

/** The type a JSON Schema literal describes (see the module comment for what is read). */
export type FromJsonSchema<S> = S extends boolean
	? unknown
	: S extends { readonly const: infer Value }
		? Mutable<Value>
		: S extends { readonly enum: readonly (infer Value)[] }
			? Mutable<Value>
			: S extends { readonly anyOf: readonly (infer Branch)[] }
				? FromJsonSchema<Branch>
				: S extends { readonly oneOf: readonly (infer Branch)[] }
					? FromJsonSchema<Branch>
					: S extends { readonly type: readonly (infer Name)[] }
						? Name extends unknown
							? FromTyped<Name, S>
							: never
						: S extends { readonly type: infer Name }
							? FromTyped<Name, S>
							: unknown;

type FromTyped<Name, S> = Name extends "string"
	? string
	: Name extends "number" | "integer"
		? number
		: Name extends "boolean"
			? boolean
			: Name extends "null"
				? null
				: Name extends "array"
					? FromArray<S>
					: Name extends "object"
						? FromObject<S>
						: unknown;

type FromArray<S> = S extends { readonly prefixItems: infer Tuple extends readonly unknown[] }
	? FromTuple<Tuple>
	: S extends { readonly items: infer Tuple extends readonly unknown[] }
		? FromTuple<Tuple>
		: S extends { readonly items: infer Item }
			? FromJsonSchema<Item>[]
			: unknown[];

type FromTuple<Tuple extends readonly unknown[]> = { -readonly [K in keyof Tuple]: FromJsonSchema<Tuple[K]> };

type FromObject<S> = S extends { readonly properties: infer Properties }
	? Flatten<
			{
				-readonly [K in keyof Properties as K extends PresentKeys<S, Properties> ? K : never]: FromJsonSchema<
					Properties[K]
				>;
			} & {
				-readonly [K in keyof Properties as K extends PresentKeys<S, Properties>
					? never
					: K]?: FromJsonSchema<Properties[K]>;
			}
		>
	: Record<string, unknown>;

/** Keys `execute` always receives: the required ones, and those a default fills in. */
type PresentKeys<S, Properties> =
	| (S extends { readonly required: readonly (infer Key)[] } ? Key : never)
	| {
			[K in keyof Properties]: Properties[K] extends { readonly default: unknown } ? K : never;
	  }[keyof Properties];

type Mutable<T> = T extends readonly unknown[]
	? { -readonly [K in keyof T]: Mutable<T[K]> }
	: T extends object
		? { -readonly [K in keyof T]: Mutable<T[K]> }
		: T;

type Flatten<T> = { [K in keyof T]: T[K] } & {};
