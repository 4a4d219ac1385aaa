// The engine-neutral durable core over a real in-memory journal that can crash mid-step and replay.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	DurableClock,
	type DurableRunResult,
	durableStepRunner,
	INTERRUPTED_TOOL_TEXT,
	type InterruptedToolPolicy,
	type MemoryAttempt,
	MemoryJournal,
	runDurableAgent,
} from "../../src/durable/index.js";
import type { AgentEvent, AgentTool } from "../../src/index.js";
import { agentLoop } from "../../src/index.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import { user } from "../support/run.js";
import { collect } from "../support/trace.js";
import {
	type CountingAgentOptions,
	counter,
	countingAgent,
	toolResult,
	withoutTimestamps,
} from "./support/agent.js";

const input = { prompts: [user("pay the bill")] };

async function uninterrupted(options: Partial<CountingAgentOptions> = {}): Promise<DurableRunResult> {
	const attempt = new MemoryJournal().attempt();
	return runDurableAgent(countingAgent({ count: () => {}, ...options }), input, attempt);
}

/** Run until the attempt dies inside `crashAt`, then replay in a second attempt over the same journal. */
async function crashThenReplay(crashAt: string, options: Partial<CountingAgentOptions> = {}) {
	const { counts, count } = counter();
	const journal = new MemoryJournal();
	let inside!: () => void;
	const reachedCharge = new Promise<void>((resolve) => (inside = resolve));
	const first = journal.attempt((name) => name === crashAt);
	// The first attempt never settles once it crashed: like a killed process, it is simply abandoned.
	void runDurableAgent(
		countingAgent({ count, ...options, insideCharge: async () => inside() }),
		input,
		first,
	);
	await reachedCharge;
	const second = journal.attempt();
	const result = await runDurableAgent(countingAgent({ count, ...options }), input, second);
	return { result, counts, first, second, journal };
}

