import { describe, expect, it } from "vitest";
import {
	Agent,
	type AgentTool,
	type AssistantMessage,
	type BeforeModelCallContext,
} from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { echoTool, runScript, user } from "../support/run.js";
import { assertBalanced, trace } from "../support/trace.js";

const text = (t: string) => ({ type: "text" as const, text: t });
const call = (t: string) => ({ type: "toolCall" as const, name: "echo", arguments: { text: t } });

describe("SPEC X6 beforeModelCall gate", () => {
	it("sees the final provider-bound context (after transformContext and conversion)", async () => {
		const seen: BeforeModelCallContext[] = [];
		await runScript([{ content: [text("a")] }], {
			systemPrompt: "sys",
			tools: [echoTool()],
			config: {
				transformContext: async (ms) => [...ms, user("injected by transform")],
				beforeModelCall: (ctx) => {
					seen.push(ctx);
					return undefined;
				},
			},
		});
		expect(seen[0]?.context.systemPrompt).toBe("sys");
		expect(seen[0]?.context.messages.map((m) => m.content)).toEqual(["hi", "injected by transform"]);
		expect(seen[0]?.context.tools?.map((t) => t.name)).toEqual(["echo"]);
	});

	it("{stop: true, reason} ends the run before the call; pending inputs are still emitted; no turn is left open", async () => {
		const { events, scripted, messages } = await runScript([{ content: [text("never")] }], {
			config: { beforeModelCall: () => ({ stop: true, reason: "budget exhausted" }) },
		});
		expect(scripted.calls).toHaveLength(0);
		expect(trace(events)).toBe("agent_start ms:user me:user agent_end:completed");
		assertBalanced(events);
		expect(messages.map((m) => (m as { role: string }).role)).toEqual(["user"]);
		const end = events.at(-1);
		expect(end?.type === "agent_end" && end.outcome).toEqual({
			type: "completed",
			stoppedBy: "budget exhausted",
		});
	});

	it("a cost budget: stop once the run's spend passes a limit", async () => {
		const replies = Array.from({ length: 10 }, () => ({
			content: [call("x")],
			usage: { cost: { input: 0, output: 0.02, cacheRead: 0, cacheWrite: 0, total: 0.02 } },
		}));
		const { scripted, events } = await runScript(replies, {
			tools: [echoTool()],
			config: {
				beforeModelCall: ({ messages }) => {
					const spent = messages.reduce(
						(sum, m) =>
							sum +
							((m as AssistantMessage).role === "assistant" ? (m as AssistantMessage).usage.cost.total : 0),
						0,
					);
					return spent >= 0.05 ? { stop: true, reason: `budget: spent $${spent.toFixed(2)}` } : undefined;
				},
			},
		});
		expect(scripted.calls).toHaveLength(3);
		const end = events.at(-1);
		expect(end?.type === "agent_end" && end.outcome).toEqual({
			type: "completed",
			stoppedBy: "budget: spent $0.06",
		});
	});
});

describe("SPEC X5 thinking levels in the loop", () => {
	it("changing the level on the Agent mid-run applies to the next model call", async () => {
		const scripted = scriptedModel([{ content: [call("x")] }, { content: [text("done")] }]);
		let agent: Agent | undefined;
		const bump: AgentTool = {
			...echoTool(),
			execute: async () => {
				agent?.setThinkingLevel("high");
				return { content: [text("ok")] };
			},
		};
		agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [bump],
			thinkingLevel: "low",
		});
		await agent.prompt("go");
		expect(scripted.calls.map((c) => c.options.thinkingLevel)).toEqual(["low", "high"]);
	});
});
