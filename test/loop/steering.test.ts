import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentMessage, ToolResultMessage } from "../../src/index.js";
import { echoTool, runScript, startScript, user } from "../support/run.js";
import { assertBalanced, assertPaired, trace } from "../support/trace.js";

const call = (t: string, name = "echo") => ({ type: "toolCall" as const, name, arguments: { text: t } });
const text = (t: string) => ({ type: "text" as const, text: t });

afterEach(() => {
	vi.useRealTimers();
});

function steeringQueue() {
	const queue: AgentMessage[] = [];
	const listeners = new Set<() => void>();
	return {
		queue,
		push(message: AgentMessage) {
			queue.push(message);
			for (const l of listeners) l();
		},
		config: {
			getSteeringMessages: () => queue.splice(0, 1),
			hasSteeringMessages: () => queue.length > 0,
		},
		events: {
			onSteeringQueued: (l: () => void) => {
				listeners.add(l);
				return () => listeners.delete(l);
			},
		},
	};
}

describe("steering", () => {
	it("steering mid-batch with an interruptible tool — SPEC T10, T11, T12 (golden trace)", async () => {
		vi.useFakeTimers();
		const steer = steeringQueue();
		const log: string[] = [];
		const tools = [
			echoTool("slowi", { ms: 1000, log, interruptible: true }),
			echoTool("quick", { ms: 10, log }),
			echoTool("later", { ms: 10, log, concurrency: "exclusive" }),
		];
		const { done, scripted } = startScript(
			[
				{ content: [call("1", "slowi"), call("2", "quick"), call("3", "later")] },
				{ content: [text("handled")] },
			],
			{ tools, config: steer.config },
		);
		await vi.advanceTimersByTimeAsync(5);
		steer.push(user("stop, do X instead"));
		await vi.runAllTimersAsync();
		const { events, result } = await done;
		assertBalanced(events);
		assertPaired(result);
		// quick (non-interruptible) keeps its real result; slowi is interrupted; later never starts.
		expect(log).toEqual(["start:slowi:1", "start:quick:2", "end:quick:2"]);
		const results = result.filter(
			(m): m is ToolResultMessage => (m as { role: string }).role === "toolResult",
		);
		expect(
			results.map((r) => [r.toolName, (r.details as { reason?: string } | undefined)?.reason ?? "real"]),
		).toEqual([
			["slowi", "interrupted"],
			["quick", "real"],
			["later", "interrupted"],
		]);
		expect(JSON.stringify(results[2]?.content)).toMatch(/NOT completed/);
		// SPEC T12: the steering message comes after all results and before the next model call.
		expect(trace(events)).toMatch(
			/ms:toolResult me:toolResult ms:toolResult me:toolResult ms:toolResult me:toolResult turn_end:3 turn_start ms:user me:user ms:assistant mu\+ me:assistant:stop turn_end:0 agent_end:completed$/,
		);
		expect(scripted.calls[1]?.context.messages.map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"toolResult",
			"toolResult",
			"user",
		]);
		expect(steer.queue).toHaveLength(0);
	});

	it("SPEC T10: event-driven wake-up interrupts without waiting for the 250 ms poll", async () => {
		vi.useFakeTimers();
		const steer = steeringQueue();
		const { done } = startScript([{ content: [call("1", "slowi")] }, { content: [text("ok")] }], {
			tools: [echoTool("slowi", { ms: 10_000, interruptible: true })],
			config: { ...steer.config, ...steer.events },
		});
		await vi.advanceTimersByTimeAsync(1);
		steer.push(user("now"));
		await vi.advanceTimersByTimeAsync(1);
		const { result } = await done;
		expect((result[2] as ToolResultMessage).details).toMatchObject({ reason: "interrupted" });
	});

	it("SPEC T10: in 'wait' mode a steer never interrupts the batch; it is injected after it", async () => {
		vi.useFakeTimers();
		const steer = steeringQueue();
		const { done } = startScript([{ content: [call("1", "slowi")] }, { content: [text("ok")] }], {
			tools: [echoTool("slowi", { ms: 100, interruptible: true })],
			config: { ...steer.config, interruptMode: "wait" },
		});
		await vi.advanceTimersByTimeAsync(5);
		steer.push(user("later please"));
		await vi.runAllTimersAsync();
		const { result } = await done;
		expect((result[2] as ToolResultMessage).details).toBeUndefined();
		expect((result[3] as { content: string }).content).toBe("later please");
	});

	it("SPEC T12: if the queue empties between the peek and the boundary, nothing is injected", async () => {
		vi.useFakeTimers();
		const queue: AgentMessage[] = [user("ghost")];
		let peeks = 0;
		const { done, scripted } = startScript([{ content: [call("1")] }, { content: [text("ok")] }], {
			tools: [echoTool("echo", { ms: 1 })],
			config: {
				hasSteeringMessages: () => {
					peeks++;
					const has = queue.length > 0;
					queue.length = 0; // the host withdrew it
					return has;
				},
				getSteeringMessages: () => queue.splice(0),
			},
		});
		await vi.runAllTimersAsync();
		const { result } = await done;
		expect(peeks).toBeGreaterThan(0);
		expect(scripted.calls).toHaveLength(2);
		expect(result.filter((m) => (m as { role: string }).role === "user")).toHaveLength(1);
	});

	it("SPEC L9: steering is dequeued after every turn; a steer during a plain reply produces one more turn", async () => {
		const steer = steeringQueue();
		const { scripted, messages } = await runScript(
			({ index }) => {
				if (index === 0) steer.push(user("also this"));
				return { content: [text(`reply ${index}`)] };
			},
			{ config: steer.config },
		);
		expect(scripted.calls).toHaveLength(2);
		expect(messages.map((m) => (m as { role: string }).role)).toEqual([
			"user",
			"assistant",
			"user",
			"assistant",
		]);
	});

	it("SPEC L11: a message queued during onBeforeYield is picked up by the drain", async () => {
		const followUps: AgentMessage[] = [];
		let yields = 0;
		const { scripted } = await runScript([{ content: [text("a")] }, { content: [text("b")] }], {
			config: {
				onBeforeYield: async () => {
					yields++;
					if (yields === 1) followUps.push(user("queued in yield"));
				},
				getFollowUpMessages: () => followUps.splice(0),
			},
		});
		expect(yields).toBe(2);
		expect(scripted.calls).toHaveLength(2);
	});
});
