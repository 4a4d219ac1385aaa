import { afterEach, describe, expect, it, vi } from "vitest";
import { AssistantMessageBuilder } from "../../src/core/assistant-builder.js";
import {
	Agent,
	AgentBusyError,
	type AgentEvent,
	type AssistantMessage,
	type AssistantMessageEvent,
	agentLoop,
	EventStream,
	NothingToContinueError,
	type StreamFunction,
	type ToolResultMessage,
} from "../../src/index.js";
import { type ScriptedReply, scriptedModel } from "../../src/testing/index.js";
import { assistant, echoTool } from "../support/run.js";
import { assertPaired } from "../support/trace.js";

const text = (t: string) => ({ type: "text" as const, text: t });
const call = (t: string, name = "echo") => ({ type: "toolCall" as const, name, arguments: { text: t } });

function agentOn(
	script: ScriptedReply[] | Parameters<typeof scriptedModel>[0],
	tools = [echoTool("echo", { ms: 100, interruptible: true })],
) {
	const scripted = scriptedModel(script as ScriptedReply[]);
	const agent = new Agent({
		model: scripted.model,
		streamFn: scripted.stream,
		tools,
		systemPrompt: "be brief",
	});
	const events: AgentEvent[] = [];
	agent.subscribe((e) => events.push(e));
	return { agent, scripted, events };
}

afterEach(() => {
	vi.useRealTimers();
});

