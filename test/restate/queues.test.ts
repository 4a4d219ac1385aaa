// Steering, follow-ups and abort reach a run on a real Restate server from another process (this one, over
// the ingress), through the conversation's inbox object, while the run waits inside a tool in a worker.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AgentMessage, userMessage } from "../../src/index.js";
import { RestateAgentClient, RestateRequestError } from "../../src/restate/index.js";
import {
	countLines,
	eventsFile,
	FOLLOW_UP_TEXT,
	gateFile,
	PARALLEL_TEXT,
	STEER_TEXT,
} from "./support/agent.js";
import {
	describeWithRestate,
	freePort,
	startWorker,
	tempDir,
	uniqueName,
	type WorkerProcess,
	waitForCancelSignal,
} from "./support/services.js";

const prompt = userMessage("Find alpha, pay, find beta, then wait for the gate.", 1);

function texts(messages: readonly AgentMessage[]): string[] {
	return messages.map((message) => {
		const content = (message as { content?: unknown }).content;
		const blocks =
			typeof content === "string"
				? [{ type: "text", text: content }]
				: (content as { type: string; text?: string }[]);
		return `${message.role}: ${blocks.map((block) => block.text ?? `[${block.type}]`).join(" ")}`;
	});
}

describeWithRestate("capstan/restate: steering, follow-up and abort through the inbox", (urls) => {
	const name = uniqueName("queues");
	const countFile = join(tempDir("restate-queues"), "count");
	let worker: WorkerProcess;
	let client: RestateAgentClient;
	beforeAll(async () => {
		worker = await startWorker({ name, port: await freePort(), adminUrl: urls.adminUrl, countFile });
		client = new RestateAgentClient({ ingressUrl: urls.ingressUrl, name });
	}, 40_000);
	afterAll(async () => {
		await worker?.kill();
	});

	const gate = gateFile(countFile, "gate");
	const gatedCalls = () => countLines(countFile).filter((line) => line === "tool call_4 start").length;

	/** Start a run on `key` with the gate closed, and wait until it sits in the gated tool (call_4). */
	async function runUntilGate(key: string) {
		rmSync(gate, { force: true });
		const before = gatedCalls();
		const run = await client.start(key, { prompt: [prompt] });
		for (let waited = 0; gatedCalls() === before; waited += 20) {
			if (waited > 30_000)
				throw new Error(`the run never reached the gate:\n${countLines(countFile).join("\n")}`);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		return { run, open: () => writeFileSync(gate, "") };
	}

	it("SPEC Q2: a steer sent while a tool runs is read at the next turn boundary", {
		timeout: 60_000,
	}, async () => {
		const { run, open } = await runUntilGate("steer-1");
		expect(await client.status("steer-1")).toEqual({ running: run.invocationId, messages: 0 });
		await client.steer("steer-1", STEER_TEXT);
		expect(await client.pending("steer-1")).toMatchObject({ steer: 1, active: run.invocationId });
		open();
		const result = await client.result(run);
		expect(result.outcome).toEqual({ type: "completed" });
		expect(texts(result.added).slice(-3)).toEqual([
			"toolResult: gate gate open",
			`user: ${STEER_TEXT}`,
			"assistant: Switched to the blue one.",
		]);
		expect(await client.transcript("steer-1")).toEqual(result.added);
		expect(await client.pending("steer-1")).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
	});

	it("SPEC L9: a follow-up is read when the run would stop, and revives it", {
		timeout: 60_000,
	}, async () => {
		writeFileSync(gate, "");
		await client.followUp("follow-1", FOLLOW_UP_TEXT); // queued before the run: it waits in the inbox
		const result = await client.run("follow-1", { prompt: [prompt] });
		expect(texts(result.added).slice(-3)).toEqual([
			"assistant: All done.",
			`user: ${FOLLOW_UP_TEXT}`,
			"assistant: The red one is sold out.",
		]);
	});

	it("SPEC A6: an abort ends the run at its next boundary; no model call follows; a steer sent before it stays queued", {
		timeout: 60_000,
	}, async () => {
		const { run, open } = await runUntilGate("abort-1");
		const modelCalls = () => countLines(countFile).filter((line) => /^model \d+ end$/.test(line)).length;
		const before = modelCalls();
		await client.steer("abort-1", STEER_TEXT);
		await client.abort("abort-1", { reason: "the user pressed stop" });
		open();
		const result = await client.result(run);
		expect(result.outcome).toEqual({ type: "aborted", reason: "the user pressed stop" });
		expect(texts(result.added).at(-1)).toBe("toolResult: gate gate open");
		expect(modelCalls()).toBe(before);
		expect(await client.pending("abort-1")).toEqual({ steer: 1, followUp: 0, abort: 0, active: null });
		// The next run is not aborted by the spent request, and reads the steer that waited.
		const next = await client.run("abort-1", { prompt: "Anything else?" });
		expect(next.outcome).toEqual({ type: "completed" });
		expect(texts(next.added).slice(-2)).toEqual([
			`user: ${STEER_TEXT}`,
			"assistant: Switched to the blue one.",
		]);
		expect(await client.pending("abort-1")).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
	});

	it("a cancel through the admin API ends the run: no model call after it, no result, no transcript, no events made of it", {
		timeout: 60_000,
	}, async () => {
		const { run, open } = await runUntilGate("cancel-1");
		const modelCalls = () => countLines(countFile).filter((line) => /^model \d+ start$/.test(line)).length;
		const before = modelCalls();
		const cancel = await fetch(
			`${urls.adminUrl}/invocations/${encodeURIComponent(run.invocationId)}/cancel`,
			{ method: "PATCH" },
		);
		expect(cancel.ok).toBe(true);
		// Once the cancel is in the run's journal, the tool's result can only come after it: let the tool finish.
		await waitForCancelSignal(urls.adminUrl, run.invocationId);
		open();
		const failed = await client.result(run).catch((error: unknown) => error);
		expect(failed).toBeInstanceOf(Error);
		expect(modelCalls()).toBe(before);
		expect(await client.transcript("cancel-1")).toEqual([]);
		// The handler failed with Restate's own error: the host's onEvent saw no error result and no run end
		// made of the cancelled step (written before the invocation ended, had there been any).
		const seen = countLines(eventsFile(countFile)).filter((line) => line.startsWith("cancel-1 "));
		expect(seen).toContain("cancel-1 tool_execution_start");
		expect(seen).not.toContain("cancel-1 tool_execution_end error");
		expect(seen).not.toContain("cancel-1 agent_end");
	});

	it("refuses what it cannot deliver, with a clear error and nothing queued", {
		timeout: 30_000,
	}, async () => {
		const refused = await client.abort("idle-1").catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(RestateRequestError);
		expect((refused as Error).message).toContain("no run is active, so there is nothing to abort");
		const bad = await client
			.run("idle-1", { prompt: 42 as unknown as string })
			.catch((error: unknown) => error);
		expect((bad as Error).message).toContain('"prompt" must be a text or an array of agent messages');
		const empty = await client.run("idle-1", {}).catch((error: unknown) => error);
		expect((empty as Error).message).toContain("the context is empty; there is nothing to continue from");
		expect(await client.pending("idle-1")).toEqual({ steer: 0, followUp: 0, abort: 0, active: null });
		expect(await client.transcript("idle-1")).toEqual([]);
	});

	it("the inbox's end acts once per run: sent again after a cancel met the first, it requeues the unread steering once", {
		timeout: 30_000,
	}, async () => {
		// What a run whose closing `end` call met a cancel does: it cannot know whether that call ran, so it
		// sends `end` again with the same steering it took at a boundary and never read.
		const inbox = `${urls.ingressUrl}/${name}Inbox/end-once-1`;
		const call = async (handler: string, body: unknown) => {
			const answer = await fetch(`${inbox}/${handler}`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify(body),
			});
			expect(answer.status).toBe(200);
		};
		// The id of a run that waits (on another key) until the test ends it: the watch `begin` sends attaches to
		// it and tells no one anything meanwhile. An id of no invocation raced the test: its watch ended at once
		// (404) and its `closeRun` could end the run in the inbox before the test's own `end` arrived.
		const { run, open } = await runUntilGate("end-once-held");
		const { invocationId } = run;
		await call("begin", { invocationId });
		const end = { invocationId, unreadSteering: [userMessage(STEER_TEXT, 1)] };
		await call("end", end);
		await call("end", end);
		expect(await client.pending("end-once-1")).toEqual({ steer: 1, followUp: 0, abort: 0, active: null });
		open();
		expect((await client.result(run)).outcome).toEqual({ type: "completed" });
	});

	it("the inbox's begin also takes the run's id alone, as a run of the previous version (in flight at an upgrade) sends it", {
		timeout: 30_000,
	}, async () => {
		const key = "begin-old-1";
		const call = async (handler: string, body: unknown) => {
			const answer = await fetch(`${urls.ingressUrl}/${name}Inbox/${key}/${handler}`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify(body),
			});
			expect(answer.status).toBe(200);
		};
		// The id of a run that waits (on another key) until the test ends it: the watch `begin` sends attaches
		// to it and tells no one anything meanwhile.
		const { run, open } = await runUntilGate("begin-old-held");
		const { invocationId } = run;
		await call("begin", invocationId);
		expect(await client.pending(key)).toMatchObject({ active: invocationId });
		// The run's end is heard as that run's: its unread steering goes back.
		await call("end", { invocationId, unreadSteering: [userMessage(STEER_TEXT, 1)] });
		expect(await client.pending(key)).toEqual({ steer: 1, followUp: 0, abort: 0, active: null });
		open();
		expect((await client.result(run)).outcome).toEqual({ type: "completed" });
	});

	it("SPEC T6: tools of one turn run concurrently, each journaled once", { timeout: 60_000 }, async () => {
		const result = await client.run("parallel-1", { prompt: PARALLEL_TEXT });
		expect(result.outcome).toEqual({ type: "completed" });
		expect(texts(result.added)).toEqual([
			`user: ${PARALLEL_TEXT}`,
			"assistant: [toolCall] [toolCall]",
			"toolResult: charged 7",
			"toolResult: found gamma",
			"assistant: Both done.",
		]);
		const lines = countLines(countFile).filter((line) => line.startsWith("tool par_"));
		expect(lines.filter((line) => line.endsWith(" end")).sort()).toEqual([
			"tool par_1 end",
			"tool par_2 end",
		]);
	});
});
