/**
 * Reliability: misbehaving tools and hosts (SPEC T9, I4, I5, Q3, Q5). Tools that throw non-Errors, return
 * cyclic / BigInt / 50 MB values, never settle while ignoring their signal, or call `onUpdate` after they
 * finished; hosts whose subscriber throws or is slow, that call `prompt()` from inside `agent_end`, or
 * `steer()` an idle agent. Every run ends, pairs every call and saves as JSON.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, type AgentEvent, type AgentTool, type ToolResultMessage } from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { runScript, startScript } from "../support/run.js";
import { assertBalanced, assertPaired } from "../support/trace.js";

afterEach(() => {
	vi.useRealTimers();
});

const call = (name: string) => ({ type: "toolCall" as const, name, arguments: {} });
const tool = (name: string, execute: AgentTool["execute"]): AgentTool => ({
	name,
	description: name,
	parameters: { type: "object", properties: {} },
	execute,
});
const resultsOf = (messages: readonly unknown[]) =>
	messages.filter((m): m is ToolResultMessage => (m as { role: string }).role === "toolResult");

describe("misbehaving tools", () => {
	it("SPEC T9, I5: tools that throw non-Errors or return cyclic, BigInt and 50 MB values", async () => {
		const cyclic: Record<string, unknown> = { a: 1 };
		cyclic.self = cyclic;
		const big = "x".repeat(50 * 1024 * 1024);
		const throwers = [undefined, null, "a string", 42, { code: 7 }, Symbol("s")].map((value, i) =>
			tool(`throw${i}`, async () => {
				throw value;
			}),
		);
		const returners = [
			tool("cyclic", async () => cyclic as never),
			tool("bigint", async () => ({ content: [{ type: "text", text: "ok" }], details: { n: 1n } })),
			tool("huge", async () => ({ content: [{ type: "text", text: big }], details: { big } })),
			tool("nothing", async () => undefined as never),
		];
		const tools = [...throwers, ...returners];
		const { messages, events } = await runScript(
			[{ content: tools.map((t) => call(t.name)) }, { content: [{ type: "text", text: "ok" }] }],
			{ tools },
		);
		assertBalanced(events);
		assertPaired(messages);
		const results = resultsOf(messages);
		expect(results).toHaveLength(tools.length);
		expect(results.slice(0, throwers.length).every((r) => r.isError)).toBe(true);
		expect(results.find((r) => r.toolName === "cyclic")?.isError).toBe(true); // no content array
		expect(results.find((r) => r.toolName === "bigint")?.details).toEqual({ n: "1" });
		const saved = JSON.stringify(messages);
		expect(saved.length).toBeGreaterThan(100 * 1024 * 1024);
	});

	it("SPEC I4, A1: a tool that never settles and ignores its signal cannot hold an aborted run", async () => {
		vi.useFakeTimers();
		const controller = new AbortController();
		const { done } = startScript([{ content: [call("stuck")] }], {
			tools: [tool("stuck", () => new Promise(() => {}))],
			signal: controller.signal,
		});
		await vi.advanceTimersByTimeAsync(10);
		controller.abort("stop");
		const { events, result } = await done;
		assertBalanced(events);
		assertPaired(result);
		expect(events.at(-1)?.type).toBe("agent_end");
	});

	it("SPEC T9, I2: onUpdate after the tool finished is discarded, never an event after its end", async () => {
		let late: ((partial: unknown) => void) | undefined;
		const { events, messages } = await runScript(
			[{ content: [call("chatty")] }, { content: [{ type: "text", text: "ok" }] }],
			{
				tools: [
					tool("chatty", async (_id, _args, _signal, onUpdate) => {
						late = onUpdate as (partial: unknown) => void;
						return { content: [{ type: "text", text: "done" }] };
					}),
				],
			},
		);
		const count = events.length;
		late?.({ content: [{ type: "text", text: "too late" }] });
		expect(events).toHaveLength(count);
		expect(events.some((e) => e.type === "tool_execution_update")).toBe(false);
		assertPaired(messages);
	});
});

describe("misbehaving hosts", () => {
	it("SPEC Q5: a subscriber that throws, and one that is slow (blocks synchronously), break nothing", async () => {
		const scripted = scriptedModel([{ content: [{ type: "text", text: "hello" }] }]);
		const errors: unknown[] = [];
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			onSubscriberError: (error) => errors.push(error),
		});
		agent.subscribe(() => {
			throw new Error("subscriber bug");
		});
		const seen: string[] = [];
		agent.subscribe((event) => {
			const until = performance.now() + 1;
			while (performance.now() < until) {} // a slow subscriber: 1 ms per event
			seen.push(event.type);
		});
		await agent.prompt("hi");
		expect(seen.at(-1)).toBe("agent_end");
		expect(errors.length).toBe(seen.length);
		expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("SPEC Q3: prompt() from inside agent_end is refused as busy or runs after; steer() on an idle agent is kept for the next run", async () => {
		const scripted = scriptedModel([
			{ content: [{ type: "text", text: "one" }] },
			{ content: [{ type: "text", text: "two" }] },
		]);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream });
		agent.steer("queued while idle");
		const nested: Promise<unknown>[] = [];
		const off = agent.subscribe((event: AgentEvent) => {
			if (event.type !== "agent_end") return;
			off();
			nested.push(
				agent.prompt("from agent_end").then(
					() => "ran",
					(error: Error) => error.name,
				),
			);
		});
		await agent.prompt("first");
		const outcome = await nested[0];
		await agent.waitForIdle();
		expect(["ran", "AgentBusyError"]).toContain(outcome);
		const texts = agent.state.messages.map((m) =>
			m.role === "user" ? (typeof m.content === "string" ? m.content : JSON.stringify(m.content)) : m.role,
		);
		expect(texts).toContain("queued while idle");
		assertPaired(agent.state.messages);
		expect(() => JSON.stringify(agent.state.messages)).not.toThrow();
	});
});
