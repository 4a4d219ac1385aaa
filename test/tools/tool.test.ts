import { Type } from "@sinclair/typebox";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../../src/testing/index.js";
import type { StandardSchemaV1 } from "../../src/tools/standard-schema.js";
import { tool } from "../../src/tools/tool.js";
import type { AgentTool } from "../../src/tools/types.js";

/**
 * A real Agent run on the scripted model: the model calls `tool` with each argument object in turn, then
 * stops. Returns what `execute` received, the result texts the model read, and the wire schema it saw.
 */
async function callWith(agentTool: AgentTool, ...calls: Record<string, unknown>[]) {
	const scripted = scriptedModel([
		...calls.map((args) => ({
			content: [{ type: "toolCall" as const, name: agentTool.name, arguments: args }],
		})),
		{ content: [{ type: "text" as const, text: "done" }] },
	]);
	const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [agentTool] });
	await agent.prompt("go");
	const results = agent.state.messages.flatMap((message) =>
		message.role === "toolResult"
			? [message.content.map((block) => (block.type === "text" ? block.text : "")).join("")]
			: [],
	);
	return { results, wire: scripted.calls[0]?.context.tools?.[0]?.parameters };
}

const invalid = (...lines: string[]) =>
	[
		'Invalid arguments for tool "t":',
		...lines.map((line) => `- ${line}`),
		"Fix these arguments and call the tool again.",
	].join("\n");

function recorder() {
	const received: unknown[] = [];
	const execute = async (_id: string, args: unknown) => {
		received.push(args);
		return { content: [{ type: "text" as const, text: "ran" }] };
	};
	return { received, execute };
}

describe("tool() through a real Agent run (SPEC T1, T3)", () => {
	it("Zod 4: execute gets zod's output; an invalid call gets the model-readable error", async () => {
		const { received, execute } = recorder();
		const read = tool({
			name: "t",
			description: "read",
			parameters: z.object({ path: z.string(), limit: z.number().int().default(10) }),
			execute: (id, args) => execute(id, { ...args, upper: args.path.toUpperCase() }),
		});
		const { results, wire } = await callWith(read, { limit: 1.5 }, { path: "a" });
		expect(received).toEqual([{ path: "a", limit: 10, upper: "A" }]);
		expect(results[0]).toMatch(
			/^Invalid arguments for tool "t":\n- root: missing required property "path"\n- \/limit: /,
		);
		expect(results[1]).toBe("ran");
		expect(wire).toMatchObject({ type: "object", required: ["path"] });
	});

	it("JSON Schema literal: defaults filled in, no coercion", async () => {
		const { received, execute } = recorder();
		const edit = tool({
			name: "t",
			description: "edit",
			parameters: {
				type: "object",
				properties: { line: { type: "integer" }, mode: { enum: ["a", "b"], default: "a" } },
				required: ["line"],
				additionalProperties: false,
			},
			execute: (id, args) => execute(id, { line: args.line + 1, mode: args.mode }),
		});
		const { results, wire } = await callWith(edit, { line: "3", extra: 1 }, { line: 3 });
		expect(results).toEqual([
			invalid('root: unexpected property "extra"', '/line: must be integer (received string "3")'),
			"ran",
		]);
		expect(received).toEqual([{ line: 4, mode: "a" }]);
		expect(wire).toBe(edit.parameters);
	});

	it("TypeBox", async () => {
		const { received, execute } = recorder();
		const search = tool({
			name: "t",
			description: "search",
			parameters: Type.Object({ q: Type.String(), n: Type.Optional(Type.Integer({ default: 5 })) }),
			execute: (id, args) => execute(id, { q: args.q, n: args.n }),
		});
		const { results } = await callWith(search, { q: 1 }, { q: "x" });
		expect(results).toEqual([invalid("/q: must be string (received number 1)"), "ran"]);
		expect(received).toEqual([{ q: "x", n: 5 }]);
	});

	it("Valibot: validated by valibot, the wire schema given as jsonSchema", async () => {
		const { received, execute } = recorder();
		// Typed as a converter types its output (`@valibot/to-json-schema`): an interface, no index signature.
		interface ConverterSchema {
			$schema?: string;
			type?: string;
			properties?: Record<string, ConverterSchema>;
			required?: string[];
		}
		const wireSchema: ConverterSchema = {
			$schema: "http://json-schema.org/draft-07/schema#",
			type: "object",
			properties: { query: { type: "string" }, page: { type: "number" } },
			required: ["query"],
		};
		const search = tool({
			name: "t",
			description: "search",
			parameters: v.object({ query: v.pipe(v.string(), v.minLength(2)), page: v.optional(v.number(), 1) }),
			jsonSchema: wireSchema,
			execute: (id, args) => execute(id, { query: args.query, page: args.page }),
		});
		const { results, wire } = await callWith(search, { query: "a" }, { page: 2 }, { query: "ab" });
		expect(results).toEqual([
			invalid("/query: Invalid length: Expected >=2 but received 1"),
			invalid('root: missing required property "query"'),
			"ran",
		]);
		expect(received).toEqual([{ query: "ab", page: 1 }]);
		expect(wire).toEqual({ type: "object", properties: wireSchema.properties, required: ["query"] });
	});

	it("ArkType: validated by arktype, the wire schema from its own converter", async () => {
		const { received, execute } = recorder();
		const count = tool({
			name: "t",
			description: "count",
			parameters: type({ path: "string", "count?": "number.integer" }),
			execute: (id, args) => execute(id, { path: args.path, count: args.count ?? 0 }),
		});
		const { results, wire } = await callWith(count, { count: 1.5 }, { path: "p" });
		expect(results[0]).toContain('- root: missing required property "path"');
		expect(results[0]).toContain("- /count: count must be an integer (was 1.5)");
		expect(received).toEqual([{ path: "p", count: 0 }]);
		expect(wire).toEqual({
			type: "object",
			properties: { path: { type: "string" }, count: { type: "integer" } },
			required: ["path"],
		});
	});

	it("an asynchronous Standard Schema validator is awaited", async () => {
		const { received, execute } = recorder();
		const schema: StandardSchemaV1<unknown, { name: string }> = {
			"~standard": {
				version: 1,
				vendor: "custom",
				validate: async (value) => {
					await Promise.resolve();
					const name = (value as { name?: unknown }).name;
					return typeof name === "string"
						? { value: { name } }
						: { issues: [{ message: "must be a string", path: [{ key: "name" }] }] };
				},
				jsonSchema: { input: () => ({ type: "object", properties: { name: { type: "string" } } }) },
			},
		};
		const greet = tool({ name: "t", description: "greet", parameters: schema, execute });
		const { results } = await callWith(greet, { name: 1 }, { name: "n" });
		expect(results).toEqual([invalid("/name: must be a string"), "ran"]);
		expect(received).toEqual([{ name: "n" }]);
	});

	it("a validator that throws or rejects is reported as the schema's error", async () => {
		const failing = (validate: () => never | Promise<never>): StandardSchemaV1 => ({
			"~standard": { version: 1, vendor: "x", validate, jsonSchema: { input: () => ({ type: "object" }) } },
		});
		const thrown = tool({
			name: "t",
			description: "d",
			parameters: failing(() => {
				throw new Error("boom");
			}),
			execute: recorder().execute,
		});
		const rejected = tool({
			name: "t",
			description: "d",
			parameters: failing(() => Promise.reject(new Error("later"))),
			execute: recorder().execute,
		});
		expect((await callWith(thrown, {})).results).toEqual([
			invalid("root: the tool's parameter schema could not be checked (boom)"),
		]);
		expect((await callWith(rejected, {})).results).toEqual([
			invalid("root: the tool's parameter schema could not be checked (later)"),
		]);
	});
});

