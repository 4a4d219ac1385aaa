// The engine ends an attempt while a step runs (a Restate cancel, a closed connection): the running model call
// and tools are aborted at once, nothing they return is journaled, and the body fails with the engine's error
// (docs/durable.md, host rule 8), over a real in-memory journal.
import { describe, expect, it } from "vitest";
import {
	DurableAttemptEndedError,
	type DurableRunResult,
	MemoryJournal,
	runDurableAgent,
} from "../../src/durable/index.js";
import type { AgentEvent } from "../../src/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { user } from "../support/run.js";
import { counter, countingAgent, toolResult, withoutTimestamps } from "./support/agent.js";

const input = { prompts: [user("pay the bill")] };

/** The engine's own error, e.g. Restate's `CancelledError`: the body must fail with this very object. */
class EngineCancelled extends Error {
	override readonly name = "EngineCancelled";
}

/** Resolves with the abort reason `signal` fires with, once it does. */
function abortReasonOf(signal: AbortSignal): Promise<unknown> {
	return new Promise((resolve) =>
		signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
	);
}

describe("durable core: the engine ends the attempt while a step runs (host rule 8)", () => {
	it("SPEC A1, A5: a running tool's signal fires with the engine's reason; the body fails with the engine's error; nothing of the tool is journaled", async () => {
		const { counts, count } = counter();
		const journal = new MemoryJournal();
		const ended = new AbortController();
		const cancelled = new EngineCancelled("Cancelled");
		let toolAborted!: (reason: unknown) => void;
		const reason = new Promise<unknown>((resolve) => (toolAborted = resolve));
		let insideCharge!: () => void;
		const charging = new Promise<void>((resolve) => (insideCharge = resolve));
		const delivered: AgentEvent[] = [];
		const failing = runDurableAgent(
			countingAgent({
				count,
				// The charge runs until its signal fires: only the engine's end can stop it.
				insideCharge: async (signal) => {
					insideCharge();
					toolAborted(await abortReasonOf(signal));
					throw signal.reason;
				},
			}),
			input,
			{ ...journal.attempt(), attemptEnded: ended.signal, onEvent: (event) => void delivered.push(event) },
		);
		await charging;
		ended.abort(cancelled);

		await expect(failing).rejects.toBe(cancelled);
		const seen = await reason;
		expect(seen).toBeInstanceOf(DurableAttemptEndedError);
		expect((seen as Error).cause).toBe(cancelled);
		expect((seen as Error).message).toBe("The durable engine ended this attempt of the run: Cancelled");
		// The charge started (its marker) and has no record: a crash's trace, not a tool that was aborted.
		expect(journal.recorded).toContain("t2:started");
		expect(journal.recorded).not.toContain("t2");
		expect(delivered.some((event) => event.type === "tool_execution_end" && event.toolCallId === "t2")).toBe(
			false,
		);
		expect(delivered.some((event) => event.type === "agent_end")).toBe(false);
		expect([...counts.keys()]).toEqual(["model:0", "tool:t1", "model:1", "tool:t2"]);
		// A retry of the attempt finds the charge started, never reported: its onInterrupted rule (SPEC T6).
		const retried: DurableRunResult = await runDurableAgent(
			countingAgent({ count }),
			input,
			journal.attempt(),
		);
		expect(toolResult(retried, "t2")?.details).toEqual({ interrupted: true, executed: "unknown" });
		expect(counts.get("tool:t2")).toBe(1);
	});

	it("SPEC A1: a running model call's signal fires; its reply is not journaled, and a retry calls the model again", async () => {
		const journal = new MemoryJournal();
		const ended = new AbortController();
		const cancelled = new EngineCancelled("Cancelled");
		let modelSignal!: (signal: AbortSignal) => void;
		const streaming = new Promise<AbortSignal>((resolve) => (modelSignal = resolve));
		const hanging = scriptedModel([{ content: [{ type: "text", text: "Thinking" }], hang: true }]);
		const failing = runDurableAgent(
			{
				model: hanging.model,
				streamFn: (model, context, options) => {
					if (options?.signal) modelSignal(options.signal);
					return hanging.stream(model, context, options);
				},
			},
			input,
			{ ...journal.attempt(), attemptEnded: ended.signal },
		);
		const signal = await streaming;
		ended.abort(cancelled);

		await expect(failing).rejects.toBe(cancelled);
		expect(signal.aborted).toBe(true);
		expect(signal.reason).toBeInstanceOf(DurableAttemptEndedError);
		expect(journal.recorded).toEqual(["clock:start"]);
		const answering = scriptedModel([{ content: [{ type: "text", text: "Done." }] }]);
		const retried = await runDurableAgent(
			{ model: answering.model, streamFn: answering.stream },
			input,
			journal.attempt(),
		);
		expect(retried.outcome).toEqual({ type: "completed" });
		expect(withoutTimestamps(retried.added).at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("an attempt ended before the run starts runs no step", async () => {
		const { counts, count } = counter();
		const ended = new AbortController();
		const cancelled = new EngineCancelled("Cancelled");
		ended.abort(cancelled);
		const journal = new MemoryJournal();
		await expect(
			runDurableAgent(countingAgent({ count }), input, { ...journal.attempt(), attemptEnded: ended.signal }),
		).rejects.toBe(cancelled);
		expect(counts.size).toBe(0);
		expect(journal.recorded.filter((name) => name !== "clock:start")).toEqual([]);
	});
});