describe("Agent", () => {
	it("SPEC Q1: state follows the run's events; prompt resolves when the run ends", async () => {
		const { agent, scripted } = agentOn([{ content: [call("a")] }, { content: [text("done")] }]);
		const seen: boolean[] = [];
		agent.subscribe((e) => {
			if (e.type === "message_update") seen.push(agent.state.streamMessage === e.message);
			if (e.type === "tool_execution_start")
				expect(agent.state.pendingToolCalls.has(e.toolCallId)).toBe(true);
		});
		const running = agent.prompt("hi");
		expect(agent.state.isStreaming).toBe(true);
		await running;
		expect(agent.state.isStreaming).toBe(false);
		expect(seen.every(Boolean)).toBe(true);
		expect(agent.state.messages.map((m) => (m as { role: string }).role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"assistant",
		]);
		expect(scripted.calls[0]?.context.systemPrompt).toBe("be brief");
		expect(agent.state.pendingToolCalls.size).toBe(0);
	});

	it("SPEC Q3: prompt() while running throws a busy error naming steer() and followUp()", async () => {
		const { agent } = agentOn([{ content: [text("slow")], delayMs: 1 }]);
		const running = agent.prompt("one");
		await expect(agent.prompt("two")).rejects.toThrow(AgentBusyError);
		await expect(agent.prompt("two")).rejects.toThrow(/steer\(\).*followUp\(\)/);
		await running;
	});

	it("SPEC Q2: steer() during a tool interrupts it (immediate mode) and is injected next; peekSteeringQueue is read-only", async () => {
		vi.useFakeTimers();
		const { agent, scripted } = agentOn([{ content: [call("long")] }, { content: [text("ok, switching")] }]);
		const running = agent.prompt("start");
		await vi.advanceTimersByTimeAsync(10);
		agent.steer("do something else");
		expect(agent.peekSteeringQueue()).toHaveLength(1);
		await vi.runAllTimersAsync();
		await running;
		const result = agent.state.messages[2] as ToolResultMessage;
		expect(result.details).toMatchObject({ synthetic: true, reason: "interrupted" });
		expect(scripted.calls[1]?.context.messages.at(-1)).toMatchObject({
			role: "user",
			content: "do something else",
		});
		expect(agent.peekSteeringQueue()).toHaveLength(0);
	});

	it("SPEC Q2: 'one-at-a-time' dequeues one follow-up per stop; 'all' takes everything", async () => {
		const { agent, scripted } = agentOn(Array.from({ length: 4 }, (_, i) => ({ content: [text(`r${i}`)] })));
		agent.followUp("f1");
		agent.followUp("f2");
		await agent.prompt("p");
		expect(scripted.calls).toHaveLength(3);

		const second = agentOn(Array.from({ length: 4 }, (_, i) => ({ content: [text(`r${i}`)] })));
		second.agent.setQueueModes({ followUp: "all" });
		second.agent.followUp("f1");
		second.agent.followUp("f2");
		await second.agent.prompt("p");
		expect(second.scripted.calls).toHaveLength(2);
	});

	it("SPEC Q2: a queue mode that is neither is refused, not taken as 'one-at-a-time'", async () => {
		const scripted = scriptedModel([]);
		const base = { model: scripted.model, streamFn: scripted.stream };
		expect(() => new Agent({ ...base, followUpMode: "All" as never })).toThrow(
			new TypeError('new Agent: followUpMode: a queue mode is "one-at-a-time" or "all" (received "All")'),
		);
		expect(() => new Agent({ ...base, steeringMode: "each" as never })).toThrow(/steeringMode/);
		const { agent, scripted: played } = agentOn(
			Array.from({ length: 4 }, (_, i) => ({ content: [text(`r${i}`)] })),
		);
		expect(() => agent.setQueueModes({ steering: "x" as never, followUp: "all" })).toThrow(
			/^Agent\.setQueueModes: steering: a queue mode is/,
		);
		// Neither mode changed: the follow-ups still go out one per stop.
		agent.followUp("f1");
		agent.followUp("f2");
		await agent.prompt("p");
		expect(played.calls).toHaveLength(3);
	});

	it("SPEC Q4: continue() policy — busy, resume a dangling batch, queued steer, queued follow-up, nothing", async () => {
		const { agent, scripted } = agentOn(
			[{ content: [text("a")] }, { content: [text("b")] }, { content: [text("c")] }],
			[echoTool()],
		);
		await expect(agent.continue()).rejects.toThrow(NothingToContinueError);
		await agent.prompt("p");
		await expect(agent.continue()).rejects.toThrow(/Nothing to continue from/);
		agent.followUp("queued follow-up");
		await agent.continue(); // never throws while a message is queued
		expect(scripted.calls).toHaveLength(2);
		agent.steer("queued steer");
		await agent.continue();
		expect(scripted.calls[2]?.context.messages.at(-1)).toMatchObject({ content: "queued steer" });

		const dangling = agentOn([{ content: [text("after resume")] }], [echoTool()]);
		dangling.agent.replaceMessages([
			{ role: "user", content: "go", timestamp: 0 },
			assistant([{ type: "toolCall", id: "c1", name: "echo", arguments: { text: "x" } }], "toolUse"),
		]);
		await dangling.agent.continue();
		assertPaired(dangling.agent.state.messages);
		expect(dangling.agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("SPEC Q4: continue() while running throws busy", async () => {
		const { agent } = agentOn([{ content: [text("slow")], delayMs: 1 }]);
		const running = agent.prompt("one");
		await expect(agent.continue()).rejects.toThrow(AgentBusyError);
		await running;
	});

	it("SPEC Q5: a throwing subscriber is reported and never breaks the run", async () => {
		const scripted = scriptedModel([{ content: [text("fine")] }]);
		const reported: unknown[] = [];
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			onSubscriberError: (e) => reported.push(e),
		});
		agent.subscribe(() => {
			throw new Error("bad listener");
		});
		await agent.prompt("hi");
		expect(reported.length).toBeGreaterThan(0);
		expect(agent.state.messages).toHaveLength(2);
	});

	it("SPEC Q5: an async subscriber's rejection is reported too, never left unhandled", async () => {
		const scripted = scriptedModel([{ content: [text("fine")] }, { content: [text("again")] }]);
		const reported: [unknown, string][] = [];
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			onSubscriberError: (error, event) => reported.push([error, event.type]),
		});
		const saveFailed = new Error("could not save the session");
		const save = async (e: AgentEvent) => {
			if (e.type === "agent_end") throw saveFailed;
		};
		agent.subscribe(save);
		const unsubscribe = agent.subscribe(save); // still one subscription
		await agent.prompt("hi");
		await vi.waitFor(() => expect(reported).toEqual([[saveFailed, "agent_end"]]));
		unsubscribe();
		await agent.prompt("and again");
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(reported).toHaveLength(1);
		expect(agent.state.messages).toHaveLength(4);
	});

	it("SPEC Q6: subscribers run as each event is emitted, so abort() from a subscriber stops the reply right there", async () => {
		// A provider that pushes a burst of events in one call, as a decoder does for one network chunk.
		const scripted = scriptedModel([]);
		const burst: StreamFunction = (model) => {
			const stream = new EventStream<AssistantMessageEvent, AssistantMessage>();
			const b = new AssistantMessageBuilder(
				{ api: model.api, provider: model.provider, model: model.id, timestamp: 0 },
				stream,
			);
			queueMicrotask(() => {
				const t = b.startText();
				for (const piece of ["ab", "cd", "ef", "gh"]) {
					b.appendText(t, piece);
					// The subscriber already saw this delta when appendText returned (or the run stopped it).
					seenWhenPushed.push(deltas.join(""));
				}
				b.done("stop");
			});
			return stream;
		};
		const agent = new Agent({ model: scripted.model, streamFn: burst });
		const events: AgentEvent[] = [];
		const deltas: string[] = [];
		const seenWhenPushed: string[] = [];
		agent.subscribe((e) => {
			events.push(e);
			if (e.type !== "message_update" || e.assistantMessageEvent.type !== "text_delta") return;
			deltas.push(e.assistantMessageEvent.delta);
			if (deltas.length === 2) agent.abort("stop at the second delta");
		});
		await agent.prompt("hi");
		expect(agent.state.messages.at(-1)).toMatchObject({
			role: "assistant",
			stopReason: "aborted",
			content: [text("abcd")],
		});
		expect(seenWhenPushed).toEqual(["ab", "abcd", "abcd", "abcd"]);
		// What followed the aborting subscriber came once it returned, in order: no second delta, one end each.
		const types = events.map((e) => e.type);
		expect(types.filter((t) => t === "message_update")).toHaveLength(3); // text_start and two deltas
		expect(types.filter((t) => t === "message_end")).toHaveLength(2);
		expect(types.at(-1)).toBe("agent_end");
		assertPaired(agent.state.messages);
	});

	it("SPEC Q6: subscribing or unsubscribing from inside a subscriber takes effect from the next event", async () => {
		const { agent } = agentOn([{ content: [text("hi")] }]);
		const log: string[] = [];
		let late: (() => void) | undefined;
		const second = (e: AgentEvent) => log.push(`second ${e.type}`);
		const third = (e: AgentEvent) => log.push(`third ${e.type}`);
		let stopSecond = (): void => {};
		agent.subscribe((e) => {
			log.push(`first ${e.type}`);
			if (e.type === "agent_start") {
				stopSecond(); // unsubscribed before its turn: not called, not even for this event
				late = agent.subscribe(third); // subscribed now: from the next event on
			}
		});
		stopSecond = agent.subscribe(second);
		agent.subscribe(second); // the same function twice is one subscription
		await agent.prompt("go");
		late?.();
		expect(log.filter((l) => l.startsWith("second"))).toEqual([]);
		expect(log.slice(0, 3)).toEqual(["first agent_start", "first turn_start", "third turn_start"]);
	});

	it("SPEC A1/A6: abort() ends the run as aborted and leaves the queues alone", async () => {
		vi.useFakeTimers();
		const { agent, events } = agentOn([{ content: [call("long")] }, { content: [text("never")] }]);
		const running = agent.prompt("start");
		await vi.advanceTimersByTimeAsync(10);
		agent.followUp("later");
		agent.abort("user pressed stop");
		await running;
		const end = events.at(-1);
		expect(end?.type === "agent_end" && end.outcome).toEqual({
			type: "aborted",
			reason: "user pressed stop",
		});
		expect(agent.peekFollowUpQueue()).toHaveLength(1);
		await agent.waitForIdle();
	});

	it("SPEC Q1: reset() clears the transcript, queues and error; setters change the next run", async () => {
		const { agent, scripted } = agentOn([{ content: [text("a")] }, { content: [text("b")] }]);
		await agent.prompt("x");
		agent.followUp("q");
		agent.reset();
		expect(agent.state.messages).toHaveLength(0);
		expect(agent.peekFollowUpQueue()).toHaveLength(0);
		agent.setSystemPrompt("new prompt");
		agent.setThinkingLevel("high");
		await agent.prompt("y");
		expect(scripted.calls[1]?.context.systemPrompt).toBe("new prompt");
		expect(scripted.calls[1]?.options.thinkingLevel).toBe("high");
	});

	it("SPEC Q1, X5: setSystemPrompt() during a run applies from the run's next model call, like setThinkingLevel()", async () => {
		let agent!: Agent;
		const mode = echoTool("mode", {
			execute: async () => {
				agent.setSystemPrompt("plan mode");
				agent.setThinkingLevel("high");
				return { content: [text("switched")] };
			},
		});
		const scripted = scriptedModel([{ content: [call("plan", "mode")] }, { content: [text("planning")] }]);
		agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [mode],
			systemPrompt: "act",
		});
		await agent.prompt("switch to planning");
		expect(scripted.calls.map((c) => [c.context.systemPrompt, c.options.thinkingLevel])).toEqual([
			["act", "off"],
			["plan mode", "high"],
		]);
	});

	it("SPEC X5: a thinking level given only in streamOptions is where the Agent's level starts; its own option wins", async () => {
		const onlyStream = scriptedModel([{ content: [text("a")] }]);
		const fromStream = new Agent({
			model: onlyStream.model,
			streamFn: onlyStream.stream,
			streamOptions: { thinkingLevel: "high" },
		});
		expect(fromStream.state.thinkingLevel).toBe("high");
		await fromStream.prompt("x");
		expect(onlyStream.calls[0]?.options.thinkingLevel).toBe("high");

		const both = scriptedModel([{ content: [text("b")] }]);
		const own = new Agent({
			model: both.model,
			streamFn: both.stream,
			thinkingLevel: "low",
			streamOptions: { thinkingLevel: "high" },
		});
		await own.prompt("y");
		expect(both.calls[0]?.options.thinkingLevel).toBe("low");
	});

	it("SPEC X5: a value that is not a thinking level is refused by the constructor and setThinkingLevel", () => {
		const scripted = scriptedModel([]);
		const base = { model: scripted.model, streamFn: scripted.stream };
		const levels = "off, minimal, low, medium, high, xhigh";
		expect(() => new Agent({ ...base, thinkingLevel: "max" as never })).toThrow(
			new TypeError(`new Agent: thinking level "max" is not one of ${levels}`),
		);
		expect(() => new Agent({ ...base, streamOptions: { thinkingLevel: "HIGH" as never } })).toThrow(
			TypeError,
		);
		const agent = new Agent({ ...base, thinkingLevel: "low" });
		expect(() => agent.setThinkingLevel(undefined as never)).toThrow(
			`Agent.setThinkingLevel: thinking level undefined is not one of ${levels}`,
		);
		expect(agent.state.thinkingLevel).toBe("low");
		// The loop without an Agent refuses it too, before the run starts.
		expect(() =>
			agentLoop(
				[{ role: "user", content: "go", timestamp: 0 }],
				{ messages: [] },
				{ ...base, streamOptions: { thinkingLevel: "max" as never } },
			),
		).toThrow(
			new TypeError(`agentLoop: streamOptions.thinkingLevel: thinking level "max" is not one of ${levels}`),
		);
	});

	it("SPEC L12/Q1: a provider error lands in state.error and never throws from prompt()", async () => {
		const { agent } = agentOn([{ error: { message: "rate limited", kind: "rate_limit" } }]);
		await agent.prompt("x");
		expect(agent.state.error).toBe("rate limited");
	});
});

