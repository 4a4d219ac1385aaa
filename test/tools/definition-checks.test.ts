import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { agentLoop, agentLoopContinue } from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { tool } from "../../src/tools/tool.js";
import type { AgentTool, ToolParameters } from "../../src/tools/types.js";
import { user } from "../support/run.js";

const execute = async () => ({ content: [{ type: "text" as const, text: "ran" }] });

function rawTool(parameters: unknown, name = "t"): AgentTool {
	return { name, description: "d", parameters: parameters as ToolParameters, execute };
}

/** Roots that may describe an object: every call's arguments are checked against them when it comes (T3). */
const objectLike: [string, unknown][] = [
	["type object", { type: "object", properties: { a: { type: "string" } } }],
	["no type at all", {}],
	["anyOf of objects", { anyOf: [{ type: "object" }, { type: "object", required: ["a"] }] }],
	["oneOf", { oneOf: [{ properties: { a: {} } }] }],
	["allOf", { allOf: [{ type: "object" }] }],
	["$ref", { $ref: "#/definitions/args", definitions: { args: { type: "object" } } }],
	["a type list with object", { type: ["object", "null"] }],
	["boolean true", true],
	["TypeBox object", Type.Object({ q: Type.String() })],
	["Zod object", z.object({ q: z.string() })],
	["Zod union of objects", z.union([z.object({ a: z.string() }), z.object({ b: z.number() })])],
];

/** Roots that cannot describe the JSON object every provider sends as a call's arguments. */
const notObject: [string, unknown, RegExp][] = [
	["type string", { type: "string" }, /root has type "string"/],
	["type array", { type: "array", items: { type: "string" } }, /root has type "array"/],
	[
		"a type list without object",
		{ type: ["string", "null"] },
		/\["string","null"\], which does not include "object"/,
	],
	["TypeBox string", Type.String(), /root has type "string"/],
	["Zod string", z.string(), /root has type "string"/],
];

describe("tool parameters must describe an object (SPEC T1)", () => {
	it.each(objectLike)("tool() accepts a root that may describe an object: %s", (_name, parameters) => {
		expect(() =>
			tool({ name: "t", description: "d", parameters: parameters as never, execute }),
		).not.toThrow();
	});

	it.each(notObject)("tool() refuses %s with a TypeError naming the tool", (_name, parameters, problem) => {
		const define = () => tool({ name: "lookup", description: "d", parameters: parameters as never, execute });
		expect(define).toThrow(TypeError);
		expect(define).toThrow(/^tool "lookup": its parameters must describe a JSON object/);
		expect(define).toThrow(problem);
	});

	it("agentLoop and agentLoopContinue refuse such a raw AgentTool before the run starts", () => {
		const scripted = scriptedModel([{ content: [{ type: "text", text: "hi" }] }]);
		const config = { model: scripted.model, streamFn: scripted.stream };
		const tools = [rawTool({ type: "object" }, "fine"), rawTool({ type: "integer" }, "count")];
		expect(() => agentLoop([user("go")], { messages: [], tools }, config)).toThrow(
			/^tool "count": its parameters must describe a JSON object.*root has type "integer"/,
		);
		expect(() => agentLoopContinue({ messages: [user("go")], tools }, config)).toThrow(TypeError);
		expect(scripted.calls).toHaveLength(0);
	});

	it("the Agent refuses it in its constructor and in setTools, keeping the tools it had", async () => {
		const scripted = scriptedModel([{ content: [{ type: "text", text: "hi" }] }]);
		const base = { model: scripted.model, streamFn: scripted.stream };
		expect(() => new Agent({ ...base, tools: [rawTool({ type: "string" })] })).toThrow(TypeError);
		const good = [rawTool({ type: "object" })];
		const agent = new Agent({ ...base, tools: good });
		expect(() => agent.setTools([rawTool({ type: ["array"] })])).toThrow(/^tool "t"/);
		expect(agent.state.tools).toBe(good);
		// A tools array changed behind the Agent's back is still caught as the run starts.
		good.push(rawTool({ type: "number" }, "late"));
		await expect(agent.prompt("go")).rejects.toThrow(/^tool "late"/);
		expect(agent.state.isStreaming).toBe(false);
		expect(agent.state.messages).toEqual([]);
	});

	it("a run with object-like roots only starts as before", async () => {
		const scripted = scriptedModel([
			{ content: [{ type: "toolCall", name: "any", arguments: { x: 1 } }] },
			{ content: [{ type: "text", text: "done" }] },
		]);
		const tools = objectLike.map(([, parameters], i) => rawTool(parameters, i === 1 ? "any" : `t${i}`));
		const stream = agentLoop(
			[user("go")],
			{ messages: [], tools },
			{
				model: scripted.model,
				streamFn: scripted.stream,
			},
		);
		const added = await stream.result();
		const result = added.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: false, content: [{ type: "text", text: "ran" }] });
	});
});

