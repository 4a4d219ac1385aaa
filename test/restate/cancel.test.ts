// Cancels on a real Restate server, at each thing a run waits for. Whatever a cancel reaches (the run's start,
// a model call, a tool waiting for its start marker, a turn boundary's inbox read), the run ends with Restate's
// 409 and stores nothing: no transcript, no run in progress; the steering and follow-ups it took from the inbox
// go back to their queues. One that reaches a non-idempotent tool waiting for
// its marker (docs/durable.md, host rule 8) leaves no result in the tool's entry (a crash's trace, not a tool
// that failed with "Cancelled"). One that arrives once the loop is over (the run's closing call to the inbox)
// is too late: the run completes, as its events said, and its transcript is written.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { userMessage } from "../../src/index.js";
import {
	RestateAgentClient,
	RestateRequestError,
	type RestateRunInput,
	type StartedRun,
} from "../../src/restate/index.js";
import {
	countLines,
	eventsFile,
	FOLLOW_UP_TEXT,
	gateFile,
	HANG_MODEL_TEXT,
	STEER_TEXT,
	WAIT_SIGNAL_TEXT,
} from "./support/agent.js";
import {
	describeWithRestate,
	freePort,
	type JournalRow,
	journalRows,
	startWorker,
	tempDir,
	uniqueName,
	type WorkerProcess,
	waitForLine,
} from "./support/services.js";

const RESTATE_CANCEL_REASON = "The durable engine ended this attempt of the run: Cancelled";
const prompt = userMessage("Find alpha, pay, find beta, then wait for the gate.", 1);

/** Cancel a run through Restate's admin API (what `restate invocations cancel` does). */
async function cancel(adminUrl: string, invocationId: string): Promise<void> {
	const answer = await fetch(`${adminUrl}/invocations/${encodeURIComponent(invocationId)}/cancel`, {
		method: "PATCH",
	});
	expect(answer.ok).toBe(true);
}

/**
 * Nothing names the run as running any more: not the conversation's status, not the inbox, where an abort is
 * now refused instead of queued for a run that is gone. The inbox may hear of it by a one-way call: a poll.
 */
async function expectNothingRunning(client: RestateAgentClient, key: string): Promise<void> {
	expect(await client.status(key)).toMatchObject({ running: null });
	await expect.poll(() => client.pending(key), { timeout: 10_000 }).toMatchObject({ active: null });
	await expect(client.abort(key)).rejects.toThrow("no run is active, so there is nothing to abort");
}

/** Wait for a cancelled run's answer: Restate's 409. */
async function expectCancelled(client: RestateAgentClient, run: StartedRun): Promise<void> {
	const failed = await client.result(run).catch((error: unknown) => error);
	expect(failed).toBeInstanceOf(RestateRequestError);
	expect((failed as RestateRequestError).status).toBe(409);
}

/** The completion of the `ctx.run` entry named `step`, if Restate recorded one. */
function runResult(rows: readonly JournalRow[], step: string): unknown {
	const command = rows.find((row) => row.entry_type === "Command: Run" && row.name === step);
	expect(command).toBeDefined();
	const id = JSON.parse(command?.entry_json ?? "{}").Command.Run.completion_id;
	for (const row of rows) {
		const run = JSON.parse(row.entry_json).Notification?.Completion?.Run;
		if (run?.completion_id === id) return run.result;
	}
	return undefined;
}

describeWithRestate("capstan/restate: a cancel that reaches a tool waiting for its start marker", (urls) => {
	const name = uniqueName("cancel");
	const countFile = join(tempDir("restate-cancel"), "count");
	let worker: WorkerProcess;
	let client: RestateAgentClient;
	beforeAll(async () => {
		writeFileSync(gateFile(countFile, "gate"), "");
		// call_2 is `charge`, not idempotent: a start marker is journaled before it runs.
		const port = await freePort();
		worker = await startWorker({ name, port, adminUrl: urls.adminUrl, countFile, holdMarkerOf: "call_2" });
		client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
	}, 40_000);
	afterAll(async () => {
		await worker?.kill();
	});

	it("SPEC L13 / host rule 8: the cancel ends the run and is not recorded as the tool's result; nothing runs after it", {
		timeout: 90_000,
	}, async () => {
		const run = await client.start("cancel-marker-1", { prompt: [prompt] });
		// The charge's own entry has started and waits for its marker, whose answer is held back.
		await waitForLine(countFile, "held call_2:started");
		await waitForLine(countFile, "run call_2 start");
		await cancel(urls.adminUrl, run.invocationId);
		const failed = await client.result(run).catch((error: unknown) => error);
		expect(failed).toBeInstanceOf(RestateRequestError);
		expect((failed as RestateRequestError).status).toBe(409);
		// The charge never ran; its marker was recorded, its own entry has no result (not the cancel).
		expect(countLines(countFile)).not.toContain("tool call_2 start");
		const rows = await journalRows(urls.adminUrl, run.invocationId);
		expect(runResult(rows, "call_2:started")).toMatchObject({ Success: expect.anything() });
		expect(runResult(rows, "call_2")).toBeUndefined();
		// Nothing after the cancel: no model call, no transcript, and no event made of the cancelled step.
		expect(countLines(countFile)).not.toContain("model 3 start");
		expect(await client.transcript("cancel-marker-1")).toEqual([]);
		const seen = countLines(eventsFile(countFile));
		expect(seen).not.toContain("cancel-marker-1 tool_execution_end error");
		expect(seen).not.toContain("cancel-marker-1 agent_end");
		await expectNothingRunning(client, "cancel-marker-1");
	});
});