describe("Agent and revised arguments", () => {
	it("SPEC T4: arguments revised by beforeToolCall are written back into the Agent's transcript", async () => {
		const scripted = scriptedModel([{ content: [call("original")] }, { content: [text("ok")] }]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool()],
			beforeToolCall: async () => ({ args: { text: "revised" } }),
		});
		await agent.prompt("go");
		const reply = agent.state.messages[1] as { content: { type: string; arguments?: unknown }[] };
		expect(reply.content.find((b) => b.type === "toolCall")?.arguments).toEqual({ text: "revised" });
		expect((agent.state.messages[2] as ToolResultMessage).content).toEqual([
			{ type: "text", text: "echo:revised" },
		]);
		expect(scripted.calls[1]?.context.messages[1]).toBe(agent.state.messages[1]);
	});
});

describe("Agent.reset()", () => {
	it("SPEC Q1: await reset() during a run, then prompt() starts fresh", async () => {
		vi.useFakeTimers();
		const { agent } = agentOn([{ content: [call("long")] }, { content: [text("fresh")] }]);
		const running = agent.prompt("first");
		await vi.advanceTimersByTimeAsync(10);
		const reset = agent.reset();
		expect(agent.state.messages).toHaveLength(0);
		await reset;
		await running;
		await agent.prompt("second");
		expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("SPEC Q1, T17: a run reset() while it pauses for approval leaves no pending approval in the fresh state", async () => {
		const scripted = scriptedModel([{ content: [call("ship")] }, { content: [text("fresh")] }]);
		let turnEnded!: () => void;
		let saves = 0;
		const savingSession = new Promise<void>((resolve) => (turnEnded = resolve));
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool("echo", { needsApproval: true })],
			// The host saves its session at the end of a turn; the user clicks "New chat" meanwhile.
			onTurnEnd: () => {
				if (saves++ > 0) return;
				turnEnded();
				return new Promise<void>(() => {});
			},
		});
		const running = agent.prompt("first");
		await savingSession;
		await agent.reset();
		await running;
		expect(agent.state.messages).toHaveLength(0);
		expect(agent.state.pendingApprovals).toEqual([]);
		await agent.prompt("second");
		expect(agent.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("SPEC Q1: the error of a run reset() cut short never reaches the fresh state", async () => {
		// The user clicks "New chat" while the failed reply is on screen, before the run has ended.
		const { agent, events } = agentOn([{ error: { message: "rate limited", kind: "rate_limit" } }]);
		let resetDone: Promise<void> | undefined;
		agent.subscribe((e) => {
			// At turn_end the failed reply has already settled how the run ends (SPEC L12).
			if (e.type === "turn_end") resetDone = agent.reset();
		});
		await agent.prompt("first");
		await resetDone;
		const end = events.at(-1);
		// The subscribers still saw how the old run ended …
		expect(end?.type === "agent_end" && end.outcome).toEqual({ type: "error", error: "rate limited" });
		// … but the fresh state holds nothing of it.
		expect(agent.state.error).toBeUndefined();
		expect(agent.state.messages).toEqual([]);
		expect(agent.state.isStreaming).toBe(false);
		expect(agent.state.streamMessage).toBeUndefined();
		expect(agent.state.pendingToolCalls.size).toBe(0);
	});
});

describe("an abort from message_end of a failed reply (SPEC S4, A1, L12)", () => {
	// The failed reply ended the run when it was committed; an abort its subscribers send comes after that.
	it.each([
		["abort(reason)", (agent: Agent) => agent.abort("my reason")],
		["reset()", (agent: Agent) => void agent.reset()],
	])("%s leaves the outcome the reply's error, never an abort with the error's text", async (_name, stop) => {
		const { agent, events } = agentOn([{ error: { message: "rate limited", kind: "rate_limit" } }]);
		agent.subscribe((e) => {
			if (e.type === "message_end" && e.message.role === "assistant") stop(agent);
		});
		await agent.prompt("first");
		await agent.waitForIdle();
		const end = events.findLast((e) => e.type === "agent_end");
		expect(end?.type === "agent_end" && end.outcome).toEqual({ type: "error", error: "rate limited" });
	});
});

describe("a call made while a run ends (SPEC Q8)", () => {
	const runEdges = (events: readonly AgentEvent[]) =>
		events.flatMap((e) => (e.type === "agent_start" || e.type === "agent_end" ? [e.type] : []));
	const texts = (agent: Agent) =>
		agent.state.messages.map((m) => {
			const content = (m as { content: unknown }).content;
			return `${m.role}:${typeof content === "string" ? content : (content as { text?: string }[])[0]?.text}`;
		});

	it("SPEC Q8: prompt() from agent_end starts the next run once every subscriber saw the first one end", async () => {
		const { agent, events } = agentOn([{ content: [text("one")] }, { content: [text("two")] }]);
		let chained: Promise<void> | undefined;
		let busyAtEnd: boolean | undefined;
		agent.subscribe((e) => {
			if (e.type !== "agent_end" || chained) return;
			busyAtEnd = agent.state.isStreaming;
			chained = agent.prompt("next");
		});
		// Subscribed after the one that chains: it still gets the first agent_end before the second agent_start.
		const later: AgentEvent[] = [];
		agent.subscribe((e) => later.push(e));
		const idle = agent.waitForIdle();
		await agent.prompt("first");
		expect(busyAtEnd).toBe(false);
		await chained;
		await idle;
		expect(agent.state.isStreaming).toBe(false);
		for (const seen of [events, later])
			expect(runEdges(seen)).toEqual(["agent_start", "agent_end", "agent_start", "agent_end"]);
		expect(texts(agent)).toEqual(["user:first", "assistant:one", "user:next", "assistant:two"]);
	});

	it("SPEC Q8, Q3: one call is accepted while a run ends; the next one is busy, and the first prompt() resolves before the chained run ends", async () => {
		const { agent, events } = agentOn([{ content: [text("one")] }, { content: [text("two")] }]);
		let accepted: Promise<void> | undefined;
		let refused: Promise<unknown> | undefined;
		agent.subscribe((e) => {
			if (e.type !== "agent_end" || accepted) return;
			accepted = agent.prompt("a");
			refused = agent.prompt("b").then(
				() => "started",
				(error: unknown) => error,
			);
		});
		await agent.prompt("first");
		// The caller of the first run is back before the chained one ended, and finds the agent busy with it.
		expect(agent.state.isStreaming).toBe(true);
		await expect(agent.prompt("sneaking in")).rejects.toBeInstanceOf(AgentBusyError);
		expect(await refused).toBeInstanceOf(AgentBusyError);
		await accepted;
		expect(runEdges(events)).toEqual(["agent_start", "agent_end", "agent_start", "agent_end"]);
		expect(texts(agent)).toEqual(["user:first", "assistant:one", "user:a", "assistant:two"]);
	});

	it("SPEC Q8, Q4: continue() from agent_end takes a follow-up queued there", async () => {
		const { agent } = agentOn([{ content: [text("one")] }, { content: [text("two")] }]);
		let chained: Promise<void> | undefined;
		agent.subscribe((e) => {
			if (e.type !== "agent_end" || chained) return;
			agent.followUp("more");
			chained = agent.continue();
		});
		await agent.prompt("first");
		await chained;
		expect(texts(agent)).toEqual(["user:first", "assistant:one", "user:more", "assistant:two"]);
	});

	it("SPEC Q8, T16: approve() and deny() from agent_end resume the paused batch", async () => {
		const scripted = scriptedModel([{ content: [call("ship"), call("drop")] }, { content: [text("done")] }]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool("echo", { needsApproval: true })],
		});
		const decided: Promise<void>[] = [];
		agent.subscribe((e) => {
			if (e.type !== "agent_end" || e.outcome.type !== "awaiting_approval") return;
			const [ship, drop] = e.outcome.pending;
			decided.push(agent.approve(ship?.toolCallId ?? ""), agent.deny(drop?.toolCallId ?? "", "not now"));
		});
		await agent.prompt("go");
		await Promise.all(decided);
		const results = agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
		expect(results.map((r) => [r.isError, (r.content[0] as { text: string }).text.slice(0, 9)])).toEqual([
			[false, "echo:ship"],
			[true, expect.any(String)],
		]);
		expect(agent.state.messages.at(-1)?.role).toBe("assistant");
		expect(agent.state.pendingApprovals).toEqual([]);
	});

	it("SPEC Q8, T17: abort() from the agent_end of a paused run ends it as aborted", async () => {
		const scripted = scriptedModel([{ content: [call("ship")] }]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [echoTool("echo", { needsApproval: true })],
		});
		const outcomes: string[] = [];
		agent.subscribe((e) => {
			if (e.type !== "agent_end") return;
			outcomes.push(e.outcome.type);
			if (e.outcome.type === "awaiting_approval") agent.abort("user cancelled");
		});
		await agent.prompt("go");
		await agent.waitForIdle();
		expect(outcomes).toEqual(["awaiting_approval", "aborted"]);
		expect(agent.state.pendingApprovals).toEqual([]);
		assertPaired(agent.state.messages);
	});

	it("SPEC Q8, Q1: prompt() right after reset() is accepted and starts once the cut run has wound down", async () => {
		vi.useFakeTimers();
		const { agent, events } = agentOn([{ content: [call("long")] }, { content: [text("fresh")] }]);
		const running = agent.prompt("first");
		await vi.advanceTimersByTimeAsync(10);
		const reset = agent.reset();
		expect(agent.state.isStreaming).toBe(false);
		const next = agent.prompt("second");
		expect(agent.state.isStreaming).toBe(true);
		await Promise.all([running, reset, next]);
		expect(runEdges(events)).toEqual(["agent_start", "agent_end", "agent_start", "agent_end"]);
		const cut = events.find((e) => e.type === "agent_end");
		expect(cut?.type === "agent_end" && cut.outcome.type).toBe("aborted");
		expect(texts(agent)).toEqual(["user:second", "assistant:fresh"]);
	});
});