describe("parameters that are no schema, and JSON Schema true (SPEC T1, T3)", () => {
	const scripted = scriptedModel([{ content: [{ type: "text", text: "hi" }] }]);
	const noSchema: [string, unknown, RegExp][] = [
		["missing", undefined, /^tool "t": parameters are missing; give a JSON Schema object/],
		[
			"false",
			false,
			/^tool "t": parameters are false, the JSON Schema no value passes, so every call would fail/,
		],
		["null", null, /^tool "t": parameters are no schema \(received null\)/],
		["a string", "object", /parameters are no schema \(received string "object"\)/],
		["an array", [{ type: "object" }], /parameters are no schema \(received array\)/],
	];

	it.each(noSchema)(
		"parameters %s are refused by tool(), the Agent and agentLoop",
		(_name, parameters, message) => {
			const defined = () => tool({ name: "t", description: "d", parameters: parameters as never, execute });
			expect(defined).toThrow(TypeError);
			expect(defined).toThrow(message);
			expect(defined).toThrow(/for a tool without arguments: \{ type: "object", properties: \{\} \}/);
			const tools = [rawTool(parameters)];
			expect(() => agentLoop([user("go")], { messages: [], tools }, { model: scripted.model })).toThrow(
				message,
			);
			expect(() => new Agent({ model: scripted.model, tools })).toThrow(message);
			expect(() => new Agent({ model: scripted.model }).setTools(tools)).toThrow(message);
		},
	);

	it("parameters true take any arguments object, and go to the provider as an object schema", async () => {
		const run = scriptedModel([
			{ content: [{ type: "toolCall", name: "anything", arguments: { path: "a", n: 2 } }] },
			{ content: [{ type: "text", text: "done" }] },
		]);
		const seen: unknown[] = [];
		const anything: AgentTool = {
			...rawTool(true, "anything"),
			execute: async (_id, args) => {
				seen.push(args);
				return execute();
			},
		};
		expect(tool({ name: "anything", description: "d", parameters: true as never, execute }).parameters).toBe(
			true,
		);
		const stream = agentLoop(
			[user("go")],
			{ messages: [], tools: [anything] },
			{ model: run.model, streamFn: run.stream },
		);
		const added = await stream.result();
		expect(added.find((message) => message.role === "toolResult")).toMatchObject({ isError: false });
		expect(seen).toEqual([{ path: "a", n: 2 }]);
		expect(run.calls[0]?.context.tools?.[0]?.parameters).toMatchObject({ type: "object" });
	});
});

