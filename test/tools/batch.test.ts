import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolCall } from "../../src/core/messages.js";
import type { Step, StepRunner } from "../../src/core/step-runner.js";
import type { ToolBatchInput } from "../../src/tools/batch.js";
import type { AgentTool, ToolResult } from "../../src/tools/types.js";
import { type Args, batchHarness, deferred } from "./harness.js";

// ---- fixtures: real AgentTool objects, a real assistant message, events recorded as compact strings ----

function textTool(
	name: string,
	run: (args: Args, signal: AbortSignal) => Promise<string> | string,
	extra: Partial<AgentTool> = {},
): AgentTool {
	return {
		name,
		description: name,
		parameters: Type.Object({}, { additionalProperties: true }),
		execute: async (_id, args, signal) => ({ content: [{ type: "text", text: await run(args, signal) }] }),
		...extra,
	};
}

function harness(calls: [string, string, Args][], tools: AgentTool[], extra: Partial<ToolBatchInput> = {}) {
	const h = batchHarness(calls, tools, extra, 1000);
	const { events } = h;
	const trace = (): string[] =>
		events.map((event) => {
			if (event.type === "tool_execution_start") return `start:${event.toolCallId}`;
			if (event.type === "tool_execution_update") return `update:${event.toolCallId}`;
			if (event.type === "tool_execution_end") return `end:${event.toolCallId}:${event.status}`;
			return event.type;
		});
	return { ...h, trace };
}

const textOf = (result: { content: ToolResult["content"] }): string =>
	result.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");

/** Let queued promise callbacks run (no timers involved). */
async function flush(times = 10): Promise<void> {
	for (let i = 0; i < times; i++) await Promise.resolve();
}

// ---------------------------------------------------------------------------------------------------------