describe("durable core: runDurableAgent over a journal", () => {
	it("runs the same transcript as the plain loop when nothing crashes (SPEC L13)", async () => {
		const durable = await uninterrupted();
		const plainAgent = countingAgent({ count: () => {} });
		const plain = await collect(
			agentLoop(
				input.prompts,
				{ messages: [], tools: plainAgent.tools ?? [] },
				{
					model: plainAgent.model,
					...(plainAgent.streamFn ? { streamFn: plainAgent.streamFn } : {}),
				},
			),
		);
		expect(withoutTimestamps(durable.added)).toEqual(withoutTimestamps(plain.result));
		expect(durable.outcome).toEqual({ type: "completed" });
		expect(durable.added.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "All done." }] });
	});

	it("replays finished steps from the journal without running them again", async () => {
		const { counts, count } = counter();
		const journal = new MemoryJournal();
		const agent = countingAgent({ count });
		const first = await runDurableAgent(agent, input, journal.attempt());
		const replay = journal.attempt();
		const again = await runDurableAgent(countingAgent({ count }), input, replay);
		expect(again).toEqual(first);
		expect(replay.executed).toEqual([]);
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
		expect([...counts.keys()].sort()).toEqual(
			["model:0", "model:1", "model:2", "model:3", "tool:t1", "tool:t2", "tool:t3"].sort(),
		);
	});

	it("a non-idempotent tool interrupted by a crash is reported, not re-run; everything else ran once", async () => {
		const { result, counts, second } = await crashThenReplay("t2");
		const expected = withoutTimestamps((await uninterrupted()).messages) as Record<string, unknown>[];
		const replaced = expected.map((message) =>
			message.role === "toolResult" && message.toolCallId === "t2"
				? {
						...message,
						content: [{ type: "text", text: INTERRUPTED_TOOL_TEXT }],
						details: { interrupted: true, executed: "unknown" },
						isError: true,
					}
				: message,
		);
		expect(withoutTimestamps(result.messages)).toEqual(replaced);
		expect(Object.fromEntries(counts)).toEqual({
			"model:0": 1,
			"model:1": 1,
			"model:2": 1,
			"model:3": 1,
			"tool:t1": 1,
			"tool:t2": 1,
			"tool:t3": 1,
		});
		// The replay ran only what the crash left unfinished.
		expect(second.executed).toEqual(expect.arrayContaining(["t2", "model:2", "t3", "model:3"]));
		expect(second.executed).not.toContain("model:0");
		expect(second.executed).not.toContain("t1");
	});

	it("an idempotent tool interrupted by a crash runs again, and the transcript equals an uninterrupted run", async () => {
		const { result, counts } = await crashThenReplay("t2", { idempotentCharge: true });
		const expected = await uninterrupted({ idempotentCharge: true });
		expect(withoutTimestamps(result.messages)).toEqual(withoutTimestamps(expected.messages));
		expect(counts.get("tool:t2")).toBe(2);
		expect(counts.get("model:1")).toBe(1);
		expect(toolResult(result, "t2")?.content).toEqual([{ type: "text", text: "charged 5" }]);
	});

	it("onInterrupted: 'rerun' runs the tool again, a host callback supplies the result", async () => {
		const withPolicy = (count: (key: string) => void, inside: () => void, policy: InterruptedToolPolicy) => {
			const agent = countingAgent({ count, insideCharge: async () => inside() });
			const charge = agent.tools?.find((tool) => tool.name === "charge");
			if (charge) charge.onInterrupted = policy;
			return agent;
		};
		const run = async (policy: InterruptedToolPolicy) => {
			const { counts, count } = counter();
			const journal = new MemoryJournal();
			let inside!: () => void;
			const reached = new Promise<void>((resolve) => (inside = resolve));
			void runDurableAgent(
				withPolicy(count, inside, policy),
				input,
				journal.attempt((name) => name === "t2"),
			);
			await reached;
			const result = await runDurableAgent(
				withPolicy(count, () => {}, policy),
				input,
				journal.attempt(),
			);
			return { result, counts };
		};
		const rerun = await run("rerun");
		expect(rerun.counts.get("tool:t2")).toBe(2);
		expect(toolResult(rerun.result, "t2")?.content).toEqual([{ type: "text", text: "charged 5" }]);
		const asked: string[] = [];
		const host = await run((call) => {
			asked.push(`${call.toolName}:${call.toolCallId}`);
			return { content: [{ type: "text", text: "host checked: not charged" }] };
		});
		expect(asked).toEqual(["charge:t2"]);
		expect(host.counts.get("tool:t2")).toBe(1);
		expect(toolResult(host.result, "t2")?.content).toEqual([
			{ type: "text", text: "host checked: not charged" },
		]);
	});

	it("steering and follow-ups arrive through the inbox at turn boundaries and replay identically (SPEC Q2, L9)", async () => {
		const journal = new MemoryJournal();
		const scripted = scriptedModel(
			[toolReply("lookup", { key: "a" }, { id: "s1" }), textReply("first"), textReply("second")],
			{
				now: () => 0,
			},
		);
		const agent = { ...countingAgent({ count: () => {} }), model: scripted.model, streamFn: scripted.stream };
		journal.send("steer", user("also check b"));
		journal.send("followUp", user("and then c"));
		journal.send("steer", { not: "a message" });
		const first = await runDurableAgent(agent, input, journal.attempt());
		const texts = first.added
			.filter((m) => m.role === "user")
			.map((m) => (m as { content: unknown }).content);
		expect(texts).toEqual(["pay the bill", "also check b", "and then c"]);
		const replay = await runDurableAgent(agent, input, journal.attempt());
		expect(replay).toEqual(first);
	});

	it("an abort request in the inbox ends the run at the next boundary, on replay too (SPEC A1)", async () => {
		const journal = new MemoryJournal();
		journal.send("abort", { reason: "user cancelled" });
		const events: AgentEvent[] = [];
		const result = await runDurableAgent(countingAgent({ count: () => {} }), input, {
			...journal.attempt(),
			onEvent: (event) => void events.push(event),
		});
		expect(result.outcome).toEqual({ type: "aborted", reason: "user cancelled" });
		expect(toolResult(result, "t2")).toBeUndefined();
		expect(await runDurableAgent(countingAgent({ count: () => {} }), input, journal.attempt())).toEqual(
			result,
		);
		expect(events.at(-1)?.type).toBe("agent_end");
	});

	it("the deadline is read from the journaled clock, so a replay long after it passed takes the same path (SPEC A7)", async () => {
		const journal = new MemoryJournal();
		let wall = 1_000;
		const agent = countingAgent({
			count: (key) => {
				if (key === "tool:t1") wall = 5_000;
			},
		});
		const settings = { deadline: 3_000 };
		const first = await runDurableAgent(
			agent,
			{ ...input, settings },
			{ ...journal.attempt(), clock: () => wall },
		);
		expect(first.outcome).toEqual({ type: "deadline" });
		expect(toolResult(first, "t1")).toBeDefined();
		expect(toolResult(first, "t2")).toBeUndefined();
		// Replayed long after the deadline by wall clock: the recorded times decide, not the wall.
		wall = 1e12;
		const replayed = await runDurableAgent(
			agent,
			{ ...input, settings },
			{ ...journal.attempt(), clock: () => wall },
		);
		expect(replayed).toEqual(first);
	});

	it("a deadline that fires inside a live step is journaled with it and re-fired on replay (SPEC A7)", async () => {
		const journal = new MemoryJournal();
		const hanging = scriptedModel([{ content: [{ type: "text", text: "thinking…" }], hang: true }], {
			now: () => 0,
		});
		const agent = { model: hanging.model, streamFn: hanging.stream, tools: [] };
		// Start before the deadline; the first step's wall-clock reading is already past it.
		const readings = [1_000];
		const clock = () => readings.shift() ?? 5_000;
		const settings = { deadline: 2_000 };
		const first = await runDurableAgent(agent, { ...input, settings }, { ...journal.attempt(), clock });
		expect(first.outcome).toEqual({ type: "deadline" });
		const replayed = await runDurableAgent(
			agent,
			{ ...input, settings },
			{ ...journal.attempt(), clock: () => 1_500 },
		);
		expect(replayed).toEqual(first);
	});

	it("numbers events so a replay repeats every non-streaming event at the same position", async () => {
		const journal = new MemoryJournal();
		const live: string[] = [];
		const replayed: string[] = [];
		await runDurableAgent(countingAgent({ count: () => {} }), input, {
			...journal.attempt(),
			onEvent: (event, at) => void (at.delta === 0 && live.push(`${at.seq}:${event.type}`)),
		});
		await runDurableAgent(countingAgent({ count: () => {} }), input, {
			...journal.attempt(),
			onEvent: (event, at) => void (at.delta === 0 && replayed.push(`${at.seq}:${event.type}`)),
		});
		expect(replayed).toEqual(live);
		expect(live.length).toBeGreaterThan(10);
	});

	it("durableStepRunner plugs a journal into a plain agentLoop (custom engines, SPEC L13)", async () => {
		const journal = new MemoryJournal();
		let clock = new DurableClock(7);
		const run = async (attempt: MemoryAttempt) => {
			// A fresh process: the clock starts from the same journaled start and moves with the records.
			clock = new DurableClock(7);
			const agent = countingAgent({ count: () => {} });
			const tools = agent.tools ?? [];
			const stream = agentLoop(
				input.prompts,
				{ messages: [], tools },
				{
					model: agent.model,
					...(agent.streamFn ? { streamFn: agent.streamFn } : {}),
					runStep: durableStepRunner(attempt.journal, { tools, clock }),
					now: () => clock.now(),
				},
			);
			return (await collect(stream)).result;
		};
		const first = await run(journal.attempt());
		expect(journal.recorded).toEqual([
			"model:0",
			"t1",
			"model:1",
			"t2:started",
			"t2",
			"model:2",
			"t3",
			"model:3",
		]);
		expect(clock.now()).toBeGreaterThan(7);
		const replay = journal.attempt();
		expect(await run(replay)).toEqual(first);
		expect(replay.executed).toEqual([]);
	});

	it("a crash inside one of two concurrent tools: the finished one replays, the interrupted one is reported (SPEC T6)", async () => {
		const journal = new MemoryJournal();
		const { counts, count } = counter();
		const batch = scriptedModel(
			(call) =>
				call.context.messages.some((m) => m.role === "toolResult")
					? textReply("both done")
					: {
							content: [
								{ type: "toolCall", name: "charge", arguments: { amount: 1 }, id: "c1" },
								{ type: "toolCall", name: "charge", arguments: { amount: 2 }, id: "c2" },
							],
						},
			{ now: () => 0 },
		);
		let releaseFirst!: () => void;
		const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
		let reached!: () => void;
		const bothInside = new Promise<void>((resolve) => (reached = resolve));
		let inside = 0;
		const agentWith = (insideCharge?: () => Promise<void>) => ({
			...countingAgent({ count, ...(insideCharge ? { insideCharge } : {}) }),
			model: batch.model,
			streamFn: batch.stream,
		});
		// c1 is held while c2 finishes and records first, then the attempt dies in c1.
		void runDurableAgent(
			agentWith(async () => {
				if (++inside === 2) reached();
				if (inside === 1) await firstHeld;
			}),
			input,
			journal.attempt((name) => name === "c1"),
		);
		await bothInside;
		await new Promise((resolve) => setImmediate(resolve));
		releaseFirst();
		await new Promise((resolve) => setImmediate(resolve));
		const result = await runDurableAgent(agentWith(), input, journal.attempt());
		expect(toolResult(result, "c2")?.content).toEqual([{ type: "text", text: "charged 2" }]);
		expect(toolResult(result, "c1")?.content).toEqual([{ type: "text", text: INTERRUPTED_TOOL_TEXT }]);
		expect(counts.get("tool:c1")).toBe(1);
		expect(counts.get("tool:c2")).toBe(1);
		expect(result.outcome).toEqual({ type: "completed" });
	});
	it("a model that reuses a tool call id in a later turn gets each call run and journaled on its own (SPEC L13)", async () => {
		// Servers without call ids get generated ones (`<name>_0`, `call_0`) that repeat every turn: the journal
		// must not hand the second call the first one's record, nor refuse the run.
		const { counts, count } = counter();
		const model = () =>
			scriptedModel(
				(call) => {
					const turn = call.context.messages.filter((m) => m.role === "assistant").length;
					if (turn === 0) return toolReply("lookup", { key: "a" }, { id: "call_0" });
					if (turn === 1) return toolReply("lookup", { key: "b" }, { id: "call_0" });
					if (turn === 2) return toolReply("charge", { amount: 3 }, { id: "call_0" });
					return textReply("done");
				},
				{ now: () => 0 },
			);
		const agentOf = () => {
			const scripted = model();
			return { ...countingAgent({ count }), model: scripted.model, streamFn: scripted.stream };
		};
		const journal = new MemoryJournal();
		const first = await runDurableAgent(agentOf(), input, journal.attempt());
		const results = first.messages.filter((m) => m.role === "toolResult").map((m) => m.content);
		expect(results).toEqual([
			[{ type: "text", text: "value of a" }],
			[{ type: "text", text: "value of b" }],
			[{ type: "text", text: "charged 3" }],
		]);
		expect(counts.get("tool:call_0")).toBe(3);
		const replay = journal.attempt();
		expect(await runDurableAgent(agentOf(), input, replay)).toEqual(first);
		expect(replay.executed).toEqual([]);
	});
});