describe("a subscriber that aborts from the run's own events", () => {
	const toolEvents = (events: readonly AgentEvent[]) =>
		events.flatMap((e) =>
			e.type === "tool_execution_start"
				? [`start:${e.toolCallId}`]
				: e.type === "tool_execution_end"
					? [`end:${e.toolCallId}:${e.status}`]
					: [],
		);
	const resultTexts = (agent: Agent) =>
		agent.state.messages.flatMap((m) =>
			m.role === "toolResult" ? [(m.content[0] as { text: string }).text.split(" (")[0]] : [],
		);

	it("SPEC A1, L4: an abort from tool_execution_start keeps that tool from running, with one start and one end per call", async () => {
		const log: string[] = [];
		const { agent, events } = agentOn(
			[{ content: [call("a"), call("b")] }, { content: [text("never")] }],
			[echoTool("echo", { log })],
		);
		let aborted = false;
		agent.subscribe((e) => {
			if (e.type === "tool_execution_start" && !aborted) {
				aborted = true;
				agent.abort("stop now");
			}
		});
		await agent.prompt("go");
		expect(log).toEqual([]);
		const [a, b] = (agent.state.messages[1] as AssistantMessage).content.map((c) =>
			c.type === "toolCall" ? c.id : "",
		);
		expect(toolEvents(events)).toEqual([`start:${a}`, `end:${a}:aborted`, `start:${b}`, `end:${b}:aborted`]);
		const notExecuted = "Not executed: the run was aborted before this tool call started";
		expect(resultTexts(agent)).toEqual([notExecuted, notExecuted]);
		expect(events.at(-1)).toMatchObject({
			type: "agent_end",
			outcome: { type: "aborted", reason: "stop now" },
		});
		assertPaired(agent.state.messages);
	});

	it("SPEC T10, L4: an abort from the start event of a call that steering skips leaves it skipped, its events paired", async () => {
		const log: string[] = [];
		const { agent, events } = agentOn([{ content: [call("a")] }], [echoTool("echo", { log })]);
		agent.subscribe((e) => {
			if (e.type === "message_update" && e.assistantMessageEvent.type === "toolcall_start")
				agent.steer("change of plan");
			if (e.type === "tool_execution_start") agent.abort("stop");
		});
		await agent.prompt("go");
		expect(log).toEqual([]);
		const id = (agent.state.messages[1] as AssistantMessage).content.find((c) => c.type === "toolCall")?.id;
		expect(toolEvents(events)).toEqual([`start:${id}`, `end:${id}:skipped`]);
		assertPaired(agent.state.messages);
	});

	it("SPEC A1: an abort before the first model call on a model with compat flags is an abort, not a failure", async () => {
		const scripted = scriptedModel([{ content: [text("hi")] }], {
			model: { compat: { harmonyLeakGuard: false } },
		});
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream });
		const events: AgentEvent[] = [];
		agent.subscribe((e) => {
			events.push(e);
			if (e.type === "message_end" && e.message.role === "user") agent.abort("user pressed stop");
		});
		await agent.prompt("go");
		expect(events.at(-1)).toMatchObject({
			type: "agent_end",
			outcome: { type: "aborted", reason: "user pressed stop" },
		});
		expect(agent.state.messages[1]).toMatchObject({
			stopReason: "aborted",
			errorMessage: "user pressed stop",
		});
		expect(agent.state.error).toBeUndefined();
		expect(scripted.calls).toHaveLength(0);
	});
});

