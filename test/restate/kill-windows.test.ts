// A worker process SIGKILLed at a run's two ends (docs/durable.md Restate rule 5): while the inbox's `begin`
// waits, and once the inbox's closing `end` has run but before the run's worker could go on. A crash alone
// loses nothing there: Restate retries the run, whose journal holds every call it made and every answer it
// got, so the retry replays them and writes what the first attempt would have. What opens a window is a kill
// of the run through Restate's admin API while it waits for a worker (the last resort Restate's docs give for
// a run whose worker is gone): a kill runs none of the run's code again, so whatever the run would have
// written after that point never is. These tests kill the run there and check that `status` stops naming it
// and that every message the run took from the inbox is kept, in its transcript or queued again.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { type AgentMessage, userMessage } from "../../src/index.js";
import { RestateAgentClient, RestateRequestError, type StartedRun } from "../../src/restate/index.js";
import { FOLLOW_UP_TEXT, gateFile, STEER_TEXT, type WorkerConfig } from "./support/agent.js";
import {
	describeWithRestate,
	freePort,
	invocationStatuses,
	type RestateUrls,
	startWorker,
	tempDir,
	uniqueName,
	type WorkerProcess,
	waitForLine,
} from "./support/services.js";

const workers: WorkerProcess[] = [];
afterAll(async () => {
	for (const worker of workers) await worker.kill();
});

async function worker(config: WorkerConfig): Promise<WorkerProcess> {
	const started = await startWorker(config);
	workers.push(started);
	return started;
}

/** Kill a run through Restate's admin API (what `restate invocations kill` does). */
async function killRun(adminUrl: string, run: StartedRun): Promise<void> {
	const answer = await fetch(`${adminUrl}/invocations/${encodeURIComponent(run.invocationId)}/kill`, {
		method: "PATCH",
	});
	expect(answer.ok).toBe(true);
}

async function expectKilled(client: RestateAgentClient, run: StartedRun): Promise<void> {
	const failed = await client.result(run).catch((error: unknown) => error);
	expect(failed).toBeInstanceOf(RestateRequestError);
	expect((failed as RestateRequestError).status).toBe(409);
}

/** How many of `messages` are user messages saying `text`. */
function said(messages: readonly AgentMessage[], text: string): number {
	return messages.filter(
		(message) => message.role === "user" && JSON.stringify(message.content).includes(text),
	).length;
}

interface Setup {
	urls: RestateUrls;
	name: string;
	countFile: string;
	client: RestateAgentClient;
}

function setup(urls: RestateUrls, prefix: string): Setup {
	const name = uniqueName(prefix);
	return {
		urls,
		name,
		countFile: join(tempDir(`restate-${prefix}`), "count"),
		client: new RestateAgentClient({ ingressUrl: urls.ingressUrl, name }),
	};
}

describeWithRestate("capstan/restate: a worker killed while the run's begin waits", (urls) => {
	/** Start a run whose `begin` is held, SIGKILL its worker, and return what the next worker needs. */
	async function killWorkerAtBegin(s: Setup, key: string) {
		const config: WorkerConfig = {
			name: s.name,
			port: await freePort(),
			adminUrl: s.urls.adminUrl,
			countFile: s.countFile,
			holdInboxByKey: true,
		};
		const first = await worker(config);
		const run = await s.client.start(key, { prompt: [userMessage(FOLLOW_UP_TEXT, 1)] });
		await waitForLine(s.countFile, `held ${key}`);
		await first.kill();
		writeFileSync(gateFile(s.countFile, key), ""); // the next worker's hook lets `begin` through
		return { config, run };
	}

	it("a crash alone: Restate retries the run on the next worker, which finishes it; status stops naming it", {
		timeout: 90_000,
	}, async () => {
		const s = setup(urls, "kill_begin_crash");
		const key = "hold-begin-crash";
		const { config, run } = await killWorkerAtBegin(s, key);
		await worker(config);
		const result = await s.client.result(run);
		expect(result.outcome).toEqual({ type: "completed" });
		expect(await s.client.transcript(key)).toEqual(result.added);
		expect(await s.client.status(key)).toEqual({ running: null, messages: 2 });
		expect(await s.client.pending(key)).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
	});

	it("docs/durable.md Restate rule 5: the run killed then, while no worker serves it: status stops naming it without a next run", {
		timeout: 90_000,
	}, async () => {
		const s = setup(urls, "kill_begin_kill");
		const key = "hold-begin-kill";
		const { config, run } = await killWorkerAtBegin(s, key);
		await killRun(s.urls.adminUrl, run); // `begin`, a call of the run's, is killed with it
		await expectKilled(s.client, run);
		await worker(config);
		await expect
			.poll(() => s.client.status(key), { timeout: 10_000 })
			.toEqual({ running: null, messages: 0 });
		expect(await s.client.pending(key)).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
		expect(await s.client.transcript(key)).toEqual([]);
	});
});

