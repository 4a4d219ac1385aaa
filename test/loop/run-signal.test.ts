import { describe, expect, it } from "vitest";
import { createFannedAbort, subscribeAbort } from "../../src/core/abort.js";
import { createRunSignal, DeadlineExceededError } from "../../src/loop/signals.js";

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
