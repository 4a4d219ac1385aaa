import { describe, expect, it } from "vitest";
import {
	Agent,
	type AgentLoopConfig,
	type AssistantMessage,
	agentLoop,
	emptyUsage,
} from "../../src/index.js";
import {
	findHarmonyMarker,
	type HarmonyLeakReport,
	harmonyLeakGuard,
	inspectHarmony,
} from "../../src/providers/openai-completions/harmony-guard.js";
import { type ScriptedReply, scriptedModel } from "../../src/testing/index.js";
import { echoTool, user } from "../support/run.js";
import { assertBalanced, collect, trace } from "../support/trace.js";

const LEAK = "Sure.<|end|><|start|>assistant<|channel|>commentary to=functions.echo <|message|>{}";

async function guarded(script: ScriptedReply[], extra: Partial<AgentLoopConfig> = {}, guard = true) {
	const scripted = scriptedModel(script, {
		model: { compat: guard ? { harmonyLeakGuard: true } : {} },
		now: () => 0,
	});
	const reports: HarmonyLeakReport[] = [];
	const stream = agentLoop(
		[user("hi")],
		{ messages: [], tools: [echoTool()] },
		{
			model: scripted.model,
			streamFn: scripted.stream,
			replyGuard: harmonyLeakGuard({ onLeak: (r) => reports.push(r) }),
			...extra,
		},
	);
	const { events, result } = await collect(stream);
	return { scripted, reports, events, messages: result };
}

const reply = (content: AssistantMessage["content"]): AssistantMessage => ({
	role: "assistant",
	content,
	api: "x",
	provider: "x",
	model: "x",
	usage: emptyUsage(),
	stopReason: "stop",
	timestamp: 0,
});

describe("SPEC X4 Harmony leak guard — detection", () => {
	it.each([
		["<|channel|>analysis", "<|channel|>"],
		["call to=functions.read now", "to=functions.read"],
		["plain text about channels", undefined],
		["a|b <| c", undefined],
	])("findHarmonyMarker(%j) → %j", (text, marker) => {
		expect(findHarmonyMarker(text)?.marker).toBe(marker);
	});

	it("markers inside a parsed argument's string value are data, not a leak", () => {
		const doc = {
			type: "toolCall" as const,
			id: "c",
			name: "write",
			arguments: { content: "tokens like <|call|> end a call" },
		};
		expect(inspectHarmony(reply([doc]))).toEqual({ type: "clean" });
	});

	it("a valid JSON object followed by leaked protocol is recovered by truncation", () => {
		const leaky = {
			type: "toolCall" as const,
			id: "c",
			name: "echo",
			arguments: {},
			argumentsError: "Invalid JSON in tool arguments: …",
			argumentsText: '{"text":"a"}<|call|>commentary',
		};
		const verdict = inspectHarmony(reply([leaky]));
		expect(verdict.type).toBe("recovered");
		if (verdict.type === "recovered") {
			expect(verdict.message.content[0]).toEqual({
				type: "toolCall",
				id: "c",
				name: "echo",
				arguments: { text: "a" },
			});
		}
	});

	it("leaks in text, thinking and tool names are not recoverable", () => {
		expect(inspectHarmony(reply([{ type: "text", text: LEAK }])).type).toBe("leaked");
		expect(inspectHarmony(reply([{ type: "thinking", thinking: "<|start|>assistant" }])).type).toBe("leaked");
		expect(
			inspectHarmony(reply([{ type: "toolCall", id: "c", name: "echo<|channel|>x", arguments: {} }])).type,
		).toBe("leaked");
	});
});

describe("SPEC X4 Harmony leak guard — in the loop", () => {
	it("a leaked reply is discarded (closed, never in the transcript) and the turn retried", async () => {
		const { events, messages, reports, scripted } = await guarded([
			{ content: [{ type: "text", text: LEAK }] },
			{ content: [{ type: "text", text: "Clean answer." }] },
		]);
		expect(scripted.calls).toHaveLength(2);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:error ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		assertBalanced(events);
		expect(JSON.stringify(messages)).not.toContain("<|");
		expect(messages.map((m) => (m as { role: string }).role)).toEqual(["user", "assistant"]);
		expect(reports).toEqual([{ location: "text", marker: "<|end|>", action: "retry", attempt: 0 }]);
	});

	it("a clean tool call is recovered by truncating the leak, and runs", async () => {
		const { messages, reports } = await guarded([
			{ content: [{ type: "toolCall", name: "echo", arguments: '{"text":"a"}<|call|>commentary' }] },
			{ content: [{ type: "text", text: "done" }] },
		]);
		expect(reports.map((r) => r.action)).toEqual(["recover"]);
		expect(messages[2]).toMatchObject({
			role: "toolResult",
			isError: false,
			content: [{ type: "text", text: "echo:a" }],
		});
		expect(JSON.stringify(messages)).not.toContain("<|call|>");
	});

	it("after 2 retries the run fails clearly; temperature is nudged on each retry", async () => {
		const leaky = { content: [{ type: "text" as const, text: LEAK }] };
		const { messages, reports, scripted, events } = await guarded([leaky, leaky, leaky, leaky], {
			streamOptions: { temperature: 0.5 },
		});
		expect(scripted.calls.map((c) => c.options.temperature)).toEqual([0.5, 0.7, 0.9]);
		expect(reports.map((r) => r.action)).toEqual(["retry", "retry", "fail"]);
		expect(JSON.stringify(messages)).not.toContain("<|");
		const end = events.at(-1);
		expect(end?.type === "agent_end" && end.outcome.type).toBe("error");
		expect((messages.at(-1) as AssistantMessage).errorMessage).toMatch(
			/leaked the model's internal channel protocol/,
		);
	});

	it("models not flagged are not inspected", async () => {
		const { messages, reports } = await guarded([{ content: [{ type: "text", text: LEAK }] }], {}, false);
		expect(reports).toEqual([]);
		expect(JSON.stringify(messages)).toContain("<|channel|>");
	});

	it("the Agent's transcript never holds the discarded reply either", async () => {
		const scripted = scriptedModel(
			[{ content: [{ type: "text", text: LEAK }] }, { content: [{ type: "text", text: "Clean." }] }],
			{ model: { compat: { harmonyLeakGuard: true } } },
		);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream });
		const ends: boolean[] = [];
		agent.subscribe((e) => e.type === "message_end" && ends.push(e.discarded === true));
		await agent.prompt("hi");
		expect(ends).toEqual([false, true, false]);
		expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(JSON.stringify(agent.state.messages)).not.toContain("<|");
	});
});