describe("runToolBatch — resolution and validation", () => {
	it("an unknown tool yields an error result naming it and listing the available ones (SPEC T2)", async () => {
		const h = harness([["c1", "serach", {}]], [textTool("search", () => "x"), textTool("read", () => "y")]);
		const batch = await h.run();
		expect(batch.statuses).toEqual(["error"]);
		expect(batch.results[0]?.isError).toBe(true);
		expect(textOf(batch.results[0]!)).toBe('Tool "serach" not found. Available tools: search, read.');
		expect(h.trace()).toEqual(["start:c1", "end:c1:error"]);
	});

	it("invalid arguments are reported per path and the tool never runs (SPEC T3)", async () => {
		let ran = false;
		const tool: AgentTool = {
			name: "count",
			description: "count",
			parameters: Type.Object({
				items: Type.Array(Type.Object({ n: Type.Integer() })),
				label: Type.String(),
			}),
			execute: async () => {
				ran = true;
				return { content: [] };
			},
		};
		const args = { items: [{ n: "1" }] };
		const h = harness([["c1", "count", args]], [tool]);
		const batch = await h.run();
		expect(ran).toBe(false);
		expect(batch.statuses).toEqual(["error"]);
		const text = textOf(batch.results[0]!);
		expect(text).toContain('Invalid arguments for tool "count"');
		expect(text).toContain('- root: missing required property "label"');
		expect(text).toContain('- /items/0/n: must be integer (received string "1")');
		expect(args).toEqual({ items: [{ n: "1" }] }); // SPEC T3: recorded arguments untouched
	});

	it("passes validated arguments (defaults applied, zod-parsed) to execute (SPEC T3)", async () => {
		const seen: Args[] = [];
		const zodTool: AgentTool = {
			name: "z",
			description: "z",
			parameters: z.object({ q: z.string(), limit: z.number().default(5) }),
			execute: async (_id, args) => {
				seen.push(args);
				return { content: [{ type: "text", text: "ok" }] };
			},
		};
		const h = harness([["c1", "z", { q: "a" }]], [zodTool]);
		const batch = await h.run();
		expect(batch.statuses).toEqual(["ok"]);
		expect(seen).toEqual([{ q: "a", limit: 5 }]);
		expect(h.input.assistantMessage.content[0]).toMatchObject({ arguments: { q: "a" } });
	});

	it("removes the intent field before validation and reports it on tool_execution_start (SPEC C5)", async () => {
		const seen: Args[] = [];
		const tool: AgentTool = {
			name: "read",
			description: "read",
			parameters: Type.Object({ path: Type.String() }, { additionalProperties: false }),
			execute: async (_id, args) => {
				seen.push(args);
				return { content: [{ type: "text", text: "file" }] };
			},
		};
		const h = harness([["c1", "read", { i: "read the config", path: "a.json" }]], [tool], {
			intentTracing: true,
		});
		const batch = await h.run();
		expect(batch.statuses).toEqual(["ok"]);
		expect(seen).toEqual([{ path: "a.json" }]);
		expect(h.events[0]).toEqual({
			type: "tool_execution_start",
			toolCallId: "c1",
			toolName: "read",
			args: { path: "a.json" },
			intent: "read the config",
		});
	});

	it("arguments that did not parse yield an error result naming the JSON problem (SPEC E4)", async () => {
		let ran = false;
		const h = harness(
			[["c1", "a", {}]],
			[
				textTool("a", () => {
					ran = true;
					return "x";
				}),
			],
		);
		const call = h.input.assistantMessage.content[0] as ToolCall;
		call.argumentsError = "Invalid JSON in tool arguments: unexpected end at 14";
		const batch = await h.run();
		expect(ran).toBe(false);
		expect(batch.statuses).toEqual(["error"]);
		expect(textOf(batch.results[0]!)).toMatch(
			/^Invalid JSON in tool arguments: unexpected end at 14\. The tool was not executed/,
		);
	});

	it("pre-skipped calls never run and get the placeholder with its reason (SPEC X1, T13)", async () => {
		let ran = 0;
		const h = harness(
			[
				["c1", "other", {}],
				["c2", "plan", {}],
			],
			[textTool("other", () => `${++ran}`), textTool("plan", () => "planned")],
			{ preSkipped: new Map([["c1", { reason: "soft_requirement" as const, requiredTool: "plan" }]]) },
		);
		const batch = await h.run();
		expect(ran).toBe(0);
		expect(batch.statuses).toEqual(["skipped", "ok"]);
		expect(textOf(batch.results[0]!)).toContain("`plan`");
		expect(batch.results[0]?.details).toEqual({
			synthetic: true,
			reason: "soft_requirement",
			executed: false,
		});
		expect(h.trace()).toEqual(["start:c1", "end:c1:skipped", "start:c2", "end:c2:ok"]);
	});
});

