import { describe, expect, it } from "vitest";
import { type AgentMessage, type AgentTool, defaultConvertToLlm, type Message } from "../../src/index.js";
import { assistant, echoTool, runScript, user } from "../support/run.js";
import { trace } from "../support/trace.js";

const text = (t: string) => ({ type: "text" as const, text: t });

declare module "../../src/core/messages.js" {
	interface CustomAgentMessages {
		notice: { role: "notice"; text: string; timestamp: number };
	}
}

describe("the context boundary", () => {
	it("SPEC C1: transformContext → convertToLlm → normalizeMessages, per call, output not written back", async () => {
		const order: string[] = [];
		const { scripted, messages } = await runScript([{ content: [text("a")] }], {
			messages: [user("old 1"), assistant([text("old")], "stop")],
			config: {
				transformContext: async (ms) => {
					order.push(`transform:${ms.length}`);
					return ms.slice(-1); // prune to the newest message only
				},
				convertToLlm: (ms) => {
					order.push(`convert:${ms.length}`);
					return defaultConvertToLlm(ms);
				},
				normalizeMessages: (ms, model) => {
					order.push(`normalize:${ms.length}:${model.id}`);
					return ms;
				},
			},
		});
		expect(order).toEqual(["transform:3", "convert:1", `normalize:1:${scripted.model.id}`]);
		expect(scripted.calls[0]?.context.messages).toHaveLength(1);
		// The pruning was not written back: the run added the prompt and the reply.
		expect(messages).toHaveLength(2);
	});

	it("SPEC C2: the default conversion keeps user, toolResult and assistant; custom roles are dropped", () => {
		const notice: AgentMessage = { role: "notice", text: "saved", timestamp: 0 };
		const u = user("x");
		const out = defaultConvertToLlm([u, notice]);
		expect(out).toEqual([u]);
		expect(out[0]).toBe(u); // identity kept
	});

	it("SPEC C2, SPEC M1: custom messages ride in the transcript but never reach the provider", async () => {
		const notice: AgentMessage = { role: "notice", text: "saved", timestamp: 0 };
		const { scripted } = await runScript([{ content: [text("a")] }], { prompts: [notice, user("hi")] });
		expect(scripted.calls[0]?.context.messages.map((m: Message) => m.role)).toEqual(["user"]);
	});

	it("SPEC C2: a prompt of custom messages only, after a finished reply, makes no model call", async () => {
		// The wire context would end with the model's own reply: a prefill (a 400 on Anthropic with thinking
		// on), or a repeated answer elsewhere.
		const notice: AgentMessage = { role: "notice", text: "Deploy started", timestamp: 0 };
		const history = [user("hi"), assistant([text("hello")], "stop")];
		const { scripted, events, messages } = await runScript([{ content: [text("again")] }], {
			messages: history,
			prompts: [notice],
		});
		expect(scripted.calls).toHaveLength(0);
		expect(messages).toEqual([notice]);
		expect(trace(events)).toBe("agent_start ms:notice me:notice agent_end:completed");

		// A follow-up the host queued next is still answered, in the same run.
		const followUps = [user("and now?")];
		const next = await runScript([{ content: [text("answer")] }], {
			messages: history,
			prompts: [notice],
			config: { getFollowUpMessages: () => followUps.splice(0, 1) },
		});
		expect(next.scripted.calls).toHaveLength(1);
		expect(next.scripted.calls[0]?.context.messages.at(-1)?.role).toBe("user");
	});

	it("SPEC C2: continuing a transcript that ends in a custom message after a finished reply makes no model call", async () => {
		const notice: AgentMessage = { role: "notice", text: "saved", timestamp: 0 };
		const { scripted, messages } = await runScript([{ content: [text("again")] }], {
			messages: [user("hi"), assistant([text("hello")], "stop"), notice],
			continue: true,
		});
		expect(scripted.calls).toHaveLength(0);
		expect(messages).toEqual([]);
	});

	it("SPEC C3/S5: a refused reply stays in the transcript but the next request contains no text of it", async () => {
		const refused = await runScript([
			{ content: [text("I refuse SECRET")], stopDetails: { type: "refusal" } },
		]);
		expect((refused.messages[1] as { stopReason: string }).stopReason).toBe("error");
		const next = await runScript([{ content: [text("ok")] }], {
			messages: refused.messages,
			prompts: [user("try something else")],
		});
		expect(next.scripted.calls[0]?.context.messages.map((m) => m.role)).toEqual(["user", "user"]);
		expect(JSON.stringify(next.scripted.calls[0]?.context.messages)).not.toContain("SECRET");
	});

	it("SPEC C4: normalizeMessages sees the model and unchanged messages keep their identity", async () => {
		const seen: Message[][] = [];
		const { scripted } = await runScript([{ content: [text("a")] }], {
			config: {
				normalizeMessages: (ms) => {
					seen.push(ms);
					return ms;
				},
			},
		});
		expect(scripted.calls[0]?.context.messages[0]).toBe(seen[0]?.[0]);
	});

	it("SPEC C4: what normalizeMessages changes in place applies to its own call only", async () => {
		// A normalizer for a server that wants a user turn after tool results; it edits the array it is given.
		const normalizeMessages = (ms: Message[]) => {
			if (ms.at(-1)?.role === "toolResult") ms.push(user("(continue)"));
			return ms;
		};
		const { scripted } = await runScript(
			[
				{ content: [{ type: "toolCall", name: "echo", arguments: { text: "a" } }] },
				{ content: [{ type: "toolCall", name: "echo", arguments: { text: "b" } }] },
				{ content: [text("done")] },
			],
			{ tools: [echoTool()], config: { normalizeMessages } },
		);
		const roles = scripted.calls.map((call) => call.context.messages.map((m) => m.role).join(" "));
		expect(roles).toEqual([
			"user",
			"user assistant toolResult user",
			"user assistant toolResult assistant toolResult user",
		]);
	});

	it("SPEC C5: intent tracing adds a required `i` first, strips it before validation and reports it", async () => {
		const tool: AgentTool = echoTool();
		let received: unknown;
		tool.execute = async (_id, args) => {
			received = args;
			return { content: [text("ok")] };
		};
		const { scripted, events } = await runScript(
			[
				{ content: [{ type: "toolCall", name: "echo", arguments: { i: "look it up", text: "q" } }] },
				{ content: [text("done")] },
			],
			{ tools: [tool], config: { intentTracing: true } },
		);
		const spec = scripted.calls[0]?.context.tools?.[0]?.parameters as {
			properties: object;
			required: string[];
		};
		expect(Object.keys(spec.properties)[0]).toBe("i");
		expect(spec.required[0]).toBe("i");
		expect(received).toEqual({ text: "q" });
		const start = events.find((e) => e.type === "tool_execution_start");
		expect(start?.type === "tool_execution_start" && start.intent).toBe("look it up");
	});
});