describe("Agent calls that cannot be honoured say why", () => {
	it("SPEC Q3: replaceMessages() during a run is busy, and the error says to wait for the run, not to queue a message", async () => {
		const { agent } = agentOn([{ content: [text("slow")], delayMs: 1 }]);
		const running = agent.prompt("one");
		let thrown: unknown;
		try {
			agent.replaceMessages([]);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(AgentBusyError);
		expect((thrown as Error).message).toMatch(/replaceMessages\(\) cannot be called while a run is active/);
		expect((thrown as Error).message).toMatch(/waitForIdle\(\)/);
		expect((thrown as Error).message).not.toMatch(/steer\(\)/);
		await running;
		expect(agent.state.messages).toHaveLength(2);
	});

	it("prompt(message, images) refuses images it cannot attach instead of dropping them", async () => {
		const { agent, scripted } = agentOn([{ content: [text("seen")] }, { content: [text("seen")] }]);
		const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
		const message = { role: "user" as const, content: "look", timestamp: 0 };
		await expect(agent.prompt(message, [image])).rejects.toThrow(TypeError);
		await expect(agent.prompt([message], [image])).rejects.toThrow(
			/images are attached only to a text prompt/,
		);
		expect(scripted.calls).toHaveLength(0);
		expect(agent.state.messages).toEqual([]);
		await agent.prompt(message, []);
		await agent.prompt("look", [image]);
		expect(scripted.calls).toHaveLength(2);
		expect(agent.state.messages[2]).toMatchObject({ role: "user", content: [text("look"), image] });
	});
});