describe("durable core: a run whose event sink fails", () => {
	it("stops starting steps, waits for the running ones, and fails with the sink's error; a retry replays cleanly", async () => {
		const { counts, count } = counter();
		const journal = new MemoryJournal();
		const failing = runDurableAgent(countingAgent({ count }), input, {
			...journal.attempt(),
			onEvent: (event) => {
				if (event.type === "turn_end") throw new Error("event sink down");
			},
		});
		await expect(failing).rejects.toThrow("event sink down");
		await new Promise((resolve) => setImmediate(resolve));
		// The workflow body has failed: nothing of the run may go on behind it (no model call, no charge).
		expect([...counts.keys()]).toEqual(["model:0", "tool:t1"]);
		// (The boundary after the turn may have read the inbox before the sink failed: a journaled read, replayed.)
		expect(journal.recorded.filter((name) => !name.startsWith("inbox:"))).toEqual([
			"clock:start",
			"model:0",
			"t1",
		]);
		// The engine retries the body: it replays what finished and runs the rest, once.
		const retried = await runDurableAgent(countingAgent({ count }), input, journal.attempt());
		expect(withoutTimestamps(retried.messages)).toEqual(withoutTimestamps((await uninterrupted()).messages));
		expect([...counts.values()].every((n) => n === 1)).toBe(true);
	});
});

