import { describe, expect, it } from "vitest";
import { subscribeAbort } from "../../src/core/abort.js";
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

	it("SPEC A7: a deadline already passed fires before anyone subscribes; the state says so", () => {
		const run = createRunSignal(undefined, 5, () => 10);
		expect(run.aborted).toBe(true);
		expect(run.reason).toBeInstanceOf(DeadlineExceededError);
		run.dispose();
	});
});