describe("asynchronous validation and abort (SPEC A1, T13)", () => {
	it("an abort while a validator is pending settles the call with the abort placeholder at once", async () => {
		const { received, execute } = recorder();
		const pending: StandardSchemaV1 = {
			"~standard": {
				version: 1,
				vendor: "slow",
				validate: () => new Promise(() => {}),
				jsonSchema: { input: () => ({ type: "object" }) },
			},
		};
		const slow = tool({ name: "t", description: "d", parameters: pending, execute });
		const scripted = scriptedModel([{ content: [{ type: "toolCall", name: "t", arguments: {} }] }]);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [slow] });
		const statuses: string[] = [];
		agent.subscribe((event) => {
			if (event.type === "message_end" && event.message.role === "assistant")
				queueMicrotask(() => agent.abort("stop"));
			if (event.type === "tool_execution_end") statuses.push(event.status);
		});
		await agent.prompt("go");
		const result = agent.state.messages.find((message) => message.role === "toolResult");
		expect(result?.details).toMatchObject({ synthetic: true, reason: "aborted", executed: false });
		expect(statuses).toEqual(["aborted"]);
		expect(received).toEqual([]);
	});
});

describe("tool() definition errors", () => {
	it("a Standard Schema without a JSON Schema fails where the tool is defined, saying what to pass", () => {
		expect(() =>
			tool({
				name: "t",
				description: "d",
				parameters: v.object({ a: v.string() }),
				execute: recorder().execute,
			}),
		).toThrow(/a valibot schema has no JSON Schema converter .*tool\(\{ jsonSchema \}\)/);
	});

	it("jsonSchema with a JSON Schema or Zod schema is refused at runtime too", () => {
		const definition = {
			name: "t",
			description: "d",
			parameters: { type: "object" },
			jsonSchema: { type: "object" },
			execute: recorder().execute,
		};
		expect(() => tool(definition as never)).toThrow(
			/only for Standard Schema validators|is for Standard Schema/,
		);
	});

	it("keeps every other AgentTool field", () => {
		const defined = tool({
			name: "t",
			label: "T",
			description: "d",
			parameters: { type: "object" },
			concurrency: "exclusive",
			interruptible: true,
			intent: false,
			execute: recorder().execute,
		});
		expect(defined).toMatchObject({
			name: "t",
			label: "T",
			concurrency: "exclusive",
			interruptible: true,
			intent: false,
		});
	});
});
