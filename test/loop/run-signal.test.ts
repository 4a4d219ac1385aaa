import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createFannedAbort, subscribeAbort } from "../../src/core/abort.js";
import { agentLoop } from "../../src/index.js";
import { createRunSignal, DeadlineExceededError } from "../../src/loop/signals.js";
import { scriptedModel } from "../../src/testing/index.js";

describe("run signal — plain abort fan-out", () => {
	it("SPEC A1: onAbort listeners run once, after the fields and the signal are set; unsubscribed ones never", () => {
		const external = new AbortController();
		const run = createRunSignal(external.signal, undefined, Date.now);
		const seen: string[] = [];
		subscribeAbort(run.signal, () =>
			seen.push(`a:${run.aborted}:${String(run.reason)}:${run.signal.aborted}`),
		);
		const stop = subscribeAbort(run.signal, () => seen.push("b"));
		stop();
		external.abort("user cancelled");
		external.abort("again");
		expect(seen).toEqual(["a:true:user cancelled:true"]);
		run.dispose();
	});

	it("SPEC A1: a signal without a fan-out is watched through its event listeners, removable too", () => {
		const controller = new AbortController();
		const seen: string[] = [];
		subscribeAbort(controller.signal, () => seen.push("a"));
		subscribeAbort(controller.signal, () => seen.push("b"))();
		controller.abort();
		controller.abort();
		expect(seen).toEqual(["a"]);
	});

	it("SPEC A1: a fanned controller (the Agent's) fires the run it feeds once, with its reason; a disposed run is deaf", () => {
		const control = createFannedAbort();
		const run = createRunSignal(control.signal, undefined, Date.now);
		const seen: string[] = [];
		control.signal.addEventListener("abort", () => seen.push(`event:${run.aborted}`));
		subscribeAbort(run.signal, () => seen.push(`run:${String(run.reason)}`));
		control.abort("stop");
		control.abort("again");
		expect(control.signal.aborted).toBe(true);
		expect(control.signal.reason).toBe("stop");
		// Its own event listeners first, then the run's fan-out (rule A2: the loop adds no event listener).
		expect(seen).toEqual(["event:false", "run:stop"]);
		run.dispose();

		const later = createFannedAbort();
		const disposed = createRunSignal(later.signal, undefined, Date.now);
		disposed.dispose();
		later.abort("late");
		expect(disposed.aborted).toBe(false);
	});

	it("SPEC A7: a deadline already passed fires before anyone subscribes; the state says so", () => {
		const run = createRunSignal(undefined, 5, () => 10);
		expect(run.aborted).toBe(true);
		expect(run.reason).toBeInstanceOf(DeadlineExceededError);
		run.dispose();
	});
});

describe("run signal — deadlines far away or not a time", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it("SPEC A7: a deadline further away than a timer can wait (~24.8 days) fires when it passes, not at once", () => {
		vi.useFakeTimers({ now: 0 });
		const day = 86_400_000;
		const run = createRunSignal(undefined, 30 * day, Date.now);
		vi.advanceTimersByTime(1_000);
		expect(run.aborted).toBe(false);
		vi.advanceTimersByTime(30 * day - 1_000 - 1);
		expect(run.aborted).toBe(false);
		vi.advanceTimersByTime(1);
		expect(run.reason).toBeInstanceOf(DeadlineExceededError);
		run.dispose();
	});

	it("SPEC A7: a deadline that is not a number of epoch ms is refused before the run starts", () => {
		const scripted = scriptedModel([]);
		const config = { model: scripted.model, streamFn: scripted.stream };
		const prompt = { role: "user" as const, content: "go", timestamp: 0 };
		expect(() => agentLoop([prompt], { messages: [] }, { ...config, deadline: Number.NaN })).toThrow(
			/^agentLoop: deadline must be a time in epoch milliseconds, e\.g\. Date\.now\(\) \+ 60_000 \(received NaN\)$/,
		);
		expect(() => new Agent({ ...config, deadline: "tomorrow" as never })).toThrow(
			new TypeError(
				"new Agent: deadline must be a time in epoch milliseconds, e.g. Date.now() + 60_000 (received string)",
			),
		);
		expect(scripted.calls).toHaveLength(0);
	});
});