/** The engine's own failure: the database went away while it wrote a step's record. */
class EngineDown extends Error {
	override readonly name = "EngineDown";
}

/**
 * One attempt over a real `MemoryJournal` whose engine refuses the first write of the record `name`: the step
 * runs, then its record cannot be written, so the journal call throws the engine's error (nothing recorded).
 * An inbox read named `inbox:<topic>:<n>` fails instead after the engine took the messages.
 */
function refusingWrite(journal: MemoryJournal, name: string, error: Error): MemoryAttempt {
	const attempt = journal.attempt();
	let refused = false;
	const refuseOnce = (step: string): void => {
		if (step !== name || refused) return;
		refused = true;
		throw error;
	};
	const takes = new Map<string, number>();
	return {
		...attempt,
		journal: {
			run: (step, fn) =>
				attempt.journal.run(step, async () => {
					const value = await fn();
					refuseOnce(step);
					return value;
				}),
		},
		inbox: {
			async take(topic) {
				const n = takes.get(topic) ?? 0;
				takes.set(topic, n + 1);
				const messages = await attempt.inbox.take(topic);
				refuseOnce(`inbox:${topic}:${n}`);
				return messages;
			},
		},
	};
}

describe("durable core: the engine itself fails during a step", () => {
	/** Run over an attempt whose engine refuses `name`'s record; collect the events delivered. */
	async function failOnce(name: string, options: Partial<CountingAgentOptions> = {}) {
		const { counts, count } = counter();
		const journal = new MemoryJournal();
		const down = new EngineDown("connection to the journal lost");
		const delivered: AgentEvent[] = [];
		const attempt = refusingWrite(journal, name, down);
		const failing = runDurableAgent(countingAgent({ count, ...options }), input, {
			...attempt,
			onEvent: (event) => void delivered.push(event),
		});
		return { counts, count, journal, down, delivered, failing };
	}

	it("a tool's record refused: the body fails with the engine's error, nothing of it is delivered, the retry goes on", async () => {
		const { counts, count, journal, down, delivered, failing } = await failOnce("t1");
		// The very error, untouched: an engine tells its own errors (a cancel, a lost lease) by identity.
		await expect(failing).rejects.toBe(down);
		expect(delivered.some((event) => event.type === "agent_end")).toBe(false);
		expect(JSON.stringify(delivered)).not.toContain("connection to the journal lost");
		expect(journal.recorded).not.toContain("t1");
		// Nothing of the run went on behind the failure.
		expect([...counts.keys()]).toEqual(["model:0", "tool:t1"]);
		// The engine retries: t1 (idempotent) runs again, the rest once, and the transcript is an uninterrupted one.
		const retried = await runDurableAgent(countingAgent({ count }), input, journal.attempt());
		expect(withoutTimestamps(retried.messages)).toEqual(withoutTimestamps((await uninterrupted()).messages));
		expect(counts.get("tool:t1")).toBe(2);
		expect(counts.get("model:1")).toBe(1);
	});

	it("a model reply's record refused: the body fails with the engine's error, not with an error reply", async () => {
		const { count, journal, down, delivered, failing } = await failOnce("model:1");
		await expect(failing).rejects.toBe(down);
		expect(
			delivered.some((event) =>
				event.type === "message_end" && event.message.role === "assistant"
					? event.message.stopReason === "error"
					: false,
			),
		).toBe(false);
		const retried = await runDurableAgent(countingAgent({ count }), input, journal.attempt());
		expect(withoutTimestamps(retried.messages)).toEqual(withoutTimestamps((await uninterrupted()).messages));
	});

	it("a non-idempotent tool's start marker refused: the tool does not run and no error result is recorded for it", async () => {
		const { counts, count, journal, down, failing } = await failOnce("t2:started");
		await expect(failing).rejects.toBe(down);
		expect(counts.get("tool:t2")).toBeUndefined();
		expect(journal.recorded).not.toContain("t2");
		// The retry finds neither the marker nor a result: the charge runs, once, as if nothing had happened.
		const retried = await runDurableAgent(countingAgent({ count }), input, journal.attempt());
		expect(withoutTimestamps(retried.messages)).toEqual(withoutTimestamps((await uninterrupted()).messages));
		expect(counts.get("tool:t2")).toBe(1);
	});

	it("a non-idempotent tool that ran but whose record was refused is reported as interrupted on the retry (SPEC T6)", async () => {
		const { counts, count, journal, down, failing } = await failOnce("t2");
		await expect(failing).rejects.toBe(down);
		const retried = await runDurableAgent(countingAgent({ count }), input, journal.attempt());
		// Its side effect happened and its result is lost: exactly a crash after the charge.
		expect(toolResult(retried, "t2")?.details).toEqual({ interrupted: true, executed: "unknown" });
		expect(counts.get("tool:t2")).toBe(1);
	});

	it("an inbox read the engine refuses fails the body too, not the run", async () => {
		const { journal, down, failing } = await failOnce("inbox:abort:0");
		await expect(failing).rejects.toBe(down);
		expect(journal.recorded).not.toContain("model:1");
	});

	it("a step's own failure is still the step's result: a throwing tool is an error result the model reads", async () => {
		const result = await uninterrupted({
			insideCharge: async () => {
				throw new Error("card declined");
			},
		});
		expect(result.outcome).toEqual({ type: "completed" });
		expect(toolResult(result, "t2")).toMatchObject({ isError: true, content: [{ text: "card declined" }] });
	});
});

