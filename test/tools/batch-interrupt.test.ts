import { Type } from "@sinclair/typebox";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolCall } from "../../src/core/messages.js";
import {
	STEERING_INTERRUPT_POLL_MS,
	type SteeringProbe,
	type ToolBatchInput,
} from "../../src/tools/batch.js";
import type { AgentTool, ToolExecutionContext } from "../../src/tools/types.js";
import { type Args, assistantWith, batchHarness, deferred } from "./harness.js";

// ---- fixtures ----

/** A tool whose execution is controlled by hand; it records the signals and ctx it was given. */
function manualTool(name: string, extra: Partial<AgentTool> = {}) {
	const gate = deferred<string>();
	const seen: { signal?: AbortSignal; ctx?: ToolExecutionContext; started: boolean } = { started: false };
	const tool: AgentTool = {
		name,
		description: name,
		parameters: Type.Object({}),
		execute: async (_id: string, _args: Args, signal: AbortSignal, _onUpdate, ctx) => {
			seen.started = true;
			seen.signal = signal;
			seen.ctx = ctx;
			return { content: [{ type: "text", text: await gate.promise }] };
		},
		...extra,
	};
	return { tool, gate, seen };
}

function harness(calls: [string, string][], tools: AgentTool[], extra: Partial<ToolBatchInput> = {}) {
	const h = batchHarness(calls, tools, extra);
	const { events } = h;
	const trace = (): string[] =>
		events.flatMap((event) => {
			if (event.type === "tool_execution_start") return [`start:${event.toolCallId}`];
			if (event.type === "tool_execution_end") return [`end:${event.toolCallId}:${event.status}`];
			return [];
		});
	return { ...h, trace };
}

/** A steering queue with the probe the loop would build from `hasSteeringMessages`/`onSteeringQueued`. */
function steeringQueue(options: { eventDriven: boolean; notify?: boolean }) {
	const queued: string[] = [];
	const listeners = new Set<() => void>();
	let peeks = 0;
	const probe: SteeringProbe = {
		peek: () => {
			peeks++;
			return queued.length > 0;
		},
		...(options.eventDriven
			? {
					subscribe: (listener: () => void) => {
						listeners.add(listener);
						return () => listeners.delete(listener);
					},
				}
			: {}),
	};
	const steer = (text: string): void => {
		queued.push(text);
		if (options.notify ?? true) for (const listener of listeners) listener();
	};
	return { probe, queued, listeners, steer, peeks: () => peeks };
}

async function flush(times = 10): Promise<void> {
	for (let i = 0; i < times; i++) await Promise.resolve();
}

const textOf = (result: { content: { type: string; text?: string }[] }): string =>
	result.content.map((block) => block.text ?? "").join("\n");