describe("runToolBatch — hooks", () => {
	const echo = (): AgentTool => ({
		name: "echo",
		description: "echo",
		parameters: Type.Object({ text: Type.String() }),
		execute: async (_id, args: { text: string }) => ({ content: [{ type: "text", text: args.text }] }),
	});

	it("beforeToolCall may block a call (SPEC T4)", async () => {
		const h = harness([["c1", "echo", { text: "hi" }]], [echo()], {
			beforeToolCall: () => ({ block: true, reason: "not allowed in read-only mode" }),
		});
		const batch = await h.run();
		expect(batch.statuses).toEqual(["blocked"]);
		expect(batch.results[0]?.isError).toBe(true);
		expect(textOf(batch.results[0]!)).toContain("not allowed in read-only mode");
		expect(h.trace()).toEqual(["start:c1", "end:c1:blocked"]);
	});

	it("revised arguments are re-validated, executed, shown in events and written back (SPEC T4)", async () => {
		const h = harness([["c1", "echo", { i: "say hi", text: "hi" }]], [echo()], {
			intentTracing: true,
			beforeToolCall: (ctx) => {
				expect(ctx.args).toEqual({ text: "hi" }); // intent removed
				return { args: { text: "HELLO" } };
			},
		});
		const batch = await h.run();
		expect(textOf(batch.results[0]!)).toBe("HELLO");
		expect(batch.revisedArguments.get("c1")).toEqual({ i: "say hi", text: "HELLO" });
		expect(h.events[0]).toMatchObject({
			type: "tool_execution_start",
			args: { text: "HELLO" },
			intent: "say hi",
		});
	});

	it("revised arguments keep a field named `i` when the call traces no intent (SPEC T4, C5)", async () => {
		const pick: AgentTool = {
			name: "pick",
			description: "pick",
			parameters: Type.Object({ i: Type.Integer(), label: Type.Optional(Type.String()) }),
			execute: async (_id, args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
		};
		// Tracing off, and tracing on for a tool whose own schema has `i`: either way `i` is a real argument.
		for (const intentTracing of [false, true]) {
			const h = harness([["c1", "pick", { i: 1 }]], [pick], {
				intentTracing,
				beforeToolCall: (ctx) => ({ args: { ...ctx.args, label: "x" } }),
			});
			const batch = await h.run();
			expect(batch.statuses).toEqual(["ok"]);
			expect(textOf(batch.results[0]!)).toBe('{"i":1,"label":"x"}');
			expect(batch.revisedArguments.get("c1")).toEqual({ i: 1, label: "x" });
		}
	});

	it("revised arguments are recorded as a plain JSON copy of the hook's object (SPEC T4, M6)", async () => {
		const dated: AgentTool = {
			name: "dated",
			description: "dated",
			parameters: Type.Object({ text: Type.String(), since: Type.Optional(Type.String()) }),
			execute: async (_id, args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
		};
		const revised: Args = { text: "hi", since: new Date(0) };
		const h = harness([["c1", "dated", { text: "x" }]], [dated], {
			beforeToolCall: () => ({ args: revised }),
		});
		const batch = await h.run();
		revised.text = "changed after the hook returned";
		const expected = { text: "hi", since: "1970-01-01T00:00:00.000Z" };
		expect(textOf(batch.results[0]!)).toBe(JSON.stringify(expected));
		// No Date instance and no shared object in history or events: what the tool got, as JSON.
		expect(batch.revisedArguments.get("c1")).toStrictEqual(expected);
		expect(h.events[0]).toMatchObject({ type: "tool_execution_start", args: expected });
		expect((h.events[0] as { args: Args }).args.since).toBeTypeOf("string");
	});

	it("revised arguments that fail validation yield an error result (SPEC T4, T3)", async () => {
		const h = harness([["c1", "echo", { text: "hi" }]], [echo()], {
			beforeToolCall: () => ({ args: { text: 42 } }),
		});
		const batch = await h.run();
		expect(batch.statuses).toEqual(["error"]);
		expect(textOf(batch.results[0]!)).toContain("/text: must be string (received number 42)");
		expect(batch.revisedArguments.size).toBe(0);
	});

	it("a throwing beforeToolCall yields an error result with its message (SPEC T4)", async () => {
		const h = harness([["c1", "echo", { text: "hi" }]], [echo()], {
			beforeToolCall: () => {
				throw new Error("policy service down");
			},
		});
		const batch = await h.run();
		expect(batch.statuses).toEqual(["error"]);
		expect(textOf(batch.results[0]!)).toContain("policy service down");
	});

	it("afterToolCall patches the result, which is coerced again (SPEC T5, T9)", async () => {
		const h = harness(
			[
				["c1", "echo", { text: "secret" }],
				["c2", "echo", { text: "fine" }],
			],
			[echo()],
			{
				afterToolCall: (ctx) => {
					if (ctx.toolCall.id === "c1")
						return { content: [{ type: "text", text: "[redacted]" }], details: { r: 1 } };
					// An unsupported block in the patch is dropped and turns the result into an error.
					return { content: [...ctx.result.content, { type: "audio" } as never] };
				},
			},
		);
		const batch = await h.run();
		expect(textOf(batch.results[0]!)).toBe("[redacted]");
		expect(batch.results[0]?.details).toEqual({ r: 1 });
		expect(batch.statuses).toEqual(["ok", "error"]);
		expect(textOf(batch.results[1]!)).toMatch(/^fine\n\[1 unsupported content block was dropped/);
	});
});

describe("runToolBatch — afterToolCall failure", () => {
	it("a throwing afterToolCall keeps the tool's output, adds the failure and marks an error (SPEC T5)", async () => {
		const h = harness([["c1", "a", {}]], [textTool("a", () => "side effect done")], {
			afterToolCall: () => {
				throw new Error("audit log offline");
			},
		});
		const batch = await h.run();
		expect(batch.statuses).toEqual(["error"]);
		expect(textOf(batch.results[0]!)).toBe(
			"side effect done\nThe tool ran, but the afterToolCall hook failed: audit log offline",
		);
	});
});

describe("runToolBatch — execution", () => {
	it("a thrown error becomes an error result whose text is the message (SPEC T8)", async () => {
		const h = harness(
			[["c1", "fail", {}]],
			[
				textTool("fail", () => {
					throw new Error("disk full");
				}),
			],
		);
		const batch = await h.run();
		expect(batch.statuses).toEqual(["error"]);
		expect(textOf(batch.results[0]!)).toBe("disk full");
	});

	it("one failing tool never cancels its siblings; results come in call order (SPEC T7)", async () => {
		const slow = deferred<string>();
		const h = harness(
			[
				["a", "slow", {}],
				["b", "fail", {}],
				["c", "fast", {}],
			],
			[
				textTool("slow", () => slow.promise),
				textTool("fail", () => {
					throw new Error("nope");
				}),
				textTool("fast", () => "quick"),
			],
		);
		const pending = h.run();
		await flush();
		slow.resolve("finally");
		const batch = await pending;
		expect(batch.results.map((result) => result.toolCallId)).toEqual(["a", "b", "c"]);
		expect(batch.statuses).toEqual(["ok", "error", "ok"]);
		expect(textOf(batch.results[0]!)).toBe("finally");
		// tool_execution_end fires as tools finish, not in call order.
		expect(h.trace()).toEqual(["start:a", "start:b", "start:c", "end:b:error", "end:c:ok", "end:a:ok"]);
	});

	it("[slow shared A, fast shared B, exclusive C]: B may finish before A; C starts after both (SPEC T6)", async () => {
		const a = deferred<string>();
		const log: string[] = [];
		const h = harness(
			[
				["A", "shared", { name: "A" }],
				["B", "shared", { name: "B" }],
				["C", "exclusive", { name: "C" }],
			],
			[
				textTool("shared", async (args) => {
					log.push(`begin ${args.name}`);
					const text = args.name === "A" ? await a.promise : "b";
					log.push(`finish ${args.name}`);
					return text;
				}),
				textTool(
					"exclusive",
					() => {
						log.push("begin C");
						return "c";
					},
					{ concurrency: "exclusive" },
				),
			],
		);
		const pending = h.run();
		await flush();
		expect(log).toEqual(["begin A", "begin B", "finish B"]);
		a.resolve("a");
		const batch = await pending;
		expect(log).toEqual(["begin A", "begin B", "finish B", "finish A", "begin C"]);
		expect(batch.statuses).toEqual(["ok", "ok", "ok"]);
		expect(h.trace()).toEqual(["start:A", "start:B", "end:B:ok", "end:A:ok", "start:C", "end:C:ok"]);
	});

	it("a concurrency resolver that throws makes the call exclusive (SPEC T6)", async () => {
		const first = deferred<string>();
		const log: string[] = [];
		const h = harness(
			[
				["a", "slow", {}],
				["b", "odd", {}],
			],
			[
				textTool("slow", () => first.promise),
				textTool(
					"odd",
					() => {
						log.push("odd ran");
						return "o";
					},
					{
						concurrency: () => {
							throw new Error("cannot tell");
						},
					},
				),
			],
		);
		const pending = h.run();
		await flush();
		expect(log).toEqual([]);
		first.resolve("s");
		await pending;
		expect(log).toEqual(["odd ran"]);
	});

	it("coerces results and onUpdate partials (SPEC T9)", async () => {
		const tool: AgentTool = {
			name: "weird",
			description: "weird",
			parameters: { type: "object" },
			execute: async (_id, _args, _signal, onUpdate) => {
				onUpdate({ content: [{ type: "text", text: "50%" }] });
				onUpdate({ nope: true } as never);
				return "not a result" as never;
			},
		};
		const h = harness([["c1", "weird", {}]], [tool]);
		const batch = await h.run();
		const updates = h.events.filter((event) => event.type === "tool_execution_update");
		expect(
			updates.map((event) => (event.type === "tool_execution_update" ? event.partialResult.isError : null)),
		).toEqual([false, true]);
		expect(batch.statuses).toEqual(["error"]);
		expect(textOf(batch.results[0]!)).toMatch(/invalid result/);
		expect(h.trace()).toEqual(["start:c1", "update:c1", "update:c1", "end:c1:error"]);
	});

	it("times each call with the injected clock; calls that never started take 0 ms (SPEC L13, X3)", async () => {
		let clock = 100;
		const gate = deferred<string>();
		const h = harness(
			[
				["c1", "slow", {}],
				["c2", "ghost", {}],
			],
			[textTool("slow", () => gate.promise)],
			{ now: () => clock },
		);
		const pending = h.run();
		await flush();
		clock = 350;
		gate.resolve("done");
		const batch = await pending;
		expect(batch.durationsMs).toEqual([250, 0]);
		expect(batch.results[0]?.timestamp).toBe(350);
		expect(batch.interrupted).toBe(false);
	});

	it("wraps every execute in the step runner with the call's id and name (SPEC L13)", async () => {
		const steps: Step[] = [];
		const runStep: StepRunner = (step, fn) => {
			steps.push(step);
			return fn();
		};
		const h = harness(
			[
				["c1", "a", {}],
				["c2", "nope", {}],
				["c3", "a", {}],
			],
			[textTool("a", () => "x")],
			{ runStep },
		);
		await h.run();
		expect(steps).toEqual([
			{ kind: "tool", id: "c1", name: "a" },
			{ kind: "tool", id: "c3", name: "a" },
		]);
	});

	it("a replaying step runner supplies the recorded result without running the tool (SPEC L13)", async () => {
		let ran = false;
		const runStep: StepRunner = async <T>() => ({ content: [{ type: "text", text: "recorded" }] }) as T;
		const h = harness(
			[["c1", "a", {}]],
			[
				textTool("a", () => {
					ran = true;
					return "live";
				}),
			],
			{ runStep },
		);
		const batch = await h.run();
		expect(ran).toBe(false);
		expect(textOf(batch.results[0]!)).toBe("recorded");
	});

	it("passes ctx with the transcript, the call and a steeringRequested signal (SPEC T1, T10)", async () => {
		const messages = [{ role: "user" as const, content: "hi", timestamp: 1 }];
		let seen: unknown;
		const tool: AgentTool = {
			name: "ctx",
			description: "ctx",
			parameters: { type: "object" },
			execute: async (_id, _args, _signal, _onUpdate, ctx) => {
				seen = { messages: ctx.messages, id: ctx.toolCall.id, steering: ctx.steeringRequested.aborted };
				return { content: [] };
			},
		};
		const h = harness([["c1", "ctx", {}]], [tool], { messages });
		await h.run();
		expect(seen).toEqual({ messages, id: "c1", steering: false });
	});
});