describe("durable core: a deadline inside a concurrent batch", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it("a call that finished before the deadline keeps its result on replay; the one it cut off does not (SPEC A7, T7)", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		const journal = new MemoryJournal();
		let releaseSlow!: () => void;
		const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
		let fastDone!: () => void;
		const fastFinished = new Promise<void>((resolve) => (fastDone = resolve));
		let live = true;
		const read: AgentTool = {
			name: "read",
			description: "Read a value (idempotent).",
			parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
			idempotent: true,
			async execute(_id, args: { key: string }) {
				if (args.key === "slow" && live) await slowGate;
				if (args.key === "fast" && live) queueMicrotask(fastDone);
				return { content: [{ type: "text", text: `value of ${args.key}` }] };
			},
		};
		const agentOf = () => {
			const scripted = scriptedModel(
				(call) =>
					call.context.messages.some((m) => m.role === "toolResult")
						? textReply("done")
						: {
								content: [
									{ type: "toolCall", name: "read", arguments: { key: "slow" }, id: "s" },
									{ type: "toolCall", name: "read", arguments: { key: "fast" }, id: "f" },
								],
							},
				{ now: () => 0 },
			);
			return { model: scripted.model, streamFn: scripted.stream, tools: [read] };
		};
		const settings = { deadline: 2_000 };
		const running = runDurableAgent(
			agentOf(),
			{ ...input, settings },
			{ ...journal.attempt(), clock: () => 1_000 },
		);
		await fastFinished;
		// `f` has reported; now the deadline passes while `s` still runs, then `s` returns late.
		await vi.advanceTimersByTimeAsync(1_000);
		releaseSlow();
		const first = await running;
		expect(first.outcome).toEqual({ type: "deadline" });
		expect(toolResult(first, "f")?.content).toEqual([{ type: "text", text: "value of fast" }]);
		expect(toolResult(first, "s")?.content).not.toEqual([{ type: "text", text: "value of slow" }]);
		live = false;
		const replayed = await runDurableAgent(
			agentOf(),
			{ ...input, settings },
			{ ...journal.attempt(), clock: () => 1_000 },
		);
		expect(replayed).toEqual(first);
	});
});