describe("the wire schema of a root that names no type (SPEC T1)", () => {
	// OpenAI refuses function parameters, and Anthropic an input_schema, whose root has no `type`.
	it.each([
		["no type at all", {}, { type: "object" }],
		["anyOf of objects", { anyOf: [{ required: ["a"] }] }, { type: "object", anyOf: [{ required: ["a"] }] }],
		[
			"$ref",
			{ $ref: "#/$defs/a", $defs: { a: {} } },
			{ type: "object", $ref: "#/$defs/a", $defs: { a: {} } },
		],
	])(
		"%s goes to the provider with type object, the tool's own schema untouched",
		async (_label, parameters, wire) => {
			const run = scriptedModel([{ content: [{ type: "text", text: "hi" }] }]);
			const given = structuredClone(parameters);
			const stream = agentLoop(
				[user("go")],
				{ messages: [], tools: [rawTool(given)] },
				{ model: run.model, streamFn: run.stream },
			);
			await stream.result();
			const sent = run.calls[0]?.context.tools?.[0]?.parameters;
			expect(sent).toEqual(wire);
			expect(Object.keys(sent as object)[0]).toBe("type");
			expect(given).toEqual(parameters);
		},
	);

	it("a root that names its type is sent as the very object", async () => {
		const run = scriptedModel([{ content: [{ type: "text", text: "hi" }] }]);
		const parameters = { type: "object", properties: { a: { type: "string" } } };
		await agentLoop(
			[user("go")],
			{ messages: [], tools: [rawTool(parameters)] },
			{ model: run.model, streamFn: run.stream },
		).result();
		expect(run.calls[0]?.context.tools?.[0]?.parameters).toBe(parameters);
	});
});

describe("tool names, duplicates and execute (SPEC T1, T2)", () => {
	const scripted = scriptedModel([{ content: [{ type: "text", text: "hi" }] }]);
	const start = (tools: unknown) =>
		agentLoop(
			[user("go")],
			{ messages: [], tools: tools as AgentTool[] },
			{
				model: scripted.model,
				streamFn: scripted.stream,
			},
		);

	it.each([
		["", /tool "": the name is empty; providers accept tool names of 1 to 64 letters/],
		["read file", /tool "read file": the name has characters other than letters, digits, "_" and "-"/],
		["fs.read", /tool "fs\.read": the name has characters/],
		["x".repeat(65), /the name is 65 characters long/],
		[undefined, /tool undefined: the name must be a string \(received undefined\)/],
		[42, /tool 42: the name must be a string \(received number 42\)/],
		// Gemini's FunctionDeclaration.name must start with a letter or an underscore.
		[
			"2fa",
			/tool "2fa": the name starts with "2", and Gemini takes only a letter or "_" there; .*starting with a letter or "_"/,
		],
		["-x", /tool "-x": the name starts with "-"/],
	])("a name providers reject (%j) is refused by tool(), the Agent and agentLoop", (name, message) => {
		const defined = () => tool({ name: name as string, description: "d", parameters: {}, execute });
		expect(defined).toThrow(TypeError);
		expect(defined).toThrow(message);
		expect(() => start([{ ...rawTool({}), name: name as string }])).toThrow(message);
		expect(
			() => new Agent({ model: scripted.model, tools: [{ ...rawTool({}), name: name as string }] }),
		).toThrow(message);
	});

	it.each(["t", "read_file", "mcp__git-hub__list", "_2fa", "A-1", "x".repeat(64)])(
		"accepts the name %j",
		(name) => {
			expect(() => tool({ name, description: "d", parameters: {}, execute })).not.toThrow();
			expect(() => start([rawTool({}, name)])).not.toThrow();
		},
	);

	it("two tools of one name are refused: a provider rejects the request, and calls reach only the first", () => {
		const tools = [rawTool({}, "read"), rawTool({}, "write"), rawTool({}, "read")];
		expect(() => start(tools)).toThrow(
			/^tool "read" is given twice \(tools\[0\] and tools\[2\]\): providers reject a request that names a tool twice/,
		);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: tools.slice(0, 2) });
		expect(() => agent.setTools(tools)).toThrow(/is given twice/);
		expect(agent.state.tools).toHaveLength(2);
	});

	it("a tool without an execute function, a non-tool entry and a non-array list are refused", () => {
		expect(() => start([{ name: "t", description: "d", parameters: {} }])).toThrow(
			/^tool "t": execute must be a function$/,
		);
		expect(() => start([rawTool({}), null])).toThrow(/^tools\[1\] must be a tool object \(received null\)$/);
		expect(() => start(rawTool({}))).toThrow(/^tools must be an array of tools \(received object\)$/);
		expect(() => start(undefined)).not.toThrow();
	});
});