describeWithRestate("capstan/restate: a cancel in a model call", (urls) => {
	const name = uniqueName("cancel_model");
	const countFile = join(tempDir("restate-cancel-model"), "count");
	let worker: WorkerProcess;
	let client: RestateAgentClient;
	beforeAll(async () => {
		const port = await freePort();
		worker = await startWorker({ name, port, adminUrl: urls.adminUrl, countFile, holdResultOf: "model:0" });
		client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
	}, 40_000);
	afterAll(async () => {
		await worker?.kill();
	});

	it("docs/durable.md Restate rule 5: the reply is not used, the tool it asks for never runs, no transcript", {
		timeout: 90_000,
	}, async () => {
		const key = "cancel-model-1";
		const run = await client.start(key, { prompt: [prompt] });
		// The model has replied (a lookup); Restate has not got the reply yet.
		await waitForLine(countFile, "held model:0");
		await cancel(urls.adminUrl, run.invocationId);
		await expectCancelled(client, run);
		expect(countLines(countFile)).toContain("model 1 end");
		expect(countLines(countFile)).not.toContain("tool call_1 start");
		expect(await client.transcript(key)).toEqual([]);
		const seen = countLines(eventsFile(countFile)).filter((line) => line.startsWith(`${key} `));
		expect(seen).not.toContain(`${key} tool_execution_start`);
		expect(seen).not.toContain(`${key} agent_end`);
		await expectNothingRunning(client, key);
	});
});

/** The messages' texts, `role: text`, for comparing what a run added. */
function texts(messages: readonly { role: string; content?: unknown }[]): string[] {
	return messages.map((message) => {
		const content = message.content;
		const blocks =
			typeof content === "string"
				? [{ type: "text", text: content }]
				: (content as { type: string; text?: string }[]);
		return `${message.role}: ${blocks.map((block) => block.text ?? `[${block.type}]`).join(" ")}`;
	});
}

/**
 * A run that read a steer and a follow-up, then is stopped by Restate (`cancel` or `kill`) while it waits for
 * the reply to the follow-up: nothing it took is lost; the next run reads it all, in the order it was sent.
 */
function describeStopAfterReading(stop: "cancel" | "kill", rule: string): void {
	describeWithRestate(`capstan/restate: a ${stop} after the run read steering and a follow-up`, (urls) => {
		const name = uniqueName(`${stop}_read`);
		const countFile = join(tempDir(`restate-${stop}-read`), "count");
		let worker: WorkerProcess;
		let client: RestateAgentClient;
		beforeAll(async () => {
			// model:2 is the reply to the follow-up: by then the run has read the steer and the follow-up.
			const port = await freePort();
			worker = await startWorker({ name, port, adminUrl: urls.adminUrl, countFile, holdResultOf: "model:2" });
			client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
		}, 40_000);
		afterAll(async () => {
			await worker?.kill();
		});

		it(`${rule}: what the run took from the inbox goes back to the front of its queues, in order, for the next run`, {
			timeout: 90_000,
		}, async () => {
			const key = `${stop}-read-1`;
			const later = `Again: ${STEER_TEXT}`;
			await client.steer(key, STEER_TEXT); // read at the first turn boundary
			await client.followUp(key, FOLLOW_UP_TEXT); // read when the run would stop after the steer's reply
			const run = await client.start(key, { prompt: [prompt] });
			await waitForLine(countFile, "held model:2");
			await client.steer(key, later); // sent while the run waits: never taken
			const answer = await fetch(
				`${urls.adminUrl}/invocations/${encodeURIComponent(run.invocationId)}/${stop}`,
				{ method: "PATCH" },
			);
			expect(answer.ok).toBe(true);
			await expect(client.result(run)).rejects.toBeInstanceOf(RestateRequestError);
			expect(await client.transcript(key)).toEqual([]);
			// The inbox hears of it by a one-way call (a kill runs none of the run's code: the inbox's watch of
			// the run sends it), so a poll: what the run took is counted as queued again, and nothing names the
			// run as running, before any next run starts.
			await expect
				.poll(() => client.pending(key), { timeout: 10_000 })
				.toEqual({ steer: 2, followUp: 1, abort: 0, active: null });
			await expect
				.poll(() => client.status(key), { timeout: 10_000 })
				.toEqual({ running: null, messages: 0 });
			// The next run reads them as if the stopped run had never taken them: the steer it had read first.
			const next = await client.run(key, { prompt: "Anything else?" });
			expect(next.outcome).toEqual({ type: "completed" });
			expect(texts(next.added).slice(-5)).toEqual([
				`user: ${STEER_TEXT}`,
				`user: ${later}`,
				"assistant: Switched to the blue one.",
				`user: ${FOLLOW_UP_TEXT}`,
				"assistant: The red one is sold out.",
			]);
			expect(await client.pending(key)).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
		});
	});
}

