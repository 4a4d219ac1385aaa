// The loop's generic reply guard: discard-and-retry with no knowledge of any provider quirk (SPEC X4 is
// one guard built on it; see harmony.test.ts).
import { describe, expect, it } from "vitest";
import { type AgentLoopConfig, agentLoop, type ReplyGuard } from "../../src/index.js";
import { MAX_REPLY_ATTEMPTS } from "../../src/protocol/reply-guard.js";
import { type ScriptedReply, scriptedModel } from "../../src/testing/index.js";
import { user } from "../support/run.js";
import { assertBalanced, collect, trace } from "../support/trace.js";

/** Discards every reply whose text contains "bad", raising the temperature by 0.1 per retry. */
const noBad: ReplyGuard = {
	check: (reply) => {
		const text = reply.content.map((block) => (block.type === "text" ? block.text : "")).join("");
		if (!text.includes("bad")) return { type: "commit", message: reply };
		return { type: "retry", discarded: { ...reply, content: [], stopReason: "error", errorMessage: "bad" } };
	},
	retryOptions: (options, attempt) => ({ ...options, temperature: attempt / 10 }),
};

async function run(script: ScriptedReply[], replyGuard: AgentLoopConfig["replyGuard"]) {
	const scripted = scriptedModel(script, { now: () => 0 });
	const config: AgentLoopConfig = { model: scripted.model, streamFn: scripted.stream };
	if (replyGuard) config.replyGuard = replyGuard;
	const { events, result } = await collect(agentLoop([user("hi")], { messages: [] }, config));
	assertBalanced(events);
	return { scripted, events, messages: result };
}

const text = (t: string): ScriptedReply => ({ content: [{ type: "text", text: t }] });

describe("reply guard (generic discard-and-retry)", () => {
	it("a discarded reply is closed for subscribers, never committed, and the model is called again", async () => {
		const { scripted, events, messages } = await run([text("bad one"), text("good")], () => noBad);
		expect(trace(events)).toBe(
			"agent_start turn_start ms:user me:user ms:assistant mu+ me:assistant:error ms:assistant mu+ me:assistant:stop turn_end:0 agent_end:completed",
		);
		expect(events.filter((e) => e.type === "message_end" && e.discarded)).toHaveLength(1);
		expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(scripted.calls.map((c) => c.options.temperature)).toEqual([undefined, 0.1]);
	});

	it("the guard is resolved once per run, from the run's model", async () => {
		const seen: string[] = [];
		await run([text("a")], (model) => {
			seen.push(model.id);
			return noBad;
		});
		expect(seen).toHaveLength(1);
	});

	it("a resolver returning undefined leaves replies alone", async () => {
		const { messages } = await run([text("bad but kept")], () => undefined);
		expect(JSON.stringify(messages)).toContain("bad but kept");
	});

	it("a guard that never commits is cut off: the last discarded reply is committed", async () => {
		const script = Array.from({ length: MAX_REPLY_ATTEMPTS + 2 }, () => text("bad"));
		const { scripted, messages } = await run(script, () => noBad);
		expect(scripted.calls).toHaveLength(MAX_REPLY_ATTEMPTS);
		const last = messages.at(-1);
		expect(last?.role === "assistant" && last.errorMessage).toBe("bad");
	});
});