describeWithRestate("capstan/restate: the run's worker killed at the run's closing end", (urls) => {
	/**
	 * Two workers: the conversation object in one, the inbox in the other, which holds the run's closing `end`
	 * (`hold-end-…`). The run reads a steer and a follow-up and uses both; its worker is SIGKILLed while `end`
	 * is held. Then, with `endRuns`, `end` runs, and its answer is in the run's journal while no worker runs
	 * the run.
	 */
	async function killWorkerAtEnd(s: Setup, key: string, endRuns: boolean) {
		const conversation: WorkerConfig = {
			name: s.name,
			port: await freePort(),
			adminUrl: s.urls.adminUrl,
			countFile: s.countFile,
			serve: "conversation",
		};
		const first = await worker(conversation);
		const inbox: WorkerConfig = {
			...conversation,
			port: await freePort(),
			serve: "inbox",
			holdInboxByKey: true,
		};
		const inboxWorker = await worker(inbox);
		await s.client.steer(key, STEER_TEXT); // read at the first turn boundary
		await s.client.followUp(key, FOLLOW_UP_TEXT); // read when the run would stop after the steer's reply
		const run = await s.client.start(key, { prompt: [userMessage("Find alpha.", 1)] });
		await waitForLine(s.countFile, `held ${key}`);
		await first.kill();
		if (endRuns) {
			writeFileSync(gateFile(s.countFile, key), "");
			// The inbox has heard that the run ended: it no longer names it active.
			await expect.poll(() => s.client.pending(key), { timeout: 10_000 }).toMatchObject({ active: null });
		}
		return { conversation, inbox, inboxWorker, run };
	}

	/** Each message the run took is kept exactly once: in the transcript the run wrote, or queued again. */
	async function expectEachKeptOnce(s: Setup, key: string): Promise<void> {
		const transcript = await s.client.transcript(key);
		const pending = await s.client.pending(key);
		expect([
			said(transcript, STEER_TEXT) + pending.steer,
			said(transcript, FOLLOW_UP_TEXT) + pending.followUp,
		]).toEqual([1, 1]);
		expect(pending).toMatchObject({ abort: 0, active: null });
	}

	it("a crash alone: the retry replays end's answer and writes the transcript, with the steer and the follow-up it used", {
		timeout: 90_000,
	}, async () => {
		const s = setup(urls, "kill_end_crash");
		const key = "hold-end-crash";
		const { conversation, run } = await killWorkerAtEnd(s, key, true);
		await worker(conversation); // same port: the run's deployment
		const result = await s.client.result(run);
		expect(result.outcome).toEqual({ type: "completed" });
		const transcript = await s.client.transcript(key);
		expect(transcript).toEqual(result.added);
		expect([said(transcript, STEER_TEXT), said(transcript, FOLLOW_UP_TEXT)]).toEqual([1, 1]);
		expect(await s.client.pending(key)).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
		expect(await s.client.status(key)).toMatchObject({ running: null });
	});

	it("docs/durable.md Restate rule 5: the run killed once end has run, while no worker serves it: the steer and the follow-up it used are not lost", {
		timeout: 90_000,
	}, async () => {
		const s = setup(urls, "kill_end_kill");
		const key = "hold-end-kill";
		const { conversation, run } = await killWorkerAtEnd(s, key, true);
		await killRun(s.urls.adminUrl, run);
		await expectKilled(s.client, run);
		await worker(conversation);
		await expect.poll(() => s.client.status(key), { timeout: 10_000 }).toMatchObject({ running: null });
		await expectEachKeptOnce(s, key);
	});

	it("docs/durable.md Restate rule 5: the run killed while end waits (the kill stops it), while no worker serves it: what the run used is kept once, not also queued again", {
		timeout: 90_000,
	}, async () => {
		const s = setup(urls, "kill_end_held");
		const key = "hold-end-held";
		const { conversation, run } = await killWorkerAtEnd(s, key, false);
		await killRun(s.urls.adminUrl, run); // `end`, a call of the run's, is killed with it
		await expectKilled(s.client, run);
		writeFileSync(gateFile(s.countFile, key), ""); // the killed `end`'s hold ends; it does nothing
		await worker(conversation);
		await expect.poll(() => s.client.pending(key), { timeout: 10_000 }).toMatchObject({ active: null });
		expect(await s.client.status(key)).toMatchObject({ running: null });
		await expectEachKeptOnce(s, key);
	});

	it("docs/durable.md Restate rule 5: killed while end waits, and the next run begins before the watch is heard: it does not read again what the killed run used", {
		timeout: 90_000,
	}, async () => {
		const s = setup(urls, "kill_end_next");
		const key = "hold-end-next";
		writeFileSync(gateFile(s.countFile, "gate"), ""); // the next run's `wait_for` does not wait
		const { conversation, inbox, inboxWorker, run } = await killWorkerAtEnd(s, key, false);
		await inboxWorker.kill(); // the run's watch cannot run until the inbox is served again
		await killRun(s.urls.adminUrl, run);
		await expectKilled(s.client, run);
		writeFileSync(gateFile(s.countFile, key), ""); // the next worker holds no `end`
		await worker(conversation);
		// Queued on the conversation ahead of the watch's `closeRun`: its `begin` comes first.
		const next = await s.client.start(key, { prompt: "Anything else?" });
		await worker(inbox); // same port: the watch's deployment
		const result = await s.client.result(next);
		expect(result.outcome).toEqual({ type: "completed" });
		expect([said(result.added, STEER_TEXT), said(result.added, FOLLOW_UP_TEXT)]).toEqual([0, 0]);
		// The watch's `closeRun` is queued on the conversation behind the next run, or later still (the watch,
		// backing off while the inbox was not served, may retry after the next run ends): once it has run (and
		// sent the inbox its `end`, ahead of the third run's `begin`), what is checked below is what it left (it
		// does nothing: the next run began first).
		const closeRun = `${s.name}/${key}/closeRun`;
		await expect
			.poll(() => invocationStatuses(s.urls.adminUrl, closeRun), { timeout: 30_000 })
			.toEqual(["completed"]);
		const third = await s.client.run(key, { prompt: "One more." });
		expect([said(third.added, STEER_TEXT), said(third.added, FOLLOW_UP_TEXT)]).toEqual([0, 0]);
		expect(await s.client.status(key)).toMatchObject({ running: null });
		await expectEachKeptOnce(s, key);
	});
});