describeStopAfterReading("cancel", "docs/durable.md Restate rule 5");
describeStopAfterReading("kill", "docs/durable.md Restate rule 5 (a kill)");

describeWithRestate("capstan/restate: a cancel while the run waits for its inbox", (urls) => {
	const name = uniqueName("cancel_inbox");
	const countFile = join(tempDir("restate-cancel-inbox"), "count");
	let worker: WorkerProcess;
	let client: RestateAgentClient;
	beforeAll(async () => {
		const port = await freePort();
		worker = await startWorker({ name, port, adminUrl: urls.adminUrl, countFile, holdInboxByKey: true });
		client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
	}, 40_000);
	afterAll(async () => {
		await worker?.kill();
	});

	const modelCalls = () => countLines(countFile).filter((line) => /^model \d+ start$/.test(line)).length;

	/** Start a run on `key` (`hold-<handler>-…`), cancel it while that inbox call is held, then open the gate. */
	async function cancelAtHeldCall(key: string, input: RestateRunInput): Promise<void> {
		const run = await client.start(key, input);
		await waitForLine(countFile, `held ${key}`);
		const calls = modelCalls();
		await cancel(urls.adminUrl, run.invocationId);
		await expectCancelled(client, run);
		writeFileSync(gateFile(countFile, key), "");
		expect(modelCalls()).toBe(calls);
		expect(await client.transcript(key)).toEqual([]);
		expect(countLines(eventsFile(countFile))).not.toContain(`${key} agent_end`);
		await expectNothingRunning(client, key);
	}

	it("docs/durable.md Restate rule 5: at its start (the inbox's begin), before any step", {
		timeout: 90_000,
	}, async () => {
		await cancelAtHeldCall("hold-begin-1", { prompt: [prompt] });
		expect(countLines(eventsFile(countFile)).filter((line) => line.startsWith("hold-begin-1 "))).toEqual([]);
	});

	it("docs/durable.md Restate rule 5: at a turn boundary (the inbox's boundary), no model call after it; the steering that call took goes back", {
		timeout: 90_000,
	}, async () => {
		// The held boundary call takes the steer once the gate opens, but its answer never reaches the run.
		await client.steer("hold-boundary-1", STEER_TEXT);
		await cancelAtHeldCall("hold-boundary-1", { prompt: [prompt] });
		expect(await client.pending("hold-boundary-1")).toMatchObject({ steer: 1, followUp: 0 });
	});

	it("docs/durable.md Restate rule 5: at its very last step (the inbox's end, the loop over), too late: the run completes", {
		timeout: 90_000,
	}, async () => {
		const key = "hold-end-1";
		// One model call, a text reply: the loop is over, its agent_end delivered, and the run's closing call to
		// the inbox is held.
		const run = await client.start(key, { prompt: [userMessage(FOLLOW_UP_TEXT, 1)] });
		await waitForLine(countFile, `held ${key}`);
		await cancel(urls.adminUrl, run.invocationId);
		const result = await client.result(run);
		writeFileSync(gateFile(countFile, key), "");
		// What the caller is told, what the host's onEvent saw and what is stored agree: the run completed.
		expect(result.outcome).toEqual({ type: "completed" });
		expect(countLines(eventsFile(countFile))).toContain(`${key} agent_end`);
		const transcript = await client.transcript(key);
		expect(transcript.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(transcript).toEqual(result.added);
		await expectNothingRunning(client, key);
	});
});

describeWithRestate("capstan/restate: a cancel while a tool or a model call runs", (urls) => {
	const name = uniqueName("cancel_live");
	const countFile = join(tempDir("restate-cancel-live"), "count");
	let worker: WorkerProcess;
	let client: RestateAgentClient;
	beforeAll(async () => {
		const port = await freePort();
		worker = await startWorker({ name, port, adminUrl: urls.adminUrl, countFile });
		client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
	}, 40_000);
	afterAll(async () => {
		await worker?.kill();
	});

	it("SPEC A1 / docs/durable.md Restate rule 5, host rule 8: the running tool's signal fires at once; its entry records no result", {
		timeout: 90_000,
	}, async () => {
		const key = "cancel-tool-1";
		const run = await client.start(key, { prompt: WAIT_SIGNAL_TEXT });
		// `wait_signal` ends only when its signal fires: nothing else would end the run.
		await waitForLine(countFile, "tool sig_1 start");
		await cancel(urls.adminUrl, run.invocationId);
		await expectCancelled(client, run);
		// The run answered only once the tool it aborted had settled: nothing of it runs on after its 409.
		expect(countLines(countFile)).toContain(`tool sig_1 aborted: ${RESTATE_CANCEL_REASON}`);
		// The tool's step is a crash's trace (started, no result), not the abort it met: a replay of the
		// journal would treat it as cut off, not as a tool that failed.
		const rows = await journalRows(urls.adminUrl, run.invocationId);
		expect(runResult(rows, "sig_1:started")).toMatchObject({ Success: expect.anything() });
		expect(runResult(rows, "sig_1")).toBeUndefined();
		expect(countLines(countFile)).not.toContain("model 2 start");
		expect(await client.transcript(key)).toEqual([]);
		const seen = countLines(eventsFile(countFile)).filter((line) => line.startsWith(`${key} `));
		expect(seen).not.toContain(`${key} tool_execution_end error`);
		expect(seen).not.toContain(`${key} agent_end`);
		await expectNothingRunning(client, key);
	});

	it("SPEC A1 / docs/durable.md Restate rule 5: the model call's signal fires at once; its entry records no result", {
		timeout: 90_000,
	}, async () => {
		const key = "cancel-model-live-1";
		const run = await client.start(key, { prompt: HANG_MODEL_TEXT });
		// The reply never ends until its signal fires. (The tool test's run made the worker's first model 1.)
		await waitForLine(countFile, "model 1 start", 2);
		await cancel(urls.adminUrl, run.invocationId);
		await expectCancelled(client, run);
		expect(countLines(countFile)).toContain(`model 1 aborted: ${RESTATE_CANCEL_REASON}`);
		const rows = await journalRows(urls.adminUrl, run.invocationId);
		expect(runResult(rows, "model:0")).toBeUndefined();
		expect(await client.transcript(key)).toEqual([]);
		const seen = countLines(eventsFile(countFile)).filter((line) => line.startsWith(`${key} `));
		expect(seen.filter((line) => line === `${key} message_end`)).toHaveLength(1); // the prompt's
		expect(seen).not.toContain(`${key} agent_end`);
		await expectNothingRunning(client, key);
	});
});

describeWithRestate(
	"capstan/restate: a run the host fails for good (a TerminalError from onEvent)",
	(urls) => {
		const name = uniqueName("fail_terminal");
		const countFile = join(tempDir("restate-fail-terminal"), "count");
		let worker: WorkerProcess;
		let client: RestateAgentClient;
		beforeAll(async () => {
			writeFileSync(gateFile(countFile, "gate"), ""); // the gate is open: the run never waits
			worker = await startWorker({ name, port: await freePort(), adminUrl: urls.adminUrl, countFile });
			client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
		}, 40_000);
		afterAll(async () => {
			await worker?.kill();
		});

		it("docs/durable.md Restate rule 5: like a cancelled run, it gives back the steering it took and is not named running", {
			timeout: 90_000,
		}, async () => {
			const key = "fail-terminal-1";
			await client.steer(key, STEER_TEXT); // queued: the run's first boundary takes it
			const run = await client.start(key, { prompt: [prompt] });
			const failed = await client.result(run).catch((error: unknown) => error);
			expect(failed).toBeInstanceOf(RestateRequestError);
			expect((failed as RestateRequestError).status).toBe(500);
			expect(await client.transcript(key)).toEqual([]);
			// The inbox's watch of the run hears of the failure (one-way calls: a poll).
			await expect
				.poll(() => client.pending(key), { timeout: 10_000 })
				.toEqual({ steer: 1, followUp: 0, abort: 0, active: null });
			await expect
				.poll(() => client.status(key), { timeout: 10_000 })
				.toEqual({ running: null, messages: 0 });
		});
	},
);