afterEach(() => {
	vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------------------------

describe("runToolBatch — abort (SPEC A1, A7, I4)", () => {
	it("abort during tools: finished keep real results, running see their signal, not started are placeholders (SPEC A1)", async () => {
		const done = manualTool("done");
		const running = manualTool("running");
		const later = manualTool("later", { concurrency: "exclusive" });
		const h = harness(
			[
				["c1", "done"],
				["c2", "running"],
				["c3", "later"],
			],
			[done.tool, running.tool, later.tool],
		);
		const pending = h.run();
		await flush();
		done.gate.resolve("real result");
		await flush();
		h.controller.abort("user pressed stop");
		const batch = await pending;

		expect(batch.statuses).toEqual(["ok", "aborted", "aborted"]);
		expect(textOf(batch.results[0]!)).toBe("real result");
		expect(running.seen.signal?.aborted).toBe(true);
		expect(later.seen.started).toBe(false);
		expect(textOf(batch.results[1]!)).toBe(
			"Tool execution was aborted: user pressed stop. The tool did not complete.",
		);
		expect(batch.results[1]?.details).toEqual({
			synthetic: true,
			reason: "aborted",
			executed: false,
			started: true,
		});
		expect(batch.results[2]?.details).toEqual({ synthetic: true, reason: "aborted", executed: false });
		expect(batch.results.every((result, index) => result.toolCallId === `c${index + 1}`)).toBe(true);
		// SPEC L4: one start and one end per call, also for the call that never started.
		expect(h.trace()).toEqual([
			"start:c1",
			"start:c2",
			"end:c1:ok",
			"end:c2:aborted",
			"start:c3",
			"end:c3:aborted",
		]);
	});

	it("deadline: calls cut off get the deadline placeholder (SPEC A7, A3)", async () => {
		const slow = manualTool("slow");
		const h = harness([["c1", "slow"]], [slow.tool], {
			abortPlaceholder: () => ({ reason: "deadline", cause: "Deadline exceeded" }),
		});
		const pending = h.run();
		await flush();
		h.controller.abort(new Error("Deadline exceeded"));
		const batch = await pending;
		expect(batch.statuses).toEqual(["aborted"]);
		expect(textOf(batch.results[0]!)).toContain("deadline exceeded");
		expect(batch.results[0]?.details).toMatchObject({ synthetic: true, reason: "deadline", executed: false });
	});

	it("a tool that ignores its abort signal does not keep the batch waiting; its late result is discarded (SPEC I4)", async () => {
		const stubborn = manualTool("stubborn");
		const h = harness([["c1", "stubborn"]], [stubborn.tool]);
		const pending = h.run();
		await flush();
		h.controller.abort("stop");
		const batch = await pending; // settles although the tool never returns
		expect(batch.statuses).toEqual(["aborted"]);
		const eventsAtSettle = h.events.length;
		stubborn.gate.resolve("too late");
		await flush();
		expect(h.events.length).toBe(eventsAtSettle);
		expect(batch.results[0]?.details).toMatchObject({ started: true });
	});

	it("abort while beforeToolCall is pending: the call never started (SPEC A1)", async () => {
		const tool = manualTool("t");
		const hook = deferred<undefined>();
		const h = harness([["c1", "t"]], [tool.tool], { beforeToolCall: () => hook.promise });
		const pending = h.run();
		await flush();
		h.controller.abort("stop");
		const batch = await pending;
		hook.resolve(undefined);
		await flush();
		expect(tool.seen.started).toBe(false);
		expect(batch.results[0]?.details).toEqual({ synthetic: true, reason: "aborted", executed: false });
	});

	it("a signal aborted before the batch: nothing runs, every call is still paired (SPEC A1, T13)", async () => {
		const tool = manualTool("t");
		const h = harness(
			[
				["c1", "t"],
				["c2", "ghost"],
			],
			[tool.tool],
		);
		h.controller.abort("stop");
		const batch = await h.run();
		expect(tool.seen.started).toBe(false);
		expect(batch.statuses).toEqual(["aborted", "error"]);
		expect(h.trace()).toEqual(["start:c2", "end:c2:error", "start:c1", "end:c1:aborted"]);
	});
});

describe("runToolBatch — steering interrupt (SPEC T10, T11)", () => {
	it("poll: interruptible tools are aborted, not-started calls skipped, non-interruptible ones finish (SPEC T10)", async () => {
		vi.useFakeTimers();
		const queue = steeringQueue({ eventDriven: false });
		const long = manualTool("long", { interruptible: true });
		const write = manualTool("write");
		const after = manualTool("after", { concurrency: "exclusive" });
		const h = harness(
			[
				["c1", "long"],
				["c2", "write"],
				["c3", "after"],
			],
			[long.tool, write.tool, after.tool],
			{ steering: queue.probe },
		);
		const pending = h.run();
		await vi.advanceTimersByTimeAsync(0);
		queue.steer("actually, stop and do X");
		await vi.advanceTimersByTimeAsync(STEERING_INTERRUPT_POLL_MS - 1);
		expect(h.trace()).toEqual(["start:c1", "start:c2"]);

		await vi.advanceTimersByTimeAsync(1);
		expect(long.seen.signal?.aborted).toBe(true);
		expect(write.seen.signal?.aborted).toBe(false);
		expect(write.seen.ctx?.steeringRequested.aborted).toBe(true); // cooperative signal for everyone
		expect(h.trace()).toEqual(["start:c1", "start:c2", "end:c1:interrupted", "start:c3", "end:c3:skipped"]);

		write.gate.resolve("written");
		const batch = await pending;
		expect(batch.statuses).toEqual(["interrupted", "ok", "skipped"]);
		expect(batch.interrupted).toBe(true);
		expect(textOf(batch.results[1]!)).toBe("written");
		// SPEC T11: the skip says it is not completed work and may be retried; details mark it synthetic.
		expect(textOf(batch.results[2]!)).toMatch(/NOT completed.*retry/s);
		expect(batch.results[2]?.details).toEqual({ synthetic: true, reason: "interrupted", executed: false });
		expect(batch.results[0]?.details).toEqual({
			synthetic: true,
			reason: "interrupted",
			executed: false,
			started: true,
		});
		expect(after.seen.started).toBe(false);
		expect(queue.queued).toEqual(["actually, stop and do X"]); // SPEC A6: peek only, never dequeued
		expect(vi.getTimerCount()).toBe(0); // every timer cleared
	});

	it("subscribe: wake-up is event-driven, with no timers at all (SPEC T10)", async () => {
		vi.useFakeTimers();
		const queue = steeringQueue({ eventDriven: true });
		const long = manualTool("long", { interruptible: () => true });
		const h = harness([["c1", "long"]], [long.tool], { steering: queue.probe });
		const pending = h.run();
		await flush();
		expect(vi.getTimerCount()).toBe(0);
		queue.steer("new direction");
		const batch = await pending;
		expect(batch.statuses).toEqual(["interrupted"]);
		expect(batch.interrupted).toBe(true);
		expect(queue.listeners.size).toBe(0); // unsubscribed when the batch ended
	});

	it("peeks after each tool finishes: later calls are skipped even without a wake-up (SPEC T10)", async () => {
		const queue = steeringQueue({ eventDriven: true, notify: false });
		const first = manualTool("first");
		const second = manualTool("second", { concurrency: "exclusive" });
		const h = harness(
			[
				["c1", "first"],
				["c2", "second"],
			],
			[first.tool, second.tool],
			{ steering: queue.probe },
		);
		const pending = h.run();
		await flush();
		queue.steer("wait");
		first.gate.resolve("first done");
		const batch = await pending;
		expect(batch.statuses).toEqual(["ok", "skipped"]);
		expect(second.seen.started).toBe(false);
		expect(batch.interrupted).toBe(true);
	});

	it("a non-interruptible tool keeps its real result and nothing counts as interrupted (SPEC T10)", async () => {
		const queue = steeringQueue({ eventDriven: true });
		const only = manualTool("only", { interruptible: false });
		const h = harness([["c1", "only"]], [only.tool], { steering: queue.probe });
		const pending = h.run();
		await flush();
		queue.steer("hey");
		await flush();
		expect(only.seen.ctx?.steeringRequested.aborted).toBe(true);
		only.gate.resolve("kept");
		const batch = await pending;
		expect(batch.statuses).toEqual(["ok"]);
		expect(batch.interrupted).toBe(false);
	});

	it("without a probe (interruptMode wait) steering never interrupts (SPEC T10)", async () => {
		vi.useFakeTimers();
		const long = manualTool("long", { interruptible: true });
		const h = harness([["c1", "long"]], [long.tool]);
		const pending = h.run();
		await vi.advanceTimersByTimeAsync(STEERING_INTERRUPT_POLL_MS * 4);
		expect(vi.getTimerCount()).toBe(0);
		long.gate.resolve("done");
		expect((await pending).statuses).toEqual(["ok"]);
	});
});

describe("runToolBatch — invariants (SPEC I1, I2, T13)", () => {
	type Behaviour = "ok" | "throw" | "unknown" | "invalid" | "hang" | "exclusive" | "interruptible";
	const behaviours: Behaviour[] = ["ok", "throw", "unknown", "invalid", "hang", "exclusive", "interruptible"];

	it("every call gets exactly one result in call order and one start/end pair, whatever happens", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.constantFrom(...behaviours), { minLength: 1, maxLength: 6 }),
				fc.constantFrom("abort", "steer"),
				fc.nat({ max: 4 }),
				async (plan, interruption, ticks) => {
					const tools: AgentTool[] = [
						{
							name: "tool",
							description: "tool",
							parameters: Type.Object({ mode: Type.String() }),
							concurrency: (args: { mode: string }) => (args.mode === "exclusive" ? "exclusive" : "shared"),
							interruptible: (args: { mode: string }) => args.mode === "interruptible",
							execute: async (_id, args: { mode: string }, signal) => {
								if (args.mode === "throw") throw new Error("boom");
								if (args.mode === "hang" || args.mode === "interruptible") {
									await new Promise((resolve) => signal.addEventListener("abort", resolve));
								}
								return { content: [{ type: "text", text: args.mode }] };
							},
						},
					];
					const message = assistantWith([]);
					message.content = plan.map(
						(mode, index): ToolCall => ({
							type: "toolCall",
							id: `c${index}`,
							name: mode === "unknown" ? "missing" : "tool",
							arguments: mode === "invalid" ? { mode: 1 } : { mode },
						}),
					);
					const queue = steeringQueue({ eventDriven: true });
					const h = harness([], tools, { assistantMessage: message, steering: queue.probe });
					const pending = h.run();
					await flush(ticks);
					if (interruption === "steer") {
						queue.steer("s");
						await flush(ticks);
					}
					// Always abort in the end: hanging tools need someone to stop them (and pin SPEC I4 on the way).
					h.controller.abort("stop");
					const batch = await pending;
					expect(batch.results.map((result) => result.toolCallId)).toEqual(
						plan.map((_, index) => `c${index}`),
					);
					expect(batch.statuses).toHaveLength(plan.length);
					for (let index = 0; index < plan.length; index++) {
						const trace = h.trace().filter((entry) => entry.split(":")[1] === `c${index}`);
						expect(trace).toHaveLength(2);
						expect(trace[0]).toBe(`start:c${index}`);
						expect(trace[1]).toMatch(new RegExp(`^end:c${index}:`));
					}
				},
			),
			{ numRuns: 150 },
		);
	});
});

describe("runToolBatch — defensive edges", () => {
	it("a subscribe that throws falls back to polling (SPEC T10)", async () => {
		vi.useFakeTimers();
		const queued: string[] = [];
		const probe: SteeringProbe = {
			peek: () => queued.length > 0,
			subscribe: () => {
				throw new Error("no events here");
			},
		};
		const long = manualTool("long", { interruptible: true });
		const h = harness([["c1", "long"]], [long.tool], { steering: probe });
		const pending = h.run();
		await vi.advanceTimersByTimeAsync(0);
		queued.push("steer");
		await vi.advanceTimersByTimeAsync(STEERING_INTERRUPT_POLL_MS);
		const batch = await pending;
		expect(batch.statuses).toEqual(["interrupted"]);
		expect(batch.interrupted).toBe(true);
	});

	it("an abortPlaceholder that throws still settles the batch (SPEC I4)", async () => {
		const stubborn = manualTool("stubborn");
		const h = harness([["c1", "stubborn"]], [stubborn.tool], {
			abortPlaceholder: () => {
				throw new Error("oops");
			},
		});
		const pending = h.run();
		await flush();
		h.controller.abort("stop now");
		const batch = await pending;
		expect(textOf(batch.results[0]!)).toContain("stop now");
	});
});
