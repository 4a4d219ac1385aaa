/**
 * Hardening item 8 — SPEC M6, I5, T9: a tool's `details` that are not JSON (BigInt, cycles, functions,
 * class instances) must not break saving: the single entry where tool results enter the transcript makes
 * them plain JSON, for results, `onUpdate` partials and `afterToolCall` patches alike.
 */
import { describe, expect, it } from "vitest";
import type { AgentTool, ToolResultMessage } from "../../src/index.js";
import { runScript } from "../support/run.js";

const call = (id: string, name: string) => ({ type: "toolCall" as const, id, name, arguments: {} });

function tool(name: string, details: () => unknown, extra: Partial<AgentTool> = {}): AgentTool {
	return {
		name,
		description: name,
		parameters: { type: "object", properties: {} },
		async execute(_id, _args, _signal, onUpdate) {
			onUpdate?.({ content: [{ type: "text", text: "working" }], details: details() });
			return { content: [{ type: "text", text: `${name} done` }], details: details() };
		},
		...extra,
	};
}

describe("item 8: a tool's non-JSON details", () => {
	it("SPEC M6, I5: BigInt and cyclic details are stored as plain JSON; the transcript saves and reloads", async () => {
		const cyclic = () => {
			const value: Record<string, unknown> = { name: "node", when: new Date(0), fn: () => 1 };
			value.self = value;
			return value;
		};
		const { messages, events } = await runScript(
			[{ content: [call("c1", "big"), call("c2", "cycle")] }, { content: [{ type: "text", text: "ok" }] }],
			{ tools: [tool("big", () => ({ n: 10n, list: [1n] })), tool("cycle", cyclic)] },
		);
		const saved = JSON.stringify(messages);
		expect(JSON.parse(saved)).toEqual(messages);
		const results = messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
		expect(results.map((r) => r.details)).toEqual([
			{ n: "10", list: ["1"] },
			{ name: "node", when: "1970-01-01T00:00:00.000Z", self: "[Circular]" },
		]);
		// Partials in events are plain too: a host that logs events as JSON lines does not throw.
		expect(() => JSON.stringify(events)).not.toThrow();
		const update = events.find((e) => e.type === "tool_execution_update");
		expect(update).toBeDefined();
	});

	it("SPEC T5, I5: details patched in by afterToolCall are made plain JSON too, and extra block fields are dropped", async () => {
		const { messages } = await runScript(
			[{ content: [call("c1", "plain")] }, { content: [{ type: "text", text: "ok" }] }],
			{
				tools: [
					tool("plain", () => ({ ok: true }), {
						async execute() {
							return { content: [{ type: "text", text: "x", extra: 5n } as never] };
						},
					}),
				],
				config: { afterToolCall: async () => ({ details: { big: 2n ** 70n } }) },
			},
		);
		const result = messages.find((m): m is ToolResultMessage => m.role === "toolResult");
		expect(result?.details).toEqual({ big: "1180591620717411303424" });
		expect(result?.content).toEqual([{ type: "text", text: "x" }]);
		expect(() => JSON.stringify(messages)).not.toThrow();
	});
});
